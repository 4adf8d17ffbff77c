"""What a session of another task family than SOP-Bench's came to, from its log's ``outcome``
event (its family's evaluator's verdict: docs/contracts.md, "Session log"), in the words ``study
status``, the viewer and the Inspect export share.

The family the outcome names reads it: its ``reading`` part (``study.families.<family>.reading``,
found through ``study.families.registry``), which knows its protocols' fields. This module only
asks it, and says what any reader says of an outcome no family reads:

- ``verdict(outcome)``: one line (a reward, rows valid, periods correct, ...), its class
  (``pass``, ``fail``, ``none``: not judged, or no outcome) and one cell per unit of the work,
  each with its class and title: the matrix's strip;
- ``details(outcome, events)``: the same, with every figure the family's evaluator gave, for a
  page;
- ``protocol_of(outcome)``: the name the outcome reads under (a protocol's, or the family's own).

The outcome is the log's, not recomputed here (the readers admit a session only once the rule
``verdict`` has re-derived its outcome from its evidence: ``study.session_io.verdicts``); still an
untrusted record here (``study.session_io.outcome_fields``). Nothing here raises.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from study.families.registry import part_of
from study.session_io.outcome_fields import FAIL, NONE, PASS, no_outcome, short

__all__ = ["FAIL", "NONE", "PASS", "details", "protocol_of", "reading_of", "verdict"]


def reading_of(outcome: dict[str, Any]) -> ModuleType | None:
    """The reading part of the family the outcome names (None: it names none of the registry's)."""
    return part_of(outcome.get("family"), "reading")


def protocol_of(outcome: dict[str, Any]) -> str | None:
    """The name ``outcome`` reads under: its family's word (a protocol's name, or the family's
    own), else the protocol it names; None when it names none."""
    reading = reading_of(outcome)
    if reading is not None:
        return reading.protocol_of(outcome)
    return outcome.get("protocol") if isinstance(outcome.get("protocol"), str) else None


def verdict(outcome: dict[str, Any] | None) -> dict[str, Any]:
    """``text``, ``class`` and ``cells`` (see the module docstring) of an ``outcome`` event (None:
    the session has none yet: it runs, or it ended before its family judged it)."""
    if not isinstance(outcome, dict):
        return no_outcome()
    reading = reading_of(outcome)
    found = reading.verdict(outcome) if reading is not None else None
    if found is not None:
        return found
    return {"text": f"outcome of {short(protocol_of(outcome) or outcome.get('family'), 40)}", "class": NONE, "cells": []}


def details(outcome: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Everything the family's evaluator said (see the module docstring); None without an outcome."""
    if not isinstance(outcome, dict):
        return None
    reading = reading_of(outcome)
    found = reading.details(outcome, events) if reading is not None else None
    if found is not None:
        return found
    head = verdict(outcome)
    return {"protocol": protocol_of(outcome), "headline": head["text"], "class": head["class"], "facts": []}
