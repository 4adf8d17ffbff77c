"""The plan's predictions evaluated on a corpus: observed values and verdicts (paper Table 6).

Verdicts come from ``analysis.verdicts``, the one code that decides them (``study power`` applies
it to simulated draws); the observed sessions are its single draw. A clause whose sessions are
incomplete (a planned seed missing) makes the entry "not evaluable" unless another clause
already decides the verdict. A session that decided nothing has no compliance, and satisfies no
comparison on it. This module writes the "Observed" column and feeds the rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import polars as pl

from study.protocol.plan import Plan
from study.protocol.predictions import Clause, Contrast, ContrastPair, Prediction, Regime, SeedsWhere

from . import verdicts as vr
from .comparisons import Comparison, Values, index, session_values
from .verdicts import NOT_EVALUABLE, VERDICTS

__all__ = ["NOT_EVALUABLE", "ObservedSource", "Outcome", "evaluate", "fmt_signed"]


@dataclass(frozen=True)
class Outcome:
    """One row of Table 6."""

    id: str
    section: str
    text: str
    model: str | None     # the model's label for per-model rows of multi-model entries
    observed: str
    verdict: str


def fmt_signed(x: float) -> str:
    return f"{x:+.1f}"


def _metric_text(metric: str, value: float) -> str:
    return f"{100 * value:.1f}%" if metric == "compliance" else f"{value:g}"


class _Metrics(Mapping):
    """One condition's sessions on its planned seeds, as (1, seeds) arrays per metric (NaN: None)."""

    def __init__(self, rows: list[dict]):
        self.rows = rows

    def __getitem__(self, metric: str) -> np.ndarray:
        return np.array([[np.nan if r[metric] is None else float(r[metric]) for r in self.rows]])

    def __iter__(self):
        return iter(self.rows[0]) if self.rows else iter(())

    def __len__(self) -> int:
        return len(self.rows[0]) if self.rows else 0


class ObservedSource:
    """The observed corpus as the single draw of ``analysis.verdicts``' rules."""

    draws = 1

    def __init__(self, plan: Plan, values: Values, comparisons: list[Comparison]):
        self.plan, self.values, self.cmp = plan, values, index(comparisons)

    def rows(self, model: str, condition: str) -> tuple[tuple[int, ...], list[dict | None]]:
        seeds = self.plan.seeds_for(model, condition)
        return seeds, [self.values.get((model, condition, s)) for s in seeds]

    def has_model(self, model: str) -> bool:
        return any(key[0] == model for key in self.values)

    def seed_metrics(self, model: str, condition: str) -> _Metrics | None:
        _seeds, rows = self.rows(model, condition)
        return None if any(r is None for r in rows) else _Metrics(rows)

    def comparison(self, comparison: str, model: str | None) -> Comparison | None:
        return self.cmp.get((comparison, model)) or self.cmp.get((comparison, None))

    def differences(self, comparison: str, model: str | None) -> np.ndarray | None:
        c = self.comparison(comparison, model)
        if c is None or not c.complete:
            return None
        return np.array([c.paired.differences], dtype=float)


# The "Observed" column: one text per clause, written from the same inputs the rules read.
def _seeds_where_text(src: ObservedSource, clause: SeedsWhere, model: str) -> str:
    texts = []
    for condition in clause.conditions:
        seeds, rows = src.rows(model, condition)
        missing = [s for s, r in zip(seeds, rows) if r is None]
        if missing:
            texts.append(f"{condition}: seeds {', '.join(map(str, missing))} missing")
            continue
        hits = int(vr.count_seeds(_Metrics(rows), clause.tests, clause.how)[0])
        texts.append(f"{hits}/{len(seeds)}")
    return ", ".join(texts)


def _contrast_text(src: ObservedSource, clause: Contrast, model: str | None) -> str:
    c = src.comparison(clause.comparison, model)
    if c is None:
        return "no sessions"
    if not c.complete:
        got = len(c.paired.seeds) if c.paired else 0
        return f"{c.spec.label}: {got} of {len(c.planned_seeds or ())} seeds"
    p = c.paired
    counts = clause.positive is not None or clause.negative is not None
    shows_mean = clause.mean is not None or clause.abs_mean is not None or not counts
    parts = [fmt_signed(p.mean)] if shows_mean else []
    if clause.abs_mean is not None:
        parts.append(f"CI [{p.ci_low:.1f}, {p.ci_high:.1f}]")
    for name, rule, count in (("positive", clause.positive, p.positive), ("negative", clause.negative, p.negative)):
        if rule is not None:
            parts.append(f"{count}/{p.n} {name}")
    if clause.show_means:
        parts = [f"{c.mean_a:.1f} vs. {c.mean_b:.1f}"]
    return ", ".join(parts)


def _contrast_pair_text(src: ObservedSource, clause: ContrastPair, model: str | None) -> str:
    left, right = (src.comparison(c, model) for c in (clause.left, clause.right))
    if not (left and right and left.complete and right.complete):
        return "seeds missing"
    return f"{left.paired.mean:.1f} vs. {right.paired.mean:.1f}"


def _clause_text(src: ObservedSource, clause: Clause, model: str | None) -> str:
    if isinstance(clause, SeedsWhere):
        return _seeds_where_text(src, clause, model)
    if isinstance(clause, ContrastPair):
        return _contrast_pair_text(src, clause, model)
    return _contrast_text(src, clause, model)


def _regime_text(src: ObservedSource, rule: Regime, model: str) -> tuple[tuple[Clause, ...] | None, str]:
    """The clauses of the model's regime (None if it has none) and the text naming it."""
    level = vr.regime_level(rule, model, src)
    if level is None:
        return None, f"{rule.condition} seeds missing"
    if np.isnan(level[0]):
        return None, f"{rule.condition} decided nothing"
    shown = _metric_text(rule.metric, float(level[0]))
    code = int(vr.regime_codes(rule, level)[0])
    if code == 0:
        return rule.drift, f"drift ({shown})"
    if code == 1:
        return rule.no_drift, f"no drift ({shown})"
    return None, f"regime undetermined ({shown})"


def _observed(src: ObservedSource, p: Prediction, model: str | None) -> str:
    """The "Observed" text of one prediction for one model."""
    if p.catch_up is not None:
        c = src.comparison(p.catch_up.comparison, None)
        if c is None or not c.complete:
            return "seeds missing"
        diffs = ", ".join(f"{d:+.0f}" for d in c.paired.differences)
        return f"{fmt_signed(c.paired.mean)} (seeds: {diffs})"
    if model is not None and not src.has_model(model):
        return f"no sessions of {model}"
    if p.regime is not None:
        clauses, prefix = _regime_text(src, p.regime, model)
        if clauses is None:
            return prefix
        prefix += ": "
    else:
        clauses, prefix = p.clauses, ""
    return prefix + "; ".join(_clause_text(src, c, model) for c in clauses)


def evaluate(plan: Plan, sessions: pl.DataFrame, comparisons: list[Comparison]) -> list[Outcome]:
    """Every prediction of the plan, in the plan's order (one row per model of a multi-model entry)."""
    src = ObservedSource(plan, session_values(sessions), comparisons)
    out = []
    for p, _key, model, label in plan.prediction_runs():
        verdict = VERDICTS[p.kind][int(vr.verdict_index(p, model, src)[0])]
        out.append(Outcome(id=p.id, section=p.section, text=p.text, model=label,
                           observed=_observed(src, p, model), verdict=verdict))
    return out
