"""Moved to :mod:`study.protocol.cost_text` (the readers of the preregistration live there); re-exported here
so the runner's old import path keeps working."""

from study.protocol.cost_text import (  # noqa: F401
    simulated_note,
    cost_text,
)

__all__ = ["simulated_note", "cost_text"]
