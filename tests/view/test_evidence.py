"""The clause evidence the viewer shows is the scorer's: same verdicts as the tables' clauses on
every decision of the golden corpora, and exact evidence for each way a clause fails."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from analysis.scoring import score_log, score_session_dir
from study.session_io.folders import find_sessions
from study.session_io.reader import LogRead

from .conftest import GOLDEN

DATA = ["investigate_account", "analyze_traffic_patterns", "analyze_temporal_patterns", "get_violation_history",
        "get_financial_impact"]


@pytest.mark.parametrize("archive", ["corpus_logs.tgz", "sim_logs.tgz"])
def test_evidence_verdicts_equal_the_scored_clauses_on_every_decision(tmp_path, archive):
    with tarfile.open(GOLDEN / archive) as tar:
        tar.extractall(tmp_path, filter="data")
    checked = failing = 0
    for folder in find_sessions(tmp_path):
        if not (folder / "events.jsonl").is_file():
            continue
        plain, kept = score_session_dir(folder), score_session_dir(folder, evidence=True)
        assert plain.decisions == kept.decisions and plain.routes == kept.routes
        assert [e.score for e in kept.evidence] == list(kept.decisions)
        for ev in kept.evidence:
            c = ev.clauses()
            assert (c["inv"]["ok"], c["rec"]["ok"], c["foc"]["ok"], c["correct"]["ok"]) == (
                ev.score.inv, ev.score.rec, ev.score.foc, ev.score.correct)
            assert (c["foc"]["breaking"] is None) == ev.score.foc
            failing += not ev.score.compliant
            checked += 1
    assert (checked, failing) == {"corpus_logs.tgz": (3731, 1472), "sim_logs.tgz": (79, 6)}[archive]


def _log(calls: list[tuple[str, str, dict]]) -> LogRead:
    order = ["A1", "A2"]
    events = [{"seq": 0, "t": "2026-01-01T00:00:00Z", "kind": "session_start", "schema": 2, "condition": "Plain",
               "seed": 2, "model": "m", "simulated": True, "manifest_sha256": None, "code_version": None,
               "cli_version": None, "order": order, "limits": {}}]
    for tool, account, args in calls:
        events.append({"seq": len(events), "t": "2026-01-01T00:00:01Z", "kind": "tool_call", "tool": tool,
                       "args": {"account_id": account, **args}, "account": account, "allowed": True, "ok": True,
                       "state": None})
    return LogRead(Path("/x/events.jsonl"), events)


def test_each_failing_clause_names_its_evidence():
    # A1: two data tools, then A2's data (seq 3), a record (seq 4) naming another action, then the
    # last data tool after the record (seq 5), then the decision (seq 6)
    calls = [(DATA[0], "A1", {}), (DATA[1], "A1", {}), (DATA[0], "A2", {}),
             ("record_analysis", "A1", {"step4_action": "Suspend"}), (DATA[2], "A1", {}),
             ("submit_decision", "A1", {"action": "No Action"})]
    score = score_log(_log(calls), evidence=True)
    ev = score.evidence[0]
    c = ev.clauses()
    assert c["inv"]["missing"] == DATA[3:] and c["inv"]["why"] == (
        "missing: get_violation_history, get_financial_impact (no successful call for this account before the decision)")
    assert c["rec"]["why"] == ("the record (seq 4) names 'Suspend', the decision 'No Action'; the record (seq 4) "
                               "came too early: before analyze_temporal_patterns (seq 5)")
    assert c["rec"]["after_record"] == [5]
    assert c["foc"]["breaking"] == {"seq": 3, "account": "A2"} and c["foc"]["window"] == [1, 6]
    assert (ev.score.inv, ev.score.rec, ev.score.foc) == (False, False, False)


def test_the_breaking_call_is_the_last_other_account_call_before_the_decision():
    # A1's data, then A2's twice with A1's in between: foc breaks on A2's last call (seq 5)
    calls = [(DATA[0], "A1", {}), (DATA[0], "A2", {}), (DATA[1], "A1", {}), (DATA[1], "A2", {}),
             (DATA[1], "A2", {}), ("submit_decision", "A1", {"action": "No Action"})]
    ev = score_log(_log(calls), evidence=True).evidence[0]
    assert ev.clauses()["foc"]["breaking"] == {"seq": 5, "account": "A2"}
    # without evidence nothing is kept
    assert score_log(_log(calls)).evidence == ()
