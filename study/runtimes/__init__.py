"""The agent runtimes: one pinned, hash-checked adapter per agent CLI (Claude Code, Codex CLI).
Layer 7: may import the foundations and layers 1-6 (docs/architecture.md).

Runtime-neutral code (``study.runner``) drives a session through ``base.py``'s interface; only
the adapter packages (``claude_code/``, ``codex/``) know how their CLI is installed, started,
configured and read. ``runtime(name)`` gives a runtime's light face (its pin, version and
problems, without importing its SDK); ``open`` makes a session's adapter. ``launcher.py`` starts
any CLI in a process group of its own that dies with the runner; ``lock.py`` is the Python lock
the package (and the Claude Code CLI inside claude-agent-sdk) is installed from.
"""

from __future__ import annotations

from typing import Any

from study.protocol.runtimes import RUNTIMES

from . import claude_code, codex

#: runtime name -> its face (a ``study.runtimes.base.Runtime``)
_FACES: dict[str, Any] = {face.name: face for face in (claude_code.RUNTIME, codex.RUNTIME)}


def runtime(name: str) -> Any:
    """The runtime called ``name`` (a ``study.runtimes.base.Runtime``)."""
    if name not in RUNTIMES or name not in _FACES:
        raise KeyError(f"unknown runtime {name!r}; the runtimes are {', '.join(RUNTIMES)}")
    return _FACES[name]


def runtime_names() -> list[str]:
    return list(_FACES)
