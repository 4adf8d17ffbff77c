"""Where Claude Code keeps a session's transcript: ``home/.claude/projects/<cwd>/<session id>.jsonl``
inside the session's HOME (sub-agents' transcripts aside). ``keep_one`` keeps it once in the
session folder (``study.transcripts.kept``).
"""

from __future__ import annotations

from pathlib import Path

from study.transcripts import kept


def cli_transcript(home: Path, session_id: str) -> Path | None:
    """Where the CLI keeps the main transcript of ``session_id`` under ``home`` (subagents' aside)."""
    found = sorted(p for p in Path(home).rglob(f"{session_id}.jsonl") if "subagents" not in p.parts)
    return found[0] if found else None


def keep_one(session_dir: Path, home: Path, session_id: str | None) -> Path | None:
    """Move the CLI's transcript of ``session_id`` to ``session_dir/transcript.jsonl`` and link it
    back; the kept path, or None when the CLI wrote none."""
    if not session_id:
        return None
    return kept.keep_one(session_dir, cli_transcript(home, session_id))
