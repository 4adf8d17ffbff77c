"""A family's ``outcome`` event read as what it is, an untrusted record: its values checked for
their types, its texts and lists cut, and the classes of a verdict.

Every task family's ``reading`` part (``study.families.<family>.reading``, found through
``study.families.registry``) reads its own outcome's fields with these, so a forged outcome (a
field of another type, a huge list) reads as well as any other: nothing here raises.
"""

from __future__ import annotations

import math
from typing import Any

#: At most this many rows, periods or parts of an outcome are listed (a forged one may hold any number).
LIST_CAP = 500
#: The classes of a verdict (its cells and its headline): passed, failed, and neither (not judged,
#: no outcome, a unit not started).
PASS, FAIL, NONE = "pass", "fail", "none"


def number(value: Any) -> float | None:
    """``value`` as a finite float, or None (a bool is no number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def integer(value: Any) -> int | None:
    """``value`` if it is an int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def g(value: Any) -> str:
    """A number as ``:g`` writes it, or an en dash."""
    found = number(value)
    return f"{found:g}" if found is not None else "–"


def short(value: Any, cap: int = 300) -> str:
    """``value`` as a text of at most ``cap`` characters (an ellipsis marks a cut); None is ''."""
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return text if len(text) <= cap else text[:cap] + "…"


def dicts(value: Any) -> list[dict[str, Any]]:
    """The objects of a list (at most ``LIST_CAP`` of them); anything else is empty."""
    return [x for x in value[:LIST_CAP] if isinstance(x, dict)] if isinstance(value, list) else []


def no_outcome() -> dict[str, Any]:
    """The verdict of a session whose log holds no outcome (it runs, or it ended before its family
    judged it)."""
    return {"text": "no outcome", "class": NONE, "cells": []}
