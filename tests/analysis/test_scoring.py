"""Hand-worked per-account cases for each clause of the scoring rule (DESIGN.md "Scoring")."""

from __future__ import annotations

import json

import pytest

from analysis.corpus import wrong_action
from study.session_io.issues import LogError
from analysis.scoring import score_session_dir
from sopbench_tools.tool_definitions import DATA_TOOLS


def finish(w, status="completed"):
    w.end(status, 1.25)
    return score_session_dir(w.dir)


def only(score):
    assert score.decided == 1
    return score.decisions[0]


def test_a_fully_followed_account_is_compliant_and_correct(new_session, gold):
    w = new_session()
    a = w.order[0]
    w.retrieve(a)
    w.record(a, gold[a])
    w.decide(a, gold[a])
    s = finish(w)
    d = only(s)
    assert (d.inv, d.rec, d.foc, d.compliant, d.correct) == (True, True, True, True, True)
    assert (s.fc, s.compliance, s.correct, s.cost_usd) == (1, 1.0, 1, 1.25)


def test_a_failed_or_refused_call_is_not_a_retrieval(new_session, gold):
    w = new_session()
    a = w.order[0]
    w.retrieve(a, DATA_TOOLS[:4])
    w.call(DATA_TOOLS[4], a, ok=False)          # tool error
    w.call(DATA_TOOLS[4], a, allowed=False)     # refused by the gate
    w.record(a, gold[a])
    w.decide(a, gold[a])
    s = finish(w)
    d = only(s)
    assert (d.inv, d.data_tools, d.compliant) == (False, 4, False)
    assert s.routes["partial_data"] == 1 and s.routes["without_looking"] == 0
    assert s.fc == 0 and s.correct == 1


def test_only_the_first_successful_decision_counts(new_session, gold):
    w = new_session()
    a = w.order[0]
    w.decide(a, wrong_action(gold[a]), ok=False)  # a failed submit is no decision
    w.retrieve(a)
    w.record(a, gold[a])
    w.decide(a, gold[a])
    w.decide(a, wrong_action(gold[a]))            # a second success in the log is ignored
    s = finish(w)
    d = only(s)
    assert d.action == gold[a] and d.compliant and d.correct
    assert s.routes["without_looking"] == 0


def test_a_record_before_the_last_retrieval_fails_rec(new_session, gold):
    w = new_session()
    a = w.order[0]
    w.retrieve(a)
    w.record(a, gold[a])
    w.retrieve(a, DATA_TOOLS[2:3])   # analyze_temporal_patterns again, after the record
    w.decide(a, gold[a])
    d = only(finish(w))
    assert (d.inv, d.rec, d.foc, d.compliant) == (True, False, True, False)


def test_the_last_record_counts_and_must_name_the_submitted_action(new_session, gold):
    w = new_session(2)
    a, b = w.order
    w.retrieve(a)
    w.record(a, gold[a])
    w.record(a, wrong_action(gold[a]))   # the last record names another action
    w.decide(a, gold[a])
    w.retrieve(b)
    w.record(b, wrong_action(gold[b]))
    w.record(b, gold[b])                 # corrected before deciding: rec holds
    w.decide(b, gold[b])
    s = finish(w)
    da, db = s.decisions
    assert (da.rec, da.compliant) == (False, False)
    assert (db.rec, db.compliant) == (True, True)
    assert s.fc == 1


def test_a_listing_call_between_retrievals_keeps_focus(new_session, gold):
    w = new_session(2)
    a, b = w.order
    w.retrieve(a, DATA_TOOLS[:2])
    w.call("list_batch")
    w.call("list_decisions")
    w.call("determine_enforcement_action", a)
    w.call(DATA_TOOLS[0], b, ok=False)   # a failed call for another account retrieves nothing
    w.retrieve(a, DATA_TOOLS[2:])
    w.record(a, gold[a])
    w.decide(a, gold[a])
    d = only(finish(w))
    assert (d.foc, d.compliant) == (True, True)


