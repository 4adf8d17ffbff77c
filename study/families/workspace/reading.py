"""How a workspace session reads, from its log alone: the family's ``reading`` part (layer 2).

The readers ask it through ``study.families.registry`` (``study status``, ``study score``, the
viewer, the Inspect export, the audit). A session is one run of a staged protocol over fresh
contexts, with the CLI's own tools; its ``outcome`` event is the protocol's scorer's, and names
the protocol: each protocol's own ``reading`` (``autoresearch/reading.py``,
``month_end_close/reading.py``) reads it, this module picks it by the outcome's ``protocol``
(``PROTOCOLS``). An outcome of a protocol no folder reads gets None from ``verdict``, ``details``
and ``score_lines``: the reader then says it is an outcome of that protocol, as for any family.

``units(record)``: what a run's units are called, its protocol's ``UNITS`` (``study.families.units``).

The record rules: ``UNIT_END`` (a context's end is a unit's), ``CONTEXTS`` (the session's work
is a run of fresh contexts: the status counts them, the viewer and the export show each) and
``BUILTIN_TOOLS`` (the agent's calls are the CLI's own tools: the audit compares them with the
transcript as the CLI names them).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

# by their full names: an import of a protocol's package would be one of its layer-6 __init__
import study.families.workspace.autoresearch.reading as autoresearch
import study.families.workspace.month_end_close.reading as month_end_close

#: Each protocol's reading, by the name a study.yaml and an outcome give it.
PROTOCOLS: dict[str, ModuleType] = {autoresearch.PROTOCOL: autoresearch, month_end_close.PROTOCOL: month_end_close}
#: The kind whose events end the session's units (its contexts).
UNIT_END = "context_end"
CONTEXTS = True
BUILTIN_TOOLS = True
#: The Inspect scores of each protocol's outcome, the headline first.
SCORES = {name: module.SCORES for name, module in PROTOCOLS.items()}
#: A run's units when its protocol is none a folder reads: its contexts.
UNITS = ("context", "contexts", "used")


def protocol_of(record: dict[str, Any]) -> str | None:
    """The protocol an outcome or a session_start names (None: none, or not a text)."""
    found = record.get("protocol")
    return found if isinstance(found, str) else None


def units(record: dict[str, Any]) -> tuple[str, str, str | None]:
    """What a run's units are called, by the protocol a session_start (or a study's params) names:
    the protocol's ``UNITS`` (AutoResearch's contexts, the month-end close's periods)."""
    return getattr(PROTOCOLS.get(protocol_of(record) or ""), "UNITS", UNITS)


def _reading(outcome: dict[str, Any]) -> ModuleType | None:
    return PROTOCOLS.get(protocol_of(outcome) or "")


def verdict(outcome: dict[str, Any]) -> dict[str, Any] | None:
    """The protocol's verdict of ``outcome`` (``text``, ``class``, ``cells``); None: no protocol
    of the family reads it."""
    found = _reading(outcome)
    return found.verdict(outcome) if found is not None else None


def details(outcome: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Everything the protocol's scorer said, for a page (the headline, the rows or periods, the
    facts); None: no protocol of the family reads it."""
    found = _reading(outcome)
    if found is None:
        return None
    head = found.verdict(outcome)
    doc: dict[str, Any] = {"protocol": found.PROTOCOL, "headline": head["text"], "class": head["class"], "facts": []}
    found.details(outcome, doc)
    return doc


def group_words(protocol: str | None) -> tuple[str, str, str] | None:
    """The words of a group's summary in the viewer's matrix, by verdict class (pass, fail, none)."""
    found = PROTOCOLS.get(protocol or "")
    return found.GROUP_WORDS if found is not None else None


def score_lines(outcome: dict[str, Any], events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]] | None:
    """What ``study score`` adds to its JSON (nothing) and the lines it prints (the protocol's)."""
    found = _reading(outcome)
    return ({}, found.score_lines(outcome)) if found is not None else None


def inspect_scores(protocol: str, outcome: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The protocol's verdict as the Inspect export's scores (each the fields of an Inspect
    ``Score``); none for a protocol no folder reads."""
    found = PROTOCOLS.get(protocol)
    return found.inspect_scores({k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")}) \
        if found is not None else {}


def inspect_metadata(outcome: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What a run adds to its Inspect sample's metadata: its contexts (n, unit, how each ended)."""
    ends = {e.get("n"): e.get("ended") for e in events if e.get("kind") == "context_end"}
    return {"contexts": [{"n": e.get("n"), "unit": e.get("unit"), "ended": ends.get(e.get("n"))}
                         for e in events if e.get("kind") == "context_start"]}
