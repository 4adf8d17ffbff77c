"""Each runtime's own transcript, read as one conversation form (turns) for the viewer and the
exports. Reading only: nothing here starts or imports an agent runtime.

``turns(runtime, lines)`` picks the reader by the session's runtime (``session_start.runtime``;
a log that names none was written by Claude Code): ``claude_code`` reads Claude Code's transcript,
``codex`` Codex CLI's rollout; both give the same turn dicts (``claude_code``'s docstring).
"""

from __future__ import annotations

from typing import Any

from . import claude_code, codex


def turns(runtime: str | None, lines: list[bytes]) -> tuple[list[dict[str, Any]], int]:
    """The conversation of a transcript written by ``runtime``, and how many records are not turns."""
    return (codex.turns if runtime == "codex" else claude_code.turns)(lines)
