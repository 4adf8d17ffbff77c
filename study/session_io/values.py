"""The rules of a session's numbers: a figure that cannot be true breaks the records, in every
command that reads them (docs/contracts.md, "Validation of a log": rules ``range``, ``cost`` and
``batch``).

- ``range``: every number of a ``session_end``, ``call_end`` or ``usage`` event (a cost, a token
  count, a count of turns, decisions, resumes or accounts, a duration, a call's index: whatever
  field it is in, nested ones included) is finite and ``>= 0``; so is every such figure of
  ``meta.json`` (``META_FIGURES``). Nothing the runner writes is ever negative.
- ``cost``: ``session_end.cost_usd`` is at least ``MIN_COST_SHARE`` of the list price of the
  usage the log streamed (each call's last ``usage`` event's ``priced_usd``): a cost below that is
  not the CLI's figure for that usage (the runner never reports less than it priced; the CLI's
  own figure is the list price, or near it).
- ``batch``: no count of decisions or of accounts left (``session_end``, ``call_end``) is larger
  than the batch (``session_start.order``).

Both readings of ``reader`` apply these rules to the same dicts (the reference reading to its
parsed events, the typed fast path to the lines of those kinds decoded again: the typed structs
skip the fields the contract does not name, and a forged ``input_tokens: -5`` is such a field), so
they agree by construction. ``study audit`` reads them from here too (``study.prereg.record_checks``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from .issues import Rule
from .vocabulary import EventKind

#: A cost below this share of the streamed usage's list price is not the CLI's figure for it.
MIN_COST_SHARE = 0.5
#: Rounding slack: the runner rounds every logged dollar figure to 6 decimals.
USD_SLACK = 2e-6
#: The kinds whose numbers are costs, counts and durations (all of them finite and >= 0).
VALUED_KINDS = frozenset({EventKind.SESSION_END, EventKind.CALL_END, EventKind.USAGE, EventKind.MODEL_USAGE})
#: meta.json's figures (each finite and >= 0 where set).
META_FIGURES = ("cost_usd", "cost_estimated_usd", "turns", "duration_s", "resumes", "decisions", "accounts")
#: Fields whose numbers are not a figure of the session (the line's own bookkeeping).
_NOT_FIGURES = frozenset({"seq"})
_RANGE = "a cost, token count, count or duration is a finite number >= 0"


def _number(value: Any) -> bool:
    return type(value) in (int, float)


def bad_number(value: Any, name: str) -> tuple[str, Any] | None:
    """The first number in ``value`` (a field's value: nested objects and lists are walked) that
    is negative or not finite, as (its dotted name, the number); None if there is none."""
    if _number(value):
        return None if math.isfinite(value) and value >= 0 else (name, value)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if (found := bad_number(item, f"{name}.{key}")) is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if (found := bad_number(item, f"{name}[{index}]")) is not None:
                return found
    return None


def event_out_of_range(event: Mapping[str, Any]) -> tuple[str, Any] | None:
    """The first figure of a valued event that cannot be true (``range``), or None."""
    for key, value in event.items():
        if key not in _NOT_FIGURES and (found := bad_number(value, key)) is not None:
            return found
    return None


def value_issues(start: Mapping[str, Any], valued: Iterable[tuple[int | None, Mapping[str, Any]]]
                 ) -> list[tuple[Rule, int | None, str]]:
    """The (rule, line, message) of each figure of a log that cannot be true: ``valued`` is each
    ``session_end``, ``call_end`` and ``usage`` event of the log with its line, in file order;
    ``start`` its ``session_start``."""
    out: list[tuple[Rule, int | None, str]] = []
    order = start.get("order")
    batch = len(order) if isinstance(order, list) else None
    last_price: dict[Any, float] = {}
    priced = True
    end: tuple[int | None, Mapping[str, Any]] | None = None
    for line, event in valued:
        kind = event.get("kind")
        if (bad := event_out_of_range(event)) is not None:
            out.append((Rule.RANGE, line, f"{kind} {bad[0]} is {bad[1]!r}: {_RANGE}"))
        if batch is not None:
            for name, what in (("decisions", "decisions"), ("accounts_left", "accounts left")):
                value = event.get(name)
                if type(value) is int and value > batch:
                    out.append((Rule.BATCH, line, f"{kind} counts {value} {what}, more than the batch's {batch} "
                                                  "accounts (session_start.order)"))
        if kind == EventKind.USAGE:
            price = event.get("priced_usd")
            if _number(price) and math.isfinite(price) and price >= 0:
                last_price[event.get("call")] = float(price)
            else:
                priced = False          # no list price (or a broken one): the cost is not compared
        elif kind == EventKind.SESSION_END:
            end = (line, event)
    if end is not None and priced and last_price:
        cost = end[1].get("cost_usd")
        streamed = sum(last_price.values())
        if _number(cost) and math.isfinite(cost) and cost < MIN_COST_SHARE * streamed - USD_SLACK:
            out.append((Rule.COST, end[0], f"session_end cost_usd {cost} is less than {MIN_COST_SHARE:.0%} of the "
                                           f"list price of the usage the log streamed ({round(streamed, 6)}): not "
                                           "the CLI's cost of that usage"))
    return out


def meta_out_of_range(meta: Mapping[str, Any]) -> list[str]:
    """What is wrong with meta.json's figures (``range``): each message names the field."""
    out = []
    for name in META_FIGURES:
        value = meta.get(name)
        if _number(value) and not (math.isfinite(value) and value >= 0):
            out.append(f"meta.json {name} is {value!r}: {_RANGE}")
    return out


__all__ = ["MIN_COST_SHARE", "META_FIGURES", "USD_SLACK", "VALUED_KINDS", "bad_number", "event_out_of_range",
           "meta_out_of_range", "value_issues"]
