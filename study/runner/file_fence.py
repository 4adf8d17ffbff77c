"""The runner's fence on the CLI's own file tools (``Work.file_tools_fenced``): a call of a file tool
(a read, an edit, a write, a patch) that names a path outside the workspace is refused before any
gate, under every condition alike, where the work's commands run elsewhere than the files the CLI's
tools reach (a container that holds only the workspace: what the agent's shell sees, its file
tools see too). The bridge logs the refusal (``fence: true``) and the model sees the reason.
"""

from __future__ import annotations

from typing import Any


def fence_refusal(work: Any, workspace: str | None, tool: str, args: Any, cwd: str | None) -> str | None:
    """The refusal of a call of the CLI's own file tools that names a path outside ``workspace``,
    where ``work`` fences them (``Work.file_tools_fenced``); else None."""
    if not getattr(work, "file_tools_fenced", False) or workspace is None:
        return None
    from study.fsm.builtin_tools import SHELL, actions_of

    outside = [a.args.get("path") for a in actions_of(tool, args, cwd, workspace) or []
               if a.tool != SHELL and a.args.get("outside")]
    if not outside:
        return None
    return (f"{outside[0]} is outside the workspace: the file tools may read and change only the files of the "
            f"repository you work in ({workspace})")
