"""How an AutoResearch run reads, from its ``outcome`` event alone (the protocol's ``reading``,
layer 2; the workspace family's ``reading`` part asks it for outcomes of ``PROTOCOL``).

The outcome is the protocol's scorer's (``scorer.score``): each ledger row valid or the rule it
breaks, the valid and required rows, whether the protocol is complete (every row valid and the
stages exactly the plan's), the best kept accuracy. Read as an untrusted record
(``study.session_io.outcome_fields``); nothing here raises.
"""

from __future__ import annotations

from typing import Any

from study.session_io.outcome_fields import FAIL, LIST_CAP, NONE, PASS, dicts, g, integer, number, short

PROTOCOL = "autoresearch"
#: The Inspect scores of an outcome, the headline first.
SCORES = ("valid_rows", "complete", "best_accuracy")
#: The words of a group's summary in the viewer's matrix, by verdict class (pass, fail, none).
GROUP_WORDS = ("complete", "not complete", "no outcome")
#: What a run's units are called and what a done one is (``study.families.units``): the fresh
#: contexts it may have, each used once it has ended (the ones a complete protocol did not need are
#: not used: nothing is left of the run once the ledger holds every trial).
UNITS = ("context", "contexts", "used")


def verdict(outcome: dict[str, Any]) -> dict[str, Any]:
    """``valid/required rows valid, complete`` (or not), its class, and a cell per ledger row
    (valid, or the rule it breaks) and per trial the ledger does not hold."""
    rows = dicts(outcome.get("rows"))
    valid, required = integer(outcome.get("valid_rows")), integer(outcome.get("required_rows"))
    complete = outcome.get("complete") is True
    cells = [{"class": PASS if r.get("valid") is True else FAIL,
              "title": f"trial {short(r.get('trial'), 20)} ({short(r.get('stage'), 40)}): "
                       + ("valid" if r.get("valid") is True else f"breaks rule {short(r.get('rule'), 40)}")} for r in rows]
    missing = max(0, (required or 0) - len(rows))
    cells += [{"class": NONE, "title": "a trial the ledger does not hold"}] * min(missing, LIST_CAP)
    text = f"{valid if valid is not None else '?'}/{required if required is not None else '?'} rows valid, " \
           + ("complete" if complete else "not complete")
    return {"text": text, "class": PASS if complete else FAIL, "cells": cells}


def details(outcome: dict[str, Any], doc: dict[str, Any]) -> None:
    """Add every row (its trial, stage, decision, metric, verdict, rule and problems) and the
    run's facts to ``doc``, the page's outcome."""
    doc["rows"] = [{"trial": short(r.get("trial"), 20), "stage": short(r.get("stage"), 60),
                    "decision": short(r.get("decision"), 60), "metric": number(r.get("metric")),
                    "valid": r.get("valid") is True, "rule": short(r.get("rule"), 60) if r.get("rule") else None,
                    "problems": [short(p) for p in r.get("problems") or [] if isinstance(p, str)][:20]
                    if isinstance(r.get("problems"), list) else []} for r in dicts(outcome.get("rows"))]
    doc["facts"] += [["valid rows", f"{g(outcome.get('valid_rows'))} of {g(outcome.get('required_rows'))} required"],
                     ["invalid rows", g(outcome.get("invalid_rows"))],
                     ["complete", "yes" if outcome.get("complete") is True else "no"],
                     ["best accuracy", g(outcome.get("best_accuracy"))]]
    if outcome.get("incomplete_because"):
        doc["facts"].append(["not complete because", short(outcome.get("incomplete_because"), 1000)])


def score_lines(outcome: dict[str, Any]) -> list[str]:
    """What ``study score`` prints: the rows, completeness and best accuracy, each invalid row with
    the rule it breaks."""
    lines = [f"  AutoResearch: valid rows {outcome.get('valid_rows')}/{outcome.get('required_rows')}, complete "
             f"{'yes' if outcome.get('complete') else 'no'}, best accuracy {outcome.get('best_accuracy')}"]
    for row in outcome.get("rows") or []:
        if not row.get("valid"):
            lines.append(f"    trial {row.get('trial')} ({row.get('stage')}, {row.get('decision')}): breaks rule "
                         f"{row.get('rule')}")
    if outcome.get("incomplete_because"):
        lines.append(f"  not complete: {outcome['incomplete_because']}")
    return lines


def inspect_scores(fields: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The Inspect export's scores (each the fields of an Inspect ``Score``): ``valid_rows`` (valid
    rows / rows required, each row's verdict and rule in its metadata), ``complete`` and, when the
    run kept one, ``best_accuracy``."""
    valid, required = number(fields.get("valid_rows")), number(fields.get("required_rows"))
    rows = fields.get("rows") if isinstance(fields.get("rows"), list) else []
    invalid = [r for r in rows if isinstance(r, dict) and r.get("valid") is not True]
    out = {"valid_rows": {
        "value": valid / required if valid is not None and required else 0.0,
        "answer": f"{valid:g}/{required:g}" if valid is not None and required is not None else None,
        "explanation": "valid ledger rows of the rows the protocol requires" + (
            "; invalid: " + "; ".join(f"trial {r.get('trial')} breaks rule {r.get('rule')}" for r in invalid[:20])
            if invalid else ""),
        "metadata": {k: fields.get(k) for k in ("rows", "valid_rows", "invalid_rows", "required_rows")}},
        "complete": {"value": fields.get("complete") is True,
                     "explanation": "every row valid and the stages exactly the plan's"
                     + (f"; not complete: {fields.get('incomplete_because')}" if fields.get("incomplete_because") else "")}}
    if number(fields.get("best_accuracy")) is not None:
        out["best_accuracy"] = {"value": number(fields["best_accuracy"]),
                                "explanation": "the highest metric among the rows decided keep"}
    return out
