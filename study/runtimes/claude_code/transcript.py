"""One copy of Claude Code's transcript per session.

The CLI writes its transcript to ``home/.claude/projects/<cwd>/<session id>.jsonl`` inside the
session's HOME. Once a call's CLI has exited, the runner moves that file to the session folder
as ``transcript.jsonl`` and leaves a relative symbolic link in its place, so the session stores
the transcript once (an FSM session's is tens of MB) and a resumed call (``query(resume=...)``)
still finds it where the CLI looks: it appends through the link. Should the CLI replace the
linked file by a new regular file instead, the next move replaces ``transcript.jsonl`` with it.
A move within one folder tree keeps the file's inode, so a CLI still holding the file open would
go on writing into ``transcript.jsonl``.
"""

from __future__ import annotations

import os
from pathlib import Path

from study.session_io.folders import TRANSCRIPT_NAME


def cli_transcript(home: Path, session_id: str) -> Path | None:
    """Where the CLI keeps the main transcript of ``session_id`` under ``home`` (subagents' aside)."""
    found = sorted(p for p in Path(home).rglob(f"{session_id}.jsonl") if "subagents" not in p.parts)
    return found[0] if found else None


def keep_one(session_dir: Path, home: Path, session_id: str | None) -> Path | None:
    """Move the CLI's transcript of ``session_id`` to ``session_dir/transcript.jsonl`` and link
    it back (see the module docstring); the kept path, or None when the CLI wrote none."""
    if not session_id:
        return None
    source = cli_transcript(home, session_id)
    if source is None:
        return None
    kept = Path(session_dir) / TRANSCRIPT_NAME
    if source.is_symlink():      # moved before; the CLI appended through the link
        return kept if kept.exists() else None
    os.replace(source, kept)
    source.symlink_to(os.path.relpath(kept, source.parent))
    return kept
