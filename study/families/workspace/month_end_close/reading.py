"""How a month-end close run reads, from its ``outcome`` event alone (the protocol's ``reading``,
layer 2; the workspace family's ``reading`` part asks it for outcomes of ``PROTOCOL``).

The outcome is the protocol's scorer's (``scorer.score``): each period started or not, correct or
not, how many of its eleven report fields are right, what is off; the correct periods; the turn
cap a period had. Read as an untrusted record (``study.session_io.outcome_fields``); nothing here
raises.
"""

from __future__ import annotations

from typing import Any

from study.session_io.outcome_fields import FAIL, NONE, PASS, dicts, g, integer, number, short

PROTOCOL = "month-end-close"
#: The Inspect scores of an outcome, the headline first.
SCORES = ("correct_periods",)
#: The words of a group's summary in the viewer's matrix, by verdict class (pass, fail, none).
GROUP_WORDS = ("every period correct", "not every period correct", "no outcome")
#: What a run's units are called and what a done one is (``study.families.units``): its periods,
#: each done once its close passed the last step's check or its context ended (how right its report
#: is, the verdict says).
UNITS = ("period", "periods", "done")


def verdict(outcome: dict[str, Any]) -> dict[str, Any]:
    """``correct/periods periods correct``, its class (every period correct), and a cell per
    period (correct; wrong, with its fields right; not started)."""
    periods = dicts(outcome.get("periods"))
    correct = integer(outcome.get("correct_periods"))
    cells = [{"class": PASS if p.get("correct") is True else FAIL if p.get("started") is True else NONE,
              "title": f"{short(p.get('period'), 20)}: " + ("correct" if p.get("correct") is True else
                                                           f"{short(p.get('right'), 5)}/11 fields" if p.get("started") is True
                                                           else "not started")} for p in periods]
    text = f"{correct if correct is not None else '?'}/{len(periods)} periods correct"
    return {"text": text, "class": PASS if periods and correct == len(periods) else FAIL, "cells": cells}


def details(outcome: dict[str, Any], doc: dict[str, Any]) -> None:
    """Add every period (started, correct, fields right, the share, what is off) and the run's
    facts to ``doc``, the page's outcome."""
    doc["periods"] = [{"period": short(p.get("period"), 20), "started": p.get("started") is True,
                       "correct": p.get("correct") is True, "right": integer(p.get("right")),
                       "fraction": number(p.get("fraction")), "problem": short(p.get("problem")) or None}
                      for p in dicts(outcome.get("periods"))]
    doc["facts"] += [["correct periods", f"{g(outcome.get('correct_periods'))} of {len(doc['periods'])}"],
                     ["turn cap a period", g(outcome.get("turn_cap"))]]


def score_lines(outcome: dict[str, Any]) -> list[str]:
    """What ``study score`` prints: the correct periods at the turn cap, then each period."""
    periods = outcome.get("periods") or []
    lines = [f"  month-end close: {outcome.get('correct_periods')}/{len(periods)} periods correct at "
             f"{outcome.get('turn_cap')} turns a period"]
    for p in periods:
        state = "correct" if p.get("correct") else ("not started" if not p.get("started") else
                                                    f"{p.get('right')}/11 fields ({p.get('problem') or 'fields off'})")
        lines.append(f"    {p.get('period')}: {state}")
    return lines


def inspect_scores(fields: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The Inspect export's score ``correct_periods`` (correct periods / periods, each period in its
    metadata), as the fields of an Inspect ``Score``."""
    periods = fields.get("periods") if isinstance(fields.get("periods"), list) else []
    correct = number(fields.get("correct_periods"))
    return {"correct_periods": {
        "value": correct / len(periods) if correct is not None and periods else 0.0,
        "answer": f"{correct:g}/{len(periods)}" if correct is not None else None,
        "explanation": "periods whose eleven report fields are all within tolerance, of the periods",
        "metadata": {"periods": periods, "correct_periods": fields.get("correct_periods"), "turn_cap": fields.get("turn_cap")}}}
