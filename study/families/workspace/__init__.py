"""The workspace family: an agent works in a git workspace with the CLI's own tools.

The staged protocols of the paper's Analysis 3 (docs/staged.md), one subpackage each:
``autoresearch`` (tune a scikit-learn classifier in 25 audited trials over eight stages) and
``month_end_close`` (close six monthly periods of a synthetic trading company). Each holds its
workspace template or generator, its written procedure, its check script (what the FSM's guards
run; it never sees an answer), its scorer, its FSM workflow and the texts of both conditions.
"""

from __future__ import annotations

from typing import Any

#: The family the runner sees (``family.py``), loaded when asked for: the registry finds a part of
#: the family (its ``reading``, say) without importing the rest.
_FROM_FAMILY = ("FAMILY", "WorkspaceFamily", "WorkspaceWork")


def __getattr__(name: str) -> Any:
    if name in _FROM_FAMILY:
        from . import family

        return getattr(family, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_FROM_FAMILY)
