"""A staged run's units done and left, counted right where the log's counts come from: the
workspace family's ``Work`` (issue 49, item 9).

Before, a run's units were done only when their context ended: the stop that ends the month-end
close's last period (logged before its context ends) said ``accounts_left: 1`` after the period had
closed, and the viewer repeated it; an AutoResearch run complete after 8 of its 10 contexts marked
the 2 it never used done too, so it logged ``decisions: 10`` over 8 ``context_end`` events (the live
display said ``8/10``, then ``study run``'s last line ``10/10``, and the audit found the two at odds).
Now a month-end period is done once its close passes the last step's check (the workflow's last
guard), and a complete AutoResearch run has nothing left but counts only the contexts it used. The
stop gate is still asked in every context of a run, whatever is left (the workflow keeps each
context's work), as before.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest

from study.families.workspace.family import WorkspaceWork
from study.families.workspace.month_end_close.sim import CloseOracle
from study.families.workspace.sim.executor import Executor


def test_the_last_periods_close_leaves_no_period_before_its_context_ends(tmp_path):
    work = WorkspaceWork("month-end-close", tmp_path / "run", seed=2, uses_fsm=False, turns=40, contexts=6, size=2)
    executor = Executor(work.workspace, workflow=None, frames=tmp_path / "frames", frame_per_context=True, turn_cap=40)
    assert (work.accounts_left, len(work.decisions)) == (2, 0)
    executor.run_context(CloseOracle(), work.first_message(None))     # period 1 closed, its context still open
    assert (work.accounts_left, list(work.decisions)) == (1, ["2025-01"])
    work.end_context("ended_with_accounts_left", lambda *a, **k: None)
    executor.run_context(CloseOracle(), work.next_context())          # the last period closed
    assert (work.accounts_left, list(work.decisions)) == (0, ["2025-01", "2025-02"])
    work.end_context("completed", lambda *a, **k: None)
    assert (work.accounts_left, work.decisions) == (0, {"2025-01": "ended_with_accounts_left", "2025-02": "completed"})


def test_a_period_not_closed_is_left_until_its_context_ends(tmp_path):
    work = WorkspaceWork("month-end-close", tmp_path / "run", seed=2, uses_fsm=False, turns=40, contexts=6, size=2)
    close = work.workspace / "periods" / "2025-01" / "close"
    (close / "report.json").write_text(json.dumps({"revenue": 1}))   # written, but no close the check passes
    (close / "closing_balances.json").write_text("{}")
    assert (work.accounts_left, work.decisions) == (2, {})
    work.end_context("limit:turns", lambda *a, **k: None)            # its context over: done, closed or not
    assert (work.accounts_left, work.decisions) == (1, {"2025-01": "limit:turns"})


def test_a_close_the_check_cannot_read_is_not_closed_and_never_stops_the_runner(tmp_path):
    """The check reads the agent's files in the runner's process: files it cannot read (not UTF-8,
    JSON nested deeper than Python parses) leave the period not closed, as the guard's check that
    fails on them, instead of an exception in the runner's hooks."""
    from study.families.workspace.month_end_close.check_step import REPORT_FIELDS

    work = WorkspaceWork("month-end-close", tmp_path / "run", seed=2, uses_fsm=False, turns=40, contexts=6, size=2)
    close = work.workspace / "periods" / "2025-01" / "close"
    (close / "report.json").write_text(json.dumps(dict.fromkeys(REPORT_FIELDS, 1.0)))
    (close / "closing_balances.json").write_text("{}")
    (close / "05_trial_balance.csv").write_bytes(b"\xff\xfeaccount,debit,credit\n")
    assert (work.accounts_left, work.decisions) == (2, {})
    (close / "report.json").write_text("[" * 100_000 + "]" * 100_000)
    assert (work.accounts_left, work.decisions) == (2, {})


def test_a_complete_autoresearch_run_counts_the_contexts_it_used_and_leaves_none(tmp_path):
    if importlib.util.find_spec("sklearn") is None:
        pytest.skip("scikit-learn is not installed: pip install --require-hashes -r requirements-staged.lock")
    work = WorkspaceWork("autoresearch", tmp_path / "run", seed=1, uses_fsm=False, turns=60, contexts=10, size=1)
    for _ in range(7):
        work.end_context("ended_with_accounts_left", lambda *a, **k: None)
        work.next_context()
    assert (work.accounts_left, len(work.decisions)) == (3, 7)
    with open(work.run.ledger, "a", encoding="utf-8") as ledger:   # the eighth context records the last trial
        ledger.writelines(f"{k}\tstage\taxis\tchange\t0.9\tkeep\tabc1234\n" for k in range(1, work.plan.total + 1))
    assert (work.accounts_left, len(work.decisions), work.contexts_after()) == (0, 7, 0)
    work.end_context("completed", lambda *a, **k: None)
    assert (work.accounts_left, list(work.decisions)) == (0, [f"context {k}" for k in range(1, 9)])


class _LastUnitDone:
    """A session's work in a run of fresh contexts whose last unit is done while its context runs."""

    accounts_left = 0

    def __init__(self, work):
        self._work = work

    def __getattr__(self, name):
        return getattr(self._work, name)

    def contexts_after(self):
        return 0


def test_the_stop_gate_is_asked_in_a_context_whatever_is_left_of_the_run(tmp_path):
    from study.families import as_work
    from study.runner.bridge import SessionBridge
    from study.runner.texts import reminder_text
    from study.session_io.writer import EventLog

    from ...runner.test_bridge import Rig

    rig = Rig(tmp_path)       # the FSM condition, its workflow in S_investigate: the turn may not end yet
    work = _LastUnitDone(as_work(rig.box, reminder_text()))
    with EventLog(tmp_path / "run.jsonl") as log:
        bridge = SessionBridge(log, work, rig.condition, fsm=rig.fsm, reminder=reminder_text())
        out = asyncio.run(bridge.on_stop({"hook_event_name": "Stop", "stop_hook_active": False}, None, None))
    assert out.get("decision") == "block", out
    [stop] = [json.loads(line) for line in (tmp_path / "run.jsonl").read_text().splitlines() if '"stop"' in line]
    assert (stop["outcome"], stop["accounts_left"]) == ("blocked", 0)
