"""Shared by the simulator benchmarks: run one simulated session and read its log.

Benchmark sessions are exploratory (``--accounts`` and no manifest check) and go to a temporary
folder; the spending cap is lifted because simulated costs are not real (they only exercise the
CLI's accounting).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from datetime import datetime
from pathlib import Path

from study.runner.session import SessionSpec, run_session
from study.session_io.meta import read_meta
from study.session_io.reader import read_log


def run(policy: str, condition: str, seed: int, accounts: int | None, runtime: str | None = None,
        **sim_options) -> tuple[Path, float]:
    """Run one session (on ``runtime``: Claude Code by default); return its folder and its wall time in seconds."""
    out = Path(tempfile.mkdtemp(prefix="bench-sim-"))
    start = time.perf_counter()
    session_dir = run_session(SessionSpec(model=f"sim:{policy}", condition=condition, seed=seed, accounts=accounts,
                                          out_root=out, limit_overrides={"spending_usd": 1e6}, sim_options=sim_options,
                                          runtime=runtime))
    elapsed = time.perf_counter() - start
    status = read_meta(session_dir, strict=True).status
    if status != "completed":
        raise SystemExit(f"{policy} {condition} seed {seed}: the session ended with {status}; see {session_dir}")
    return session_dir, elapsed


def run_logging_requests(policy: str, condition: str, seed: int, accounts: int | None,
                         runtime: str | None = None) -> tuple[Path, float, list[dict]]:
    """Run one session with the simulator's request log; return its folder, its wall time and the bodies
    of its main-loop requests (those sending tool definitions). The log is removed once read: a
    200-account session's request log holds every prompt, hundreds of MB."""
    log = Path(tempfile.mkdtemp(prefix="bench-requests-")) / "requests.jsonl"
    session_dir, elapsed = run(policy, condition, seed, accounts, runtime, request_log=log)
    bodies = [json.loads(line)["body"] for line in log.read_text().splitlines()]
    shutil.rmtree(log.parent)
    return session_dir, elapsed, [b for b in bodies if b.get("tools")]


def events(session_dir: Path) -> list[dict]:
    return read_log(session_dir / "events.jsonl").events


def seconds(t: str) -> float:
    return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
