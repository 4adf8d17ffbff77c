"""Moved to :mod:`study.protocol.limits` (the readers of the preregistration live there); re-exported here
so the runner's old import path keeps working."""

from study.protocol.limits import (  # noqa: F401
    LimitsError,
    Limits,
    OVERRIDE_KEYS,
    EXPLORATORY_ONLY,
    load_limits,
    parse_override,
)

__all__ = ["LimitsError", "Limits", "OVERRIDE_KEYS", "EXPLORATORY_ONLY", "load_limits", "parse_override"]
