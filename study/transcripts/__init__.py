"""Each agent runtime's own transcript, read as one conversation form (turns).
Layer 3: may import the foundations and layers 1-2 (docs/architecture.md).

For the viewer, the audit and the exports. Reading only: nothing here starts or imports an agent
runtime. Beside the runtimes' readers, ``outcomes`` says what a session of another task family
came to, as the viewer, the exports and ``study status`` show it, by asking the family (its
``reading`` part, through ``study.families.registry``); a family's work as its log has it (a
conversation, a run's contexts) is its own ``transcript`` part's.

Every reader is a module with ``turns(lines, *, cap=TEXT_CAP) -> (turns, other_records)`` in the
form ``claude_code`` documents (``claude_code`` reads Claude Code's transcript, ``codex`` Codex
CLI's rollout); ``reader_for(runtime)`` picks a session's reader by ``session_start.runtime`` (a
log that names none was written by Claude Code), and ``turns(runtime, lines)`` reads with it. A
runtime gets its transcript read by adding its module to ``READERS``.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

#: How many characters of a longer text (a tool result, an assistant turn, a summary) a turn keeps
#: for the viewer (every reader's default).
TEXT_CAP = 4000
#: The transcript reader of each runtime (``study.protocol.runtimes`` names), by module.
READERS: dict[str, str] = {
    "claude-code": "study.transcripts.claude_code",
    "codex": "study.transcripts.codex",
}
#: The runtime of a session whose log names none.
DEFAULT_RUNTIME = "claude-code"


class NoReader(LookupError):
    """No transcript reader for a runtime (unknown, or its reader is not written yet)."""


def reader_for(runtime: str | None) -> ModuleType:
    """The reader module of ``runtime`` (None: Claude Code); ``NoReader`` says why there is none."""
    name = DEFAULT_RUNTIME if runtime is None else runtime
    module = READERS.get(name)
    if module is None:
        raise NoReader(f"no transcript reader for runtime {name!r} (readers: {', '.join(READERS)})")
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise NoReader(f"the transcript reader of runtime {name!r} ({module}) is not in this install") from None


def turns(runtime: str | None, lines: list[bytes], *, cap: int | None = TEXT_CAP) -> tuple[list[dict[str, Any]], int]:
    """The conversation of a transcript written by ``runtime``, each text cut to ``cap``
    characters (None: whole), and how many records are not turns."""
    return reader_for(runtime).turns(lines, cap=cap)
