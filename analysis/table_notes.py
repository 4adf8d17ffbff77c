"""The notes under the tables that say why: empty tables, rows not evaluable, windows a short
batch does not reach, and the exploratory grader column (used by ``analysis.tables``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from .exclusions import seed_list
from .render import Table
from .verdicts import NOT_EVALUABLE

if TYPE_CHECKING:
    from .tables import Analysis

GRADER_NOTE = ("Correct (SOP-Bench grader): exploratory, not preregistered; SOP-Bench's published "
               "grader (OutputParser.compare_decisions with fuzzy_match=True) also counts "
               "Permanent Account Closure and Account Closure as matching each other. Correct is "
               "the preregistered exact match.")

NO_COST_NOTE = ("Cost -: no cost recorded for a session of the row (a model without list prices in "
                "models.yaml, e.g. one served through a relay), so no mean cost is reported.")


def present(*notes: str | None) -> list[str]:
    return [n for n in notes if n]


#: How the note of an empty table starts (``study tables`` repeats the rest on stderr).
NO_ROWS = "No rows: "


def no_rows(why: str) -> str:
    """The note of an empty table: ``No rows: <why>.``"""
    return f"{NO_ROWS}{why}."


def empty(t: Table, a: "Analysis", why: str) -> list[str]:
    """The "No rows" note of an empty table (``why`` says why) when the corpus has sessions
    (without any, ``Analysis.notes`` says so)."""
    return [no_rows(why)] if not t.rows and a.corpus.scores else []


def seeds_note(groups: list[tuple[str, Iterable[int]]]) -> str | None:
    """``Seeds: <group> 2-9; <group> 13-15.``: which seeds each group's rows cover."""
    if not groups:
        return None
    return "Seeds: " + "; ".join(f"{group} {seed_list(seeds)}" for group, seeds in groups) + "."


def windows_note(a: "Analysis", windows: int) -> str | None:
    """Sessions shorter than the largest batch fill only the windows their batch reaches."""
    sizes = sorted({len(s.order) for s in a.corpus.scores})
    if len(sizes) < 2:
        return None
    return (f"FC windows count accounts by position in the batch; sessions over "
            f"{', '.join(map(str, sizes[:-1]))} accounts fill only the windows they reach.")


def not_evaluable_note(a: "Analysis") -> str | None:
    """Why rows say "not evaluable": the plan's models without sessions here."""
    if not any(o.verdict == NOT_EVALUABLE for o in a.outcomes):
        return None
    here = set(a.corpus.sessions["model"].to_list())
    absent = [m.label for m in a.plan.models.values() if m.name not in here]
    note = ("Not evaluable: a prediction whose sessions or seeds are missing (its Observed "
            "column says which).")
    if absent:
        note += f" No analysable session of {', '.join(absent)}"
        others = sorted(here - {m.name for m in a.plan.models.values()})
        note += (f"; the plan's predictions are not about {', '.join(others)}." if others else ".")
    return note
