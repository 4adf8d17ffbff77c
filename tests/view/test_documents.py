"""The viewer's documents carry the tables' numbers: every matrix row equals the analysis corpus
row of the same session; voided and broken sessions are marked, never hidden."""

from __future__ import annotations

import tarfile
from pathlib import Path

from analysis.loading import load_corpus
from study.view import documents
from study.view.load import Store

from .conftest import GOLDEN


def test_matrix_rows_equal_the_analysis_rows_and_mark_voided_and_broken_sessions(tmp_path):
    with tarfile.open(GOLDEN / "corpus_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    root = tmp_path / "sessions"
    broken = root / "haiku-4.5" / "Plain" / "seed-2" / "events.jsonl"
    lines = broken.read_bytes().split(b"\n")
    broken.write_bytes(b"\n".join(lines[:5] + [lines[4]] + lines[5:]))        # a doubled line

    corpus = load_corpus(root, allow_simulated=True, include_exploratory=True, workers=1)
    rows = {r["name"]: r for r in documents.matrix_doc(Store(root))["sessions"]}
    assert len(rows) == 81
    frame = {Path(r["path"]).relative_to(root.resolve()).as_posix(): r for r in corpus.sessions.iter_rows(named=True)}
    for name, want in frame.items():
        got = rows[name]
        assert (got["fc"], got["decided"], got["compliance"], got["cost_usd"], got["status"]) == (
            want["fc"], want["decided"], want["compliance"], want["cost_usd"], want["status"]), name
        assert got["sliver"].count("fc") == want["fc"] and got["sliver"].count("undecided") == want["accounts"] - want["decided"]
    voided = rows["haiku-4.5/Remind/seed-5"]
    assert voided["voided"] is True and voided["status"] == "infrastructure_failure"
    assert "haiku-4.5/Remind/seed-5" in dict(corpus.excluded)        # the tables leave it out; the viewer marks it
    bad = rows["haiku-4.5/Plain/seed-2"]
    assert bad["fc"] is None and bad["sliver"] == ["undecided"] * 60
    assert bad["error"].startswith(f"{broken}:6: seq 4 where 5 was due")
    doc = documents.session_doc(Store(root).session("haiku-4.5/Plain/seed-2"))
    assert doc["error"] == bad["error"] and "metrics" not in doc


def test_a_long_account_span_lists_its_own_calls_and_the_breaking_call_and_counts_the_rest():
    from analysis.scoring import score_log
    from study.session_io.reader import LogRead
    from study.view.load import Session

    data = ["investigate_account", "analyze_traffic_patterns", "analyze_temporal_patterns", "get_violation_history",
            "get_financial_impact"]
    events = [{"seq": 0, "t": "2026-01-01T00:00:00Z", "kind": "session_start", "schema": 2, "condition": "Plain",
               "seed": 2, "model": "m", "simulated": True, "manifest_sha256": None, "code_version": None,
               "cli_version": None, "order": ["A0", "A1"], "limits": {}}]

    def call(tool, account, **args):
        events.append({"seq": len(events), "t": "2026-01-01T00:00:01Z", "kind": "tool_call", "tool": tool,
                       "args": {"account_id": account, **args}, "account": account, "allowed": True, "ok": True,
                       "state": None})

    call(data[0], "A0")
    for _ in range(450):
        call(data[1], "A1")             # another account's data, 450 times: the last one breaks focus
    for tool in data[1:]:
        call(tool, "A0")
    call("record_analysis", "A0", step4_action="No Action")
    call("submit_decision", "A0", action="No Action")
    log = LogRead(Path("/x/events.jsonl"), events)
    session = Session("x", Path("/x"), None, log, score_log(log, evidence=True), None, False)
    doc = documents.account_doc(session, "A0")
    assert (doc["hidden"], doc["breaking_seq"]) == (449, 451)
    assert [e["seq"] for e in doc["events"]] == [1, 451, 452, 453, 454, 455, 456, 457]
    assert [e["other"] for e in doc["events"]] == [False, True] + [False] * 6


def test_the_timeline_marks_workflow_proposals_and_retried_api_errors():
    """The viewer shows FSM-propose's proposals (issue 25) and the CLI's retried API errors (issue 24)
    on the session's timeline, each labelled from its event."""
    from study.session_io.reader import LogRead
    from study.view.load import Session

    events = [{"seq": 0, "t": "2026-01-01T00:00:00Z", "kind": "session_start", "schema": 2, "condition": "FSM-propose",
               "seed": 2, "model": "sim:proposer", "simulated": True, "manifest_sha256": None, "code_version": None,
               "cli_version": None, "order": ["A0"], "limits": {}},
              {"seq": 1, "t": "2026-01-01T00:00:02Z", "kind": "api_retry", "call": 0, "status": 529,
               "error": "overloaded", "attempt": 1, "wait_s": 0.5},
              {"seq": 2, "t": "2026-01-01T00:00:04Z", "kind": "proposal", "id": "p-1", "workflow": "w.yaml",
               "state": "S_investigate", "valid": False, "problems": 2, "reason": "a state is missing"}]
    log = LogRead(Path("/x/events.jsonl"), events)
    session = Session("x", Path("/x"), None, log, None, None, False)
    marks = {m["kind"]: m for m in documents._markers(session)}
    assert marks["api_retry"]["label"] == "API retry: HTTP 529 overloaded" and marks["api_retry"]["s"] == 2.0
    assert marks["proposal"]["label"] == "proposed workflow change p-1 (2 problem(s)): a state is missing"
    assert marks["proposal"]["seq"] == 2
