"""Which session a viewer request may read: only session folders inside the sessions folder.

A session is named by its path relative to the sessions folder (``exploratory/sim-x/FSM/seed-2``).
``session_dir`` resolves the name (symlinks included) and refuses anything that lands outside the
sessions folder or is not a session folder (``study.session_io.folders``: it holds events.jsonl
or meta.json), so neither the server nor the bundle writer can be made to read another file.
"""

from __future__ import annotations

import re
from pathlib import Path

from study.session_io.folders import find_sessions, holds_session

#: Longer names are refused unread (a path below the sessions folder is far shorter); at most
#: ``NAME_SHOWN`` characters of a refused name are repeated in the refusal.
NAME_CAP, NAME_SHOWN = 4096, 200


class Refused(ValueError):
    """A name that is not a session folder inside the sessions folder."""


def session_dir(root: Path, name: str) -> Path:
    """The folder of session ``name`` under ``root``; ``Refused`` for anything else."""
    if not name or "\x00" in name or name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        raise Refused(f"{name!r} is not a session of this sessions folder")
    shown = name if len(name) <= NAME_SHOWN else name[:NAME_SHOWN] + "…"
    if len(name) > NAME_CAP:
        raise Refused(f"{shown!r} is not a session of this sessions folder (a name of {len(name):,} characters)")
    base = Path(root).resolve()
    try:
        target = (base / name).resolve()
        if target != base and base not in target.parents:
            raise Refused(f"{shown!r} is outside the sessions folder; only sessions inside {base} are shown")
        if not holds_session(target):
            raise Refused(f"{shown!r} is not a session folder (no events.jsonl or meta.json)")
    except OSError as exc:          # a name too long for the file system, a loop of links
        raise Refused(f"{shown!r} is not a session of this sessions folder ({exc.strerror})") from None
    return target


def session_names(root: Path) -> list[str]:
    """Every session under ``root`` by its name (its path relative to ``root``, with ``/``)."""
    root = Path(root)
    return [p.relative_to(root).as_posix() or "." for p in find_sessions(root)]


def file_key(name: str) -> str:
    """A file-system-safe spelling of a name (a session, an account), the same in app.js's
    ``fileKey``: every character outside ``A-Za-z0-9_.-`` becomes ``~`` and 4 hex digits."""
    if set(name) <= {"."}:          # "." and ".." are no file names
        return "".join(f"~{ord(c):04x}" for c in name)
    return re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"~{ord(m.group()):04x}", name)
