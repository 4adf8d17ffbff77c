"""Interrupting a runner (issue 10, finding 6), with the real CLI against the simulator.

A runner process runs one session; the test waits for events in the session's log (never for a
time window), then signals the runner:

- SIGINT, SIGTERM, SIGHUP (a closed terminal), SIGQUIT: each is caught by the runner's guard
  (``study.runner.interrupt.Interruption``, one handler for the four) and named; then, end to end
  for SIGTERM and SIGINT to the runner alone and SIGTERM and SIGHUP to its process group (the path
  after the handler is the same for every signal): the CLI is stopped first
  (gone before the runner exits), then ``session_end`` with status ``interrupted`` and the cost
  priced so far, a final voided meta.json (void kind ``interrupted``), a log the validator
  accepts; ``--rerun-voided`` reruns such a session;
- SIGKILL of the runner alone: the CLI dies with it (the launcher's PR_SET_PDEATHSIG); ``study
  status`` shows the session unfinished with the cost streamed so far (its ``usage`` events);
  the next runner takes over the dead runner's claim.

The crash-safety test kills runners at several moments of a session (after the n-th event of a
kind) and checks the log validates up to its last complete line and the FSM frame loads.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from study.fsm import FsmRuntime, Workflow
from study.paths import prereg_dir
from study.runner.claim import CLAIM_NAME, claim_session
from study.protocol.conditions import load_conditions
from study.runtimes.launcher import group_members, proc_stat, process_alive
from study.runner.matrix import plan_matrix
from study.runtimes.claude_code.sdk import bundled_cli_path
from study.runner.session import SessionSpec, prepare
from study.runner.status import scan
from study.session_io.meta import is_rerunnable
from study.session_io.reader import log_events, read_log, read_session

pytestmark = pytest.mark.e2e

#: Only bounds a runner that hangs; the tests wait on events in the log, never on a time window.
EVENT_TIMEOUT_S = 180

RUNNER = """
import sys
from datetime import datetime, timezone
from pathlib import Path
from study.runner.session import SessionSpec, run_session
run_session(SessionSpec(condition=sys.argv[2], seed=2, model="sim:oracle", accounts=int(sys.argv[3]),
                        out_root=Path(sys.argv[1])))
