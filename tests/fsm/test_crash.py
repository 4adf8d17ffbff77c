"""A runtime killed with SIGKILL in the middle of its commits always leaves a loadable frame.

Each round starts a child process that reopens the same frames folder, carries on from what is
there, and commits as fast as it can (tool calls and transitions, fsync on); the parent kills it
at a random moment. After every kill the frame must load, be a valid state of the workflow, and
never have lost a commit that an earlier round already saw.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

from fsm_helpers import MAIN, REPO
from study.fsm import FsmRuntime, Workflow

CHILD = r"""
import sys
from pathlib import Path
from study.fsm import FsmRuntime, Workflow
from sopbench_tools.toolbox import DATA_TOOLS

wf = Workflow.load(sys.argv[1])
rt = FsmRuntime(Path(sys.argv[2]), {wf.name: wf}, {"batch": [f"A{i}" for i in range(2000)]})
rt.enter(wf.name)
n = len(rt.frames()[-1]["history"])
print("ready", flush=True)
while True:
    n += 1
    account = f"A{n}"
    if rt.state == "S_decide":
        rt.observe("submit_decision", {"account_id": rt.frames()[-1]["variables"]["account"]}, True)
        rt.transition("S_investigate", rt.self_check("S_investigate")["token"])
        continue
    for tool in DATA_TOOLS:
        rt.observe(tool, {"account_id": account}, True)
    rt.observe("record_analysis", {"account_id": account}, True)
    rt.transition("S_decide", rt.self_check("S_decide")["token"])
"""


def test_sigkill_during_commits_never_leaves_a_torn_frame(tmp_path):
    wf = Workflow.load(MAIN)
    frames = tmp_path / "frames"
    rng = random.Random(7)
    seen_length = 0
    seen_commits = 0
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for _ in range(20):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(MAIN), str(frames)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        time.sleep(rng.uniform(0.01, 0.2))
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert child.returncode == -signal.SIGKILL

        rt = FsmRuntime(frames, {wf.name: wf}, {"batch": []})  # must load
        frame = rt.frames()[-1]
        assert frame["state"] in ("S_investigate", "S_decide")
        assert len(frame["history"]) >= seen_length and frame["commits"] >= seen_commits
        seen_length, seen_commits = len(frame["history"]), frame["commits"]
    assert seen_commits >= 10, "the children should have committed transitions between the kills"
