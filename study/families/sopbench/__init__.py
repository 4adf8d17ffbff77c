"""The SOP-Bench family: a batch of a SOP-Bench task's items in one session (the main study).

The registry's default family (``study.families.registry.DEFAULT_FAMILY``): the readers' own code
(the scorer and the tables of ``analysis``, ``study status``, the viewer's pages) reads its
sessions, so its one part is ``family.py`` (``FAMILY``: the session's ``ToolBox`` as its
``Work``); ``texts.py`` fills the preregistration's texts in for the task.

Nothing is imported here at import time (``__getattr__`` loads ``family`` when one of its names
is asked for), as in every family's package: the registry finds a part without paying for the rest.
"""

from __future__ import annotations

from typing import Any

_FROM_FAMILY = ("FAMILY", "SERVER", "SopBenchFamily", "SopBenchWork")


def __getattr__(name: str) -> Any:
    if name in _FROM_FAMILY:
        from . import family

        return getattr(family, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_FROM_FAMILY)
