"""A session stopped by a signal after its last account was decided is ``completed`` (issue 24,
"exact words"; the voiding rule of preregistration/plan.md section 7): at real prices a
200-account session interrupted at its last turn was voided and rerun from scratch. Before the
last decision a signal still voids it. Real CLI against a scripted model; the signal is sent to
this process (the runner) once the log shows the decision."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from study.session_io.meta import read_meta
from study.session_io.reader import log_events, read_log, read_session

pytestmark = pytest.mark.e2e


def _signal_once(events: Path, decisions: int) -> threading.Thread:
    """SIGTERM to this process once ``events`` holds ``decisions`` successful decisions."""
    def watch() -> None:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if events.exists() and sum(e["kind"] == "tool_call" and e["tool"] == "submit_decision" and e["ok"]
                                       for e in log_events(events)) >= decisions:
                time.sleep(0.3)   # the model is now "thinking" (the sleep step)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.02)
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def _folder(kit, accounts: int) -> Path:
    from study.runner.session import SessionSpec, prepare

    return prepare(SessionSpec(condition="Plain", seed=2, accounts=accounts, model="haiku-4.5",
                               base_url="http://127.0.0.1:9", out_root=kit.out_root)).session_dir


def test_a_signal_after_the_last_decision_completes_the_session(kit):
    first, second = kit.batch(2, 2)
    _signal_once(_folder(kit, 2) / "events.jsonl", 2)
    ran = kit.run("Plain", kit.full_account(first) + kit.full_account(second) + [("sleep", 60)], accounts=2)
    assert (ran.status, ran.meta["voided"], ran.meta["decisions"]) == ("completed", False, 2)
    end = ran.events[-1]
    assert end["status"] == "completed" and end["interrupted_after_last_decision"] == "SIGTERM to the runner"
    assert end["cost_complete"] is False and end["cost_usd"] > 0   # the cost streamed up to the signal
    # its records pass the strict reading (the log's rules against its meta.json) ...
    assert read_log(ran.dir / "events.jsonl", strict=True, meta=read_meta(ran.dir, strict=True)).valid
    # ... and the only thing a table would hold against it is that this "haiku-4.5" was the test's
    # scripted server: the simulator's ids witness it (rule simulated), as they must
    session = read_session(ran.dir, strict=False)
    assert [i.rule for i in session.issues] == ["simulated"], session.issues


def test_a_signal_before_the_last_decision_still_voids_it(kit):
    first, second = kit.batch(2, 2)
    _signal_once(_folder(kit, 2) / "events.jsonl", 1)
    ran = kit.run("Plain", kit.full_account(first) + [("sleep", 60)] + kit.full_account(second), accounts=2)
    assert (ran.status, ran.meta["voided"], ran.meta["void_kind"]) == ("interrupted", True, "interrupted")
    assert "interrupted_after_last_decision" not in ran.events[-1]
