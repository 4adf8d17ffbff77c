"""One copy of a CLI's transcript per session, whichever CLI wrote it.

A CLI writes its transcript inside the session's HOME (Claude Code: ``home/.claude/projects/<cwd>/
<session id>.jsonl``; Codex CLI: ``home/.codex/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl``).
Once a call's CLI has exited, the runtime adapter moves that file to the session folder as
``transcript.jsonl`` and leaves a relative symbolic link in its place, so the session stores the
transcript once (an FSM session's is tens of MB) and a resumed call still finds it where the CLI
looks: it appends through the link. Should the CLI replace the linked file by a new regular file
instead, the next move replaces ``transcript.jsonl`` with it. A move within one folder tree keeps
the file's inode, so a CLI still holding the file open would go on writing into
``transcript.jsonl``.
"""

from __future__ import annotations

import os
from pathlib import Path

from study.session_io.folders import TRANSCRIPT_NAME


def keep_one(session_dir: Path, source: Path | None) -> Path | None:
    """Move the CLI's transcript ``source`` to ``session_dir/transcript.jsonl`` and link it back
    (see the module docstring); the kept path, or None when the CLI wrote none."""
    if source is None:
        return None
    kept = Path(session_dir) / TRANSCRIPT_NAME
    if source.is_symlink():      # moved before; the CLI appended through the link
        return kept if kept.exists() else None
    os.replace(source, kept)
    source.symlink_to(os.path.relpath(kept, source.parent))
    return kept
