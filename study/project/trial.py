"""A simulated session of any task through the real CLI, in a scratch project of its own: what
``study task check`` reports as the oracle's FC and what ``benchmarks/bench_tasks.py`` runs.

The scratch project is made with ``study new --task referral_abuse_detection_v2`` and frozen
there, so the checked task's sessions are exploratory and the caller's project is never touched.
Every step is a ``study`` subprocess, as a user runs it (the CLI, the MCP server, the hooks and
the simulator are the real ones).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

#: A session that has not ended by then is counted as failed (the runner's own limits end it later).
RUN_TIMEOUT_S = 900
STUDY = [sys.executable, "-m", "study.cli"]


class ScratchError(RuntimeError):
    """The scratch project could not be made (the failing command and what it said)."""


def study(*args: str, root: Path, env: dict[str, str] | None = None, timeout: float = 3600) -> subprocess.CompletedProcess:
    """``study ARGS`` on the project at ``root`` (run from its parent: ``python -m`` from the
    project folder would import its code snapshot)."""
    env = {**(env or os.environ), "STUDY_ROOT": str(root)}
    return subprocess.run([*STUDY, *args], cwd=root.parent, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def make_scratch_project(base: Path, env: dict[str, str] | None = None) -> Path:
    """A fresh frozen project at ``base/project`` (the preregistered task's), committed."""
    project = base / "project"
    env = {k: v for k, v in (env or os.environ).items() if k != "STUDY_ROOT"}
    made = subprocess.run([*STUDY, "new", "--task", "referral_abuse_detection_v2", str(project)], cwd=base, env=env,
                          capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
    if made.returncode:
        raise ScratchError(f"study new failed: {made.stderr.strip()}")
    frozen = study("prereg", "freeze", root=project, env=env, timeout=600)
    if frozen.returncode:
        raise ScratchError(f"study prereg freeze failed: {frozen.stderr.strip()}")
    for git in (["add", "-A"], ["-c", "user.name=study", "-c", "user.email=study@localhost", "commit", "-qm", "freeze"]):
        subprocess.run(["git", "-C", str(project), *git], check=True, capture_output=True)
    return project


@dataclass
class SimRun:
    """One simulated session and its score (``fc`` None: no session was scored, see ``error``)."""

    task: str
    condition: str
    policy: str
    rc: int | None
    seconds: float
    error: list[str] = field(default_factory=list)
    folder: Path | None = None
    batch: int | None = None
    decided: int | None = None
    fc: int | None = None
    cost: float | None = None
    routes: dict | None = None
    truth: dict | None = None


def run_sim_session(project: Path, task: str, condition: str, policy: str, items: int | None, *,
                    env: dict[str, str] | None = None, seed: int = 2) -> SimRun:
    """``study run --task TASK --model sim:POLICY`` in ``project``, then ``study score --json``."""
    from study.sim.truth import route_counts

    args = ["run", "--task", task, "--condition", condition, "--seed", str(seed), "--model", f"sim:{policy}",
            "--sessions", str(project / "sessions")] + (["--accounts", str(items)] if items else [])
    started = time.monotonic()
    try:
        done = study(*args, root=project, env=env, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return SimRun(task, condition, policy, None, RUN_TIMEOUT_S, [f"no end within {RUN_TIMEOUT_S} s"])
    line = next((x for x in done.stdout.splitlines() if x.startswith("running ")), "")
    folder = Path(line.rsplit(" -> ", 1)[-1]) if " -> " in line else None
    run = SimRun(task, condition, policy, done.returncode, round(time.monotonic() - started, 1),
                 done.stderr.strip().splitlines()[-1:] if done.returncode else [], folder)
    if folder is None or not (folder / "events.jsonl").exists():
        return run
    score = study("score", "--json", str(folder), root=project, env=env)
    metrics = json.loads(score.stdout) if score.returncode == 0 else {}
    run.batch, run.decided, run.fc = metrics.get("accounts"), metrics.get("decided"), metrics.get("fc")
    run.cost, run.routes = metrics.get("cost_usd"), metrics.get("routes")
    run.truth = route_counts(folder / "sim_truth.jsonl")
    return run
