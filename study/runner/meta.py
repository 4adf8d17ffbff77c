"""The session folder layout and ``meta.json``.

``sessions/<model>/<condition>/seed-<n>/`` holds one session; exploratory sessions (a prefix of
the order via ``--accounts``, limit overrides, or no checked manifest) go under
``sessions/exploratory/…``. ``meta.json`` is written atomically when the session starts (status
``running``, with the runner's host and pid) and again when it ends, so a session whose runner
was killed is recognisable as unfinished.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

META_NAME = "meta.json"
EVENTS_NAME = "events.jsonl"
RUNNING = "running"
UNFINISHED = "unfinished"

#: meta.json fields every session has (docs/contracts.md, "Session directory").
META_FIELDS = (
    "model", "model_id", "condition", "seed", "simulated", "exploratory", "accounts", "status", "voided",
    "void_reason", "cost_usd", "turns", "duration_s", "resumes", "decisions", "manifest_sha256",
    "code_version", "cli_version", "token_reminder", "started", "ended", "session_id", "error",
)


def session_dir_for(out_root: Path, model_folder: str, condition: str, seed: int, *,
                    exploratory: bool, accounts: int | None) -> Path:
    """Where a session's files go."""
    base = Path(out_root) / "exploratory" if exploratory else Path(out_root)
    leaf = f"seed-{seed}" if accounts is None else f"seed-{seed}-first-{accounts}"
    return base / model_folder / condition / leaf


def write_meta(session_dir: Path, meta: dict[str, Any]) -> None:
    """Write meta.json atomically (a crash leaves the old or the new file, never half of one)."""
    path = Path(session_dir) / META_NAME
    tmp = path.with_name(META_NAME + ".tmp")
    tmp.write_text(json.dumps(meta, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_meta(session_dir: Path) -> dict[str, Any] | None:
    path = Path(session_dir) / META_NAME
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()[19]


def runner_identity() -> dict[str, Any]:
    """Who runs a session: host, pid and the pid's start time (recorded in meta.json)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "pid_start": _start_time(os.getpid())}


def _runner_alive(runner: dict[str, Any]) -> bool:
    pid = int(runner.get("pid", -1))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0
    recorded = runner.get("pid_start")
    return recorded is None or _start_time(pid) in (None, recorded)


def effective_status(meta: dict[str, Any] | None) -> str:
    """The status to show: meta's, except that a ``running`` session whose runner is gone (same
    host, pid not alive) is ``unfinished``. Without meta.json the session never started properly
    and is ``unfinished`` too."""
    if meta is None:
        return UNFINISHED
    status = meta.get("status", UNFINISHED)
    if status == RUNNING:
        runner = meta.get("runner") or {}
        if runner.get("host") == socket.gethostname() and not _runner_alive(runner):
            return UNFINISHED
    return status


def is_rerunnable(status: str) -> bool:
    """Sessions ``--rerun-voided`` reruns: voided ones and those left unfinished by a killed runner."""
    return status in ("infrastructure_failure", UNFINISHED)
