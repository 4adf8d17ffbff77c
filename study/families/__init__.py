"""Task families: what one session's work is, whichever family; one folder each, found by their registry.
Layer 6: may import the foundations and layers 1-5 (docs/architecture.md).

A task family is one folder of this package holding everything of it: its work (what the runner
asks), its rules, its scaffold, its data, its simulated agents, its tables, how its sessions read
and how the viewer and the export show them. The registry (``registry.py``, a foundation) names
the families and finds each one's parts by their role; the readers ask it, never a family's
module by name, and families never import one another.

The runner, the runtime adapters and the bridge to the FSM see a session's work only through the
``Work`` interface (``base.py``): the units of work and which are done, the MCP tool servers the
agent is offered, the texts it is sent, whether it works in a workspace with the CLI's own tools,
and what happens at the end (a benchmark's own evaluation, say). ``family(name)`` gives a family's
``Family`` (its ``family`` part's ``FAMILY``); ``DEFAULT_FAMILY`` is the one a log or a
preregistration that names none belongs to.

Nothing is imported here at import time (``__getattr__`` loads ``base`` when one of its names is
asked for): a reading command that asks the registry for a family's part must not pay for the
MCP server that ``base`` (through ``study.tooling``) imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .registry import DEFAULT_FAMILY, FAMILIES, UnknownFamily, part

if TYPE_CHECKING:
    from .base import Family, Work, WorkSetup

_FROM_BASE = ("Family", "Work", "WorkSetup")


def __getattr__(name: str) -> Any:
    if name in _FROM_BASE:
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def family(name: str | None) -> "Family":
    """The family called ``name`` (None: ``DEFAULT_FAMILY``)."""
    found = part(name or DEFAULT_FAMILY, "family")
    if found is None:
        raise UnknownFamily(f"the task family {name!r} has no family.py (its FAMILY)")
    return found.FAMILY


def as_work(work: object, reminder: str | None = None) -> "Work":
    """``work`` as a session's ``Work``: itself if it is one; a bare SOP-Bench ``ToolBox`` (as the
    tests of the runner's bridge build it) wrapped as the SOP-Bench family's work."""
    if hasattr(work, "family"):
        return work   # type: ignore[return-value]
    from .sopbench.family import SopBenchWork

    return SopBenchWork(work, getattr(work, "task", None), reminder)   # type: ignore[arg-type]


__all__ = ["DEFAULT_FAMILY", "FAMILIES", "Family", "UnknownFamily", "Work", "WorkSetup", "as_work", "family"]
