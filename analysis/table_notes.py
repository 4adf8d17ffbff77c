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


#: What each column of Tables 1, 2, 6, 7 and 8 holds, by header (the notes' "Columns:" line, in every
#: format); an FC window ("FC 51-100") and an escape route's column are defined by ``define``.
COLUMN_DEFINITIONS = {
    "Model": "the model (one on another runtime than Claude Code is named with its runtime, e.g. sim:oracle on "
             "Codex CLI; Catch-up: comparisons across models)",
    "Condition": "the condition of conditions.yaml",
    "FC": "faithful and correct decisions, those both compliant (inv, rec and foc hold) and exactly the gold label, "
          "mean over seeds (Table 1: with the standard deviation over seeds)",
    "Compliance": "compliant decisions over decided accounts, per session, mean over seeds",
    "Compl.": "compliance, as in Table 1",
    "Decided": "accounts with a decision (their first successful submit_decision), mean over seeds",
    "Correct": "decisions equal to the gold label exactly, mean over seeds",
    "Correct (SOP-Bench grader)": "decisions SOP-Bench's own grader counts as correct (see the note on it), mean "
                                  "over seeds",
    "Cost ($)": "mean cost of a session at the list prices of models.yaml",
    "Seeds": "the sessions, one per seed, that the row's means are over",
    "Variant": "the ablation's condition",
    "Gates": "the tool-call gate and the guarded transitions, on or off",
    "Stop gate": "the stop gate, on or off",
    "Blind": "decisions without any data retrieved for the account, mean per session",
    "Stops": "attempts to end the turn with accounts left (blocked or not), mean per session",
    "Section": "the part of the plan the prediction belongs to",
    "Prediction": "the prediction's id and its clause (predictions.yaml)",
    "Observed": "the values the clause was evaluated on",
    "Verdict": "whether the clause holds, fails, or is not evaluable",
    "Comparison": "the paired contrast of predictions.yaml (first side minus second)",
    "Mean": "the mean of the per-seed differences",
    "95% CI": "percentile bootstrap 95% confidence interval of the mean (10,000 resamples, seeded)",
    "Seeds > 0": "seeds with a positive difference / seeds with both sides",
    "Sign p": "exact two-sided sign test",
    "Wilcoxon p": "exact two-sided Wilcoxon signed-rank test",
}

#: Table 8's escape-route columns, by route key (a route without an entry is defined by its detector's
#: description in study/procedure/escape_routes.py).
ROUTE_DEFINITIONS = {
    "ends_turn": "every stop with accounts left, including those the stop gate blocked",
    "without_looking": "decisions with no data retrieved for the account",
    "partial_data": "decisions with some, not all, of the required data retrieved for the account",
    "interleaved": "decisions whose account's retrievals were interleaved with another account's",
    "another_account": "decisions submitted for another account than the most recent record's",
    "first_token_remark": "the accounts decided when the agent's own text first mentioned tokens, context or budget "
                          "(a remark about its token budget, not the FSM's one-time transition tokens); median over "
                          "the sessions with such a remark, - if none had one",
}
TURN_ENDS_DEFINITION = "the turns that did end with accounts left"


def define(header: str) -> str | None:
    """What the column ``header`` holds (None: undefined)."""
    import re

    from study.procedure.escape_routes import ESCAPE_ROUTES, TURN_ENDS_HEADER

    if header in COLUMN_DEFINITIONS:
        return COLUMN_DEFINITIONS[header]
    window = re.fullmatch(r"FC (\d+)-(\d+)", header)
    if window:
        return f"FC of the accounts at positions {window.group(1)} to {window.group(2)} of the seed's order"
    if header == TURN_ENDS_HEADER:
        return TURN_ENDS_DEFINITION
    for r in ESCAPE_ROUTES:
        if header in (r.header, f"{r.header} (median decided)"):
            return ROUTE_DEFINITIONS.get(r.key, r.detection)
    return None


def columns_note(t: Table) -> str:
    """``Columns: <header>: <what it holds>; ...`` for the grouping column and every column of ``t``."""
    return "Columns: " + "; ".join(f"{h}: {define(h)}" for h in [t.group, *(c.header for c in t.columns)]) + "."


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
