"""The notes under the tables that say why: empty tables, rows not evaluable, windows a short
batch does not reach, which seeds the rows cover, the exploratory grader column, and the notes
under every table (:func:`common_notes`: no analysable session, how many sessions were excluded,
the amendments). Used by ``analysis.tables``; each reads an ``Analysis``
(``analysis.analysis_data``)."""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from .analysis_data import Analysis
from .exclusions import seed_list, summary_note
from .render import Table
from .verdicts import NOT_EVALUABLE

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
    (without any, :func:`common_notes` says so)."""
    return [no_rows(why)] if not t.rows and a.corpus.scores else []


def common_notes(a: "Analysis") -> list[str]:
    """The notes under every table: why there is no row at all (a corpus without an analysable
    session), how many sessions were excluded (``analysis.exclusions.summary_note``), and the
    recorded amendments (or that there are none)."""
    notes = [] if a.corpus.scores else [no_rows(a.nothing_here())]
    summary = summary_note(a)
    notes += [summary] if summary else []
    return notes + ([entry.summary() for entry in a.amendments] or ["Amendments: none recorded."])


def seeds_note(groups: list[tuple[str, Iterable[int]]]) -> str | None:
    """``Seeds: <group> 2-9; <group> 13-15.``: which seeds each group's rows cover."""
    if not groups:
        return None
    return "Seeds: " + "; ".join(f"{group} {seed_list(seeds)}" for group, seeds in groups) + "."


def model_seeds_note(a: "Analysis", frames: dict[str, pl.DataFrame]) -> str | None:
    """``Seeds: <label> 2-9; ...`` for the models (and their rows) of a table."""
    return seeds_note([(a.plan.label(m), f["seed"].to_list()) for m, f in frames.items()
                       if not f.is_empty()])


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
