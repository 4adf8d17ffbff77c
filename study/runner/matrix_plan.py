"""The matrix a ``study run-all`` was asked for, recorded in the sessions folder, so that
``study status`` shows the whole matrix, sessions not started yet included, also when N shard
processes on N machines (``--shard K/N``, docs/cluster.md) share the folder and each runs a part.

Every ``run-all`` writes ``<sessions>/.matrix/plan-<hash>.json``: the folders of all the
matrix's sessions relative to the sessions folder, sorted, and the hash of that list names the
file, so the N shards of one matrix write one file with the same bytes (written to a temporary
file and renamed: whichever shard renames last, the content is the same). Nothing else reads it;
it is not a session (no events.jsonl or meta.json) and the analysis never looks at it. Delete a
plan file to stop status listing a matrix that will not be run.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

PLAN_FOLDER = ".matrix"


def _relative(folder: Path, root: Path) -> str:
    try:
        return Path(folder).relative_to(root).as_posix()
    except ValueError:
        return Path(folder).resolve().relative_to(Path(root).resolve()).as_posix()


def write_plan(root: Path, session_dirs: list[Path]) -> Path:
    """Record the matrix (its sessions' folders below ``root``); returns the plan file's path."""
    sessions = sorted({_relative(d, root) for d in session_dirs})
    body = json.dumps({"sessions": sessions}, indent=1) + "\n"
    path = Path(root) / PLAN_FOLDER / f"plan-{hashlib.sha256(body.encode()).hexdigest()[:12]}.json"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(body, encoding="utf-8")
        os.replace(temporary, path)
    return path


def planned(root: Path) -> dict[str, str]:
    """Every planned session folder (relative to ``root``) -> the plan file naming it first.
    Unreadable or malformed plan files are passed over."""
    found: dict[str, str] = {}
    folder = Path(root) / PLAN_FOLDER
    for path in sorted(folder.glob("plan-*.json")) if folder.is_dir() else ():
        try:
            sessions = json.loads(path.read_text(encoding="utf-8")).get("sessions")
        except (OSError, ValueError, AttributeError):
            continue
        for rel in sessions if isinstance(sessions, list) else ():
            if isinstance(rel, str):
                found.setdefault(rel, _relative(path, root))
    return found


def not_started(root: Path, present: list[str]) -> dict[str, str]:
    """The planned sessions with no folder among ``present`` (paths relative to ``root``)."""
    have = set(present)
    return {rel: plan for rel, plan in planned(root).items() if rel not in have}