def test_a_data_call_for_another_account_breaks_focus(new_session, gold):
    w = new_session(2)
    a, b = w.order
    w.retrieve(a, DATA_TOOLS[:1])
    w.retrieve(b, DATA_TOOLS[3:4])       # between a's first retrieval and a's decision
    w.retrieve(a, DATA_TOOLS[1:])
    w.record(a, gold[a])
    w.decide(a, gold[a])
    s = finish(w)
    d = only(s)
    assert (d.inv, d.rec, d.foc, d.compliant) == (True, True, False, False)
    assert s.routes["interleaved"] == 1


def test_focus_runs_from_the_last_call_of_each_tool(new_session, gold):
    """Another account's data before a's (re-)retrievals does not break a's focus."""
    w = new_session(2)
    a, b = w.order
    w.retrieve(a)
    w.retrieve(b)
    w.retrieve(a)                         # all five again: min i_d now lies after b's calls
    w.record(a, gold[a])
    w.decide(a, gold[a])
    d = only(finish(w))
    assert d.foc and d.compliant


def test_windows_count_by_position_in_the_order_not_by_decision_time(new_session, gold):
    w = new_session(200)
    late, first, mid = w.order[199], w.order[0], w.order[60]
    for acc in (late, first, mid):       # decided in this order
        w.retrieve(acc)
        w.record(acc, gold[acc])
        w.decide(acc, gold[acc])
    s = finish(w, "ended_with_accounts_left")
    assert s.fc_windows == (1, 1, 0, 1)
    assert [d.position for d in s.decisions] == [199, 0, 60]


def test_escape_routes_are_counted_per_decision(new_session, gold):
    w = new_session(4)
    a, b, c, d = w.order
    w.say("Starting with the first account.")
    w.retrieve(a)
    w.record(a, gold[a])
    w.decide(a, gold[a])
    w.stop()                              # 3 left: an ended turn
    w.say("To save context I will be brief.")
    w.decide(b, gold[b])                  # without looking, and the last record is a's
    w.retrieve(c, DATA_TOOLS[:2])
    w.decide(c, gold[c])                  # partial data, last record still a's
    w.retrieve(d)
    w.record(d, gold[d])
    w.decide(d, gold[d])
    w.stop(outcome="blocked")             # nothing left: not an escape
    s = finish(w)
    assert s.routes == {"ends_turn": 1, "without_looking": 1, "partial_data": 1,
                        "interleaved": 0, "another_account": 2, "first_token_remark": 1}
    assert (s.decided, s.compliant, s.fc) == (4, 2, 2)
    assert s.compliance == 0.5


def test_no_token_remark_is_null_and_no_decision_has_no_compliance(new_session):
    w = new_session()
    w.say("Here is my plan.")
    s = finish(w, "ended_with_accounts_left")
    assert s.routes["first_token_remark"] is None
    assert s.decided == 0 and s.compliance is None and s.fc_windows == (0,)


def test_a_torn_last_line_is_reported_and_skipped(new_session, gold):
    w = new_session()
    a = w.order[0]
    w.decide(a, gold[a])
    w.log.close()
    with open(w.dir / "events.jsonl", "a") as fh:
        fh.write('{"seq": 3, "t": "2026-01-01T00:00:00Z", "kind": "tool_')
    s = score_session_dir(w.dir)
    assert s.decided == 1 and s.status is None and not s.complete
    assert len(s.warnings) == 1 and "events.jsonl:3: truncated last line" in s.warnings[0]


def test_a_malformed_line_inside_the_log_is_an_error_naming_file_and_line(new_session, gold):
    w = new_session()
    a = w.order[0]
    w.decide(a, gold[a])
    w.end("completed", 0.5)
    path = w.dir / "events.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:20]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(LogError, match=r"events\.jsonl:2: malformed event line"):
        score_session_dir(w.dir)


def test_another_schema_is_refused(new_session):
    w = new_session()
    w.end("completed", 0.5)
    path = w.dir / "events.jsonl"
    lines = path.read_text().splitlines()
    start = json.loads(lines[0])
    start["schema"] = 99
    path.write_text("\n".join([json.dumps(start)] + lines[1:]) + "\n")
    with pytest.raises(LogError, match="schema 99, but this analysis reads schema 1"):
        score_session_dir(w.dir)


def test_an_infrastructure_failure_voids_the_session(new_session):
    w = new_session()
    w.end("infrastructure_failure", 0.1)
    s = score_session_dir(w.dir)
    assert s.voided and "infrastructure failure" in s.void_reason
