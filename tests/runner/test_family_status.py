"""``study status`` on the other task families' sessions: a τ²-bench conversation decides nothing
and says its reward (or that it was not judged), a workspace run says its contexts used (its units,
in its protocol's words) and its protocol's verdict; while they run, where they are. Logs written with the log's own
writer; the status cache keeps these facts like every other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.runner.progress import LogProgress
from study.runner.status import family_progress, format_table, scan
from study.runner.status_cache import StatusCache
from study.session_io.writer import EventLog

from ..view.family_sessions import RESEARCH, write_research_run

#: The logs here are written by hand, without the evidence a real session keeps: each outcome is
#: taken as written (tests/verdict_helpers.py); the rule itself: tests/session_io/test_verdicts.py.
pytestmark = pytest.mark.usefixtures("outcomes_as_written")

TAU2 = "tau2-telecom/exploratory/sim-oracle/FSM/task-07"


def write_tau2(root: Path, *, judged: bool) -> Path:
    folder = root / TAU2
    with EventLog(folder / "events.jsonl") as log:
        log.emit_fields("session_start", dict(
            schema=3, condition="FSM", seed=7, model="sim:oracle", simulated=True, manifest_sha256="unchecked",
            code_version="test", cli_version="none", order=["task-07"], limits={}, exploratory=True,
            runtime="claude-code", family="tau2", study="tau2-telecom", domain="telecom"))
        log.emit("customer_message", text="No service.")
        log.emit("conversation_end", reason="user_stop")
        log.emit("outcome", family="tau2", reward=1.0 if judged else None, judged=judged, parts={"DB": 1.0},
                 reward_basis=["DB"], task_id="t7", domain="telecom", termination_reason="user_stop")
        log.emit("session_end", status="completed", cost_usd=0.0, turns=2, duration_s=1.0, decisions=1, accounts_left=0)
    return folder


def test_status_says_each_familys_verdict_and_what_a_run_began(tmp_path):
    root = tmp_path / "sessions"
    write_research_run(root)
    write_tau2(root, judged=False)
    rows = {r.path: r for r in scan(root)}
    research, tau2 = rows[RESEARCH], rows[TAU2]
    assert (research.family, research.study, research.task, research.contexts, research.outcome) == (
        "workspace", "autoresearch", "autoresearch", 2, "1/8 rows valid, not complete")
    assert (tau2.family, tau2.task, tau2.outcome, tau2.contexts) == ("tau2", "tau2-telecom", "not judged", None)
    table = format_table(list(rows.values())).splitlines()
    assert table[0].split() == ["session", "task", "status", "done", "outcome", "cost", "$", "time", "size", "notes"]
    line = next(x for x in table if x.startswith(RESEARCH))
    assert "2/2 contexts used" in line and "1/8 rows valid, not complete" in line
    line = next(x for x in table if x.startswith(TAU2))
    assert " - " in line and "not judged" in line and "1/1" not in line
    done = CliRunner().invoke(main, ["status", "--sessions", str(root), "--json"])
    assert done.exit_code == 0, done.output
    found = {json.loads(x)["path"]: json.loads(x) for x in done.output.splitlines()}
    assert (found[TAU2]["outcome"], found[TAU2]["family"], found[TAU2]["study"]) == ("not judged", "tau2", "tau2-telecom")


def test_the_status_cache_keeps_a_family_sessions_verdict(tmp_path):
    root = tmp_path / "sessions"
    write_tau2(root, judged=True)
    cache = StatusCache(root.resolve(), folder=tmp_path / "cache")
    first = scan(root, cache=cache)
    again = scan(root, cache=StatusCache(root.resolve(), folder=tmp_path / "cache"))
    assert [r.outcome for r in first] == [r.outcome for r in again] == ["reward 1"]


def test_a_running_family_session_says_where_it_is(tmp_path):
    progress = LogProgress(tmp_path)
    assert family_progress("workspace", progress) == "starting"
    for event in ({"kind": "context_start", "n": 1, "unit": "2025-01"}, {"kind": "context_start", "n": 2, "unit": "2025-02"}):
        progress.feed(event)
    assert family_progress("workspace", progress) == "context 2 (2025-02)"
    progress.feed({"kind": "context_start", "n": 3, "unit": "context 3"})
    assert family_progress("workspace", progress) == "context 3"
    talk = LogProgress(tmp_path)
    for event in ({"kind": "customer_message", "text": "hi"}, {"kind": "customer_message", "text": "it works"}):
        talk.feed(event)
    assert family_progress("tau2", talk) == "talking: 2 customer messages"
    talk.feed({"kind": "conversation_end", "reason": "user_stop"})
    assert family_progress("tau2", talk) == "conversation ended (user_stop), 2 customer messages"
    talk.feed({"kind": "session_end", "status": "interrupted"})
    assert family_progress("tau2", talk) == "no outcome"