"""


def _spec(root: Path, condition: str, accounts: int) -> SessionSpec:
    return SessionSpec(condition=condition, seed=2, model="sim:oracle", accounts=accounts, out_root=root)


class Runner:
    """A runner process (in its own process group, as a shell job would be) and its session."""

    def __init__(self, root: Path, condition: str = "Plain", accounts: int = 20):
        self.dir = prepare(_spec(root, condition, accounts)).session_dir
        self.proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(root), condition, str(accounts)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)

    def events(self) -> list[dict]:
        path = self.dir / "events.jsonl"
        return log_events(path) if path.exists() else []

    def wait_for(self, kind: str, n: int = 1) -> list[dict]:
        """Wait until the log holds ``n`` events of ``kind`` (fails with the runner's stderr)."""
        deadline = time.monotonic() + EVENT_TIMEOUT_S
        while True:
            events = self.events()
            if sum(e["kind"] == kind for e in events) >= n:
                return events
            if self.proc.poll() is not None:
                pytest.fail(f"the runner exited ({self.proc.returncode}) before {n} {kind} event(s); "
                            f"stderr:\n{self.proc.stderr.read()[-3000:]}")
            if time.monotonic() > deadline:
                self.proc.kill()
                pytest.fail(f"no {n} {kind} event(s) within {EVENT_TIMEOUT_S} s; stderr:\n{self.proc.stderr.read()[-3000:]}")
            time.sleep(0.02)

    def cli_pids(self) -> list[int]:
        """The runner's CLI processes (the launcher exec'd the bundled CLI: same pid)."""
        cli = str(bundled_cli_path())
        found = []
        for pid in _children(self.proc.pid):
            try:
                if os.readlink(f"/proc/{pid}/exe") == cli:
                    found.append(pid)
            except OSError:
                continue
        return found


def _children(pid: int) -> list[int]:
    return [int(e.name) for e in os.scandir("/proc")
            if e.name.isdigit() and (stat := proc_stat(int(e.name))) is not None and int(stat[1]) == pid]


def _gone_after(pids: list[int], started: float, timeout_s: float = 30.0) -> float:
    """Seconds from ``started`` until none of ``pids`` (nor their process groups) is alive."""
    deadline = time.monotonic() + timeout_s
    while any(process_alive(p) for p in pids) or any(group_members(p) for p in pids):
        assert time.monotonic() < deadline, f"CLI process(es) {pids} still alive {timeout_s} s after the signal"
        time.sleep(0.005)
    return time.monotonic() - started


def _running_cli(runner: Runner) -> list[int]:
    runner.wait_for("usage", 2)
    runner.wait_for("tool_call", 3)
    pids = runner.cli_pids()
    assert pids, "no CLI process found under the runner"
    assert all(os.getpgid(p) == p for p in pids), "the CLI leads its own process group"
    return pids


GUARD = """
import json, os, signal, time
from study.runner.interrupt import SIGNALS, Interruption
seen = []
for sig in SIGNALS:
    before = signal.getsignal(sig)
    with Interruption() as guard:
        os.kill(os.getpid(), sig)
        deadline = time.monotonic() + 60
        while guard.signal is None and time.monotonic() < deadline:
            time.sleep(0.001)
        seen.append([sig.name, guard.signal, guard.reason])
    seen[-1].append(signal.getsignal(sig) is before)
print(json.dumps(seen))
"""


def test_the_runners_guard_catches_and_names_each_signal_and_restores_the_handlers():
    """The guard a runner (and run-all) holds around a session catches SIGINT, SIGTERM, SIGHUP and
    SIGQUIT, each by name, instead of dying of it; the earlier handlers are back after it. In a
    process of its own (the signals go to that process, never to the test's)."""
    done = subprocess.run([sys.executable, "-c", GUARD], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == [[name, name, f"{name} to the runner", True]
                                       for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")]


#: End to end: SIGTERM and SIGINT to the runner alone, SIGTERM and SIGHUP (a closed terminal) to its
#: process group. SIGHUP and SIGQUIT to the runner alone take the same path after the guard's handler,
#: which the test above shows catches them.
@pytest.mark.parametrize("sig,to_group", [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGTERM, True),
                                          (signal.SIGHUP, True)],
                         ids=["SIGTERM", "SIGINT", "SIGTERM-to-group", "SIGHUP-to-group"])
def test_a_signal_ends_the_session_properly_and_stops_the_cli_first(tmp_path, sig, to_group):
    runner = Runner(tmp_path)
    pids = _running_cli(runner)
    started, signalled_at = time.monotonic(), datetime.now(timezone.utc)
    if to_group:
        os.killpg(runner.proc.pid, sig)
    else:
        runner.proc.send_signal(sig)
    cli_gone_s = _gone_after(pids, started)
    runner.proc.wait(timeout=EVENT_TIMEOUT_S)
    runner_s = time.monotonic() - started
    end_s = (datetime.fromisoformat(runner.events()[-1]["t"].replace("Z", "+00:00")) - signalled_at).total_seconds()
    print(f"{sig.name}{' to the group' if to_group else ''}: CLI gone after {cli_gone_s:.3f} s, session_end "
          f"written after {end_s:.3f} s, runner exited after {runner_s:.3f} s")
    assert runner.proc.returncode == 0, runner.proc.stderr.read()[-3000:]

    session = read_session(runner.dir, strict=False)
    assert session.valid, [str(i) for i in session.issues]
    end = session.log.end
    assert end["status"] == "interrupted" and sig.name in end["error"]
    usage = [e for e in session.log.events if e["kind"] == "usage"]
    assert end["cost_usd"] >= usage[-1]["session_cost_usd"] > 0 and end["cost_complete"] is False
    assert end["cli_stop_s"] < 5
    meta = json.loads((runner.dir / "meta.json").read_text())
    assert (meta["status"], meta["voided"], meta["void_kind"]) == ("interrupted", True, "interrupted")
    assert meta["ended"] and meta["cost_usd"] == end["cost_usd"]
    assert not (runner.dir / CLAIM_NAME).exists()
    assert is_rerunnable(meta["status"])
    (planned,) = plan_matrix([_spec(tmp_path, "Plain", 20)], rerun_voided=True)
    assert planned.action == "rerun"


def test_sigkill_of_the_runner_takes_the_cli_with_it_and_status_shows_the_streamed_cost(tmp_path):
    runner = Runner(tmp_path)
    pids = _running_cli(runner)
    started = time.monotonic()
    runner.proc.send_signal(signal.SIGKILL)
    cli_gone_s = _gone_after(pids, started)
    runner.proc.wait()
    print(f"SIGKILL of the runner: CLI gone after {cli_gone_s:.3f} s")

    (row,) = scan(tmp_path)
    last_usage = [e for e in runner.events() if e["kind"] == "usage"][-1]
    assert row.status == "unfinished" and row.cost_usd == last_usage["session_cost_usd"] > 0
    log = read_log(runner.dir / "events.jsonl", strict=False)
    assert log.valid and log.end is None, [str(i) for i in log.issues]
    assert (runner.dir / CLAIM_NAME).exists()      # the dead runner's claim is left behind ...
    with claim_session(runner.dir):                # ... and is stale: the next runner takes it over
        pass


_rng = random.Random(10)
#: Kill moments: after the n-th event of a kind (drawn with a fixed seed), plus a pause of at most
#: 20 ms that only varies where in the runner's work the kill lands.
MOMENTS = [("session_start", 1, 0.0)] + [
    (kind, _rng.randint(1, limit), round(_rng.uniform(0, 0.02), 4))
    for kind, limit in _rng.sample([("tool_call", 30), ("usage", 20), ("transition", 8), ("stop", 1),
                                    ("tool_call", 10)], 4)
]


@pytest.mark.parametrize("kind,n,pause", MOMENTS)
def test_a_runner_killed_at_any_moment_leaves_a_valid_log_and_a_loadable_frame(tmp_path, kind, n, pause):
    runner = Runner(tmp_path, condition="FSM", accounts=5)
    runner.wait_for(kind, n)
    time.sleep(pause)
    runner.proc.send_signal(signal.SIGKILL)
    runner.proc.wait()
    log = read_log(runner.dir / "events.jsonl", strict=False)
    assert log.valid, [str(i) for i in log.issues]       # a torn last line is a warning, nothing else
    condition = load_conditions().get("FSM")
    workflow = Workflow.load(prereg_dir() / "workflows" / condition.workflow)
    frames = FsmRuntime(runner.dir / "fsm", {workflow.name: workflow}, {"batch": log.start["order"]}).frames()
    if frames:
        assert frames[-1]["state"] in workflow.states
