"""Task families: what one session's work is, whichever family (SOP-Bench, tau2-bench, a workspace).
Layer 6: may import the foundations and layers 1-5 (docs/architecture.md).

The runner, the runtime adapters and the bridge to the FSM see a session's work only through the
``Work`` interface (``base.py``): the units of work and which are done, the MCP tool servers the
agent is offered, the texts it is sent, whether it works in a workspace with the CLI's own tools,
and what happens at the end (a benchmark's own evaluation, say). Each family is one subpackage
that builds its ``Work``; families never import one another:

- ``sopbench``: a batch of SOP-Bench items (the preregistered referral study's accounts), over
  ``sopbench_tools``' ``ToolBox``;
- ``tau2``: one τ²-bench conversation per session (the paper's Analysis 2): the domain's tools run
  by tau2's own environment, the customer its user simulator, the reward its evaluator's;
- ``workspace``: the agent works in a git workspace with the CLI's own tools, over one or several
  fresh contexts (the staged protocols of the paper's Analysis 3: ``workspace.autoresearch``,
  ``workspace.month_end_close``; docs/staged.md);
- ``swebench``: one SWE-bench instance per session (the paper's Analysis 1): its repository in a
  workspace, the agent's commands in the instance's container, its patch graded by the official
  harness (docs/swebench.md).

``family(name)`` gives a family by its name (``FAMILIES``); ``DEFAULT_FAMILY`` is the one a log or
a preregistration that names none belongs to.
"""

from __future__ import annotations

from .base import DEFAULT_FAMILY, Family, Work, WorkSetup

#: Every family, by name -> "module:attribute" of its ``Family`` object (imported when asked for).
FAMILIES = {
    "sopbench": "study.families.sopbench:FAMILY",
    "tau2": "study.families.tau2:FAMILY",
    "workspace": "study.families.workspace:FAMILY",
    "swebench": "study.families.swebench.family:FAMILY",
}


class UnknownFamily(ValueError):
    """A family name no package provides."""


def family(name: str | None) -> Family:
    """The family called ``name`` (None: ``DEFAULT_FAMILY``)."""
    import importlib

    name = name or DEFAULT_FAMILY
    where = FAMILIES.get(name)
    if where is None:
        raise UnknownFamily(f"unknown task family {name!r}: the families are {', '.join(FAMILIES)}")
    module, attribute = where.split(":")
    return getattr(importlib.import_module(module), attribute)


def as_work(work: object, reminder: str | None = None) -> Work:
    """``work`` as a session's ``Work``: itself if it is one; a bare SOP-Bench ``ToolBox`` (as the
    tests of the runner's bridge build it) wrapped as the SOP-Bench family's work."""
    if hasattr(work, "family"):
        return work   # type: ignore[return-value]
    from .sopbench import SopBenchWork

    return SopBenchWork(work, getattr(work, "task", None), reminder)   # type: ignore[arg-type]


__all__ = ["DEFAULT_FAMILY", "FAMILIES", "Family", "UnknownFamily", "Work", "WorkSetup", "as_work", "family"]
