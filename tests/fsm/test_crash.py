"""A runtime killed with SIGKILL in the middle of its commits always leaves a loadable frame.

Each round starts a child process that reopens the same frames folder, carries on from what is
there, and commits as fast as it can (tool calls and transitions, fsync on), reporting each
commit on stdout once ``transition`` has returned. The parent waits for a random number (1-3) of
new commits, then kills the child (after a random pause of at most 20 ms, which only varies where
in its loop the kill lands). After every kill the frame must load, be a valid state of the
workflow, hold every commit the child reported (a returned commit is durable) and never have lost
anything an earlier round saw. The test waits on the child's reports, never on a time window; a
child that stops reporting fails the test with its stderr.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

from fsm_helpers import MAIN, REPO
from study.fsm import FsmRuntime, Workflow

CHILD = r"""
import sys
from pathlib import Path
from study.fsm import FsmRuntime, Workflow
from sopbench_tools.tool_definitions import DATA_TOOLS

wf = Workflow.load(sys.argv[1])
rt = FsmRuntime(Path(sys.argv[2]), {wf.name: wf}, {"batch": [f"A{i}" for i in range(2000)]})
rt.enter(wf.name)
n = len(rt.frames()[-1]["history"])
print("ready", flush=True)


def commit(target):
    result = rt.transition(target, rt.self_check(target)["token"])
    if not result.ok:
        sys.exit(f"transition to {target} refused: {result.reason}")
    print("commit", rt.frames()[-1]["commits"], flush=True)


while True:
    n += 1
    account = f"A{n}"
    if rt.state == "S_decide":
        rt.observe("submit_decision", {"account_id": rt.frames()[-1]["variables"]["account"]}, True)
        commit("S_investigate")
        continue
    for tool in DATA_TOOLS:
        rt.observe(tool, {"account_id": account}, True)
    rt.observe("record_analysis", {"account_id": account}, True)
    commit("S_decide")
"""

ROUNDS = 20
#: Only bounds a child that hangs or stops committing; the test never waits for it otherwise.
EVENT_TIMEOUT_S = 120


class _Child:
    """The child process and its stdout lines, read by a thread into a queue (None at EOF)."""

    def __init__(self, frames) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(MAIN), str(frames)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def next_line(self, waiting_for: str) -> str:
        try:
            line = self.lines.get(timeout=EVENT_TIMEOUT_S)
        except queue.Empty:
            self.kill()
            pytest.fail(f"the child reported no {waiting_for} within {EVENT_TIMEOUT_S} s; stderr:\n{self.proc.stderr.read()}")
        if line is None:
            self.proc.wait()
            pytest.fail(f"the child exited (code {self.proc.returncode}) before reporting {waiting_for}; "
                        f"stderr:\n{self.proc.stderr.read()}")
        return line

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def test_sigkill_during_commits_never_leaves_a_torn_frame(tmp_path):
    wf = Workflow.load(MAIN)
    frames = tmp_path / "frames"
    rng = random.Random(7)
    seen_length = 0
    seen_commits = 0
    for _ in range(ROUNDS):
        child = _Child(frames)
        assert child.next_line("ready") == "ready"
        reported = seen_commits
        for _ in range(rng.randint(1, 3)):
            line = child.next_line("a commit")
            assert line.startswith("commit "), line
            reported = int(line.split()[1])
        time.sleep(rng.uniform(0, 0.02))
        child.kill()
        assert child.proc.returncode == -signal.SIGKILL

        rt = FsmRuntime(frames, {wf.name: wf}, {"batch": []})  # must load
        frame = rt.frames()[-1]
        assert frame["state"] in ("S_investigate", "S_decide")
        assert frame["commits"] >= reported > seen_commits, "a commit the child reported is missing after the kill"
        assert len(frame["history"]) >= seen_length
        seen_length, seen_commits = len(frame["history"]), frame["commits"]
    assert seen_commits >= ROUNDS
