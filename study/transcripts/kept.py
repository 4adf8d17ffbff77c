"""One copy of a CLI's transcript per session, whichever CLI wrote it.

A CLI writes its transcript inside the session's HOME (Claude Code: ``home/.claude/projects/<cwd>/
<session id>.jsonl``; Codex CLI: ``home/.codex/sessions/YYYY/MM/DD/rollout-…-<thread id>.jsonl``).
Once a call's CLI has exited, the runtime adapter keeps it as ``transcript.jsonl`` in the session
folder, stored once (an FSM session's is tens of MB), where a resumed call still finds it:

- ``keep_one`` (Claude Code) moves the file there and leaves a relative symbolic link in its
  place: the CLI appends through the link. Should the CLI replace the linked file by a new regular
  file instead, the next move replaces ``transcript.jsonl`` with it. A move within one folder tree
  keeps the file's inode, so a CLI still holding the file open would go on writing into
  ``transcript.jsonl``;
- ``link_one`` (Codex CLI, which refuses to resume from a rollout whose resolved path is not its
  own canonical file name) leaves the file where it is and makes ``transcript.jsonl`` a second
  name of it (a hard link: one inode, both names; the CLI appends to it). Where a hard link
  cannot be made (another file system, a file system without them) it copies the file instead.
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


def link_one(session_dir: Path, source: Path | None) -> Path | None:
    """Make ``session_dir/transcript.jsonl`` the same file as the CLI's transcript ``source`` (a
    hard link, else a copy; see the module docstring); the kept path, or None without one."""
    if source is None or not source.is_file():
        return None
    kept = Path(session_dir) / TRANSCRIPT_NAME
    try:
        if kept.exists() and os.path.samefile(kept, source):
            return kept
    except OSError:
        pass
    staged = kept.with_name(kept.name + ".new")
    try:
        staged.unlink(missing_ok=True)
        os.link(source, staged)
    except OSError:
        import shutil

        shutil.copyfile(source, staged)
    os.replace(staged, kept)
    return kept


#: Where a run of fresh contexts keeps each ended context's transcript, in the session folder.
CONTEXTS_DIR = "contexts"


def keep_context_transcript(session_dir: Path, n: int) -> Path | None:
    """A run of fresh contexts: move the ended context ``n``'s ``transcript.jsonl`` to
    ``contexts/context-<n>.transcript.jsonl`` (the next context's CLI writes a new one; the
    context's CLI session is never resumed, so nothing appends to it any more)."""
    kept = Path(session_dir) / TRANSCRIPT_NAME
    if not kept.is_file():
        return None
    folder = Path(session_dir) / CONTEXTS_DIR
    folder.mkdir(exist_ok=True)
    target = folder / f"context-{n}.{TRANSCRIPT_NAME}"
    os.replace(kept, target)
    return target
