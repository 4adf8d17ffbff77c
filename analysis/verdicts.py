"""The verdict rules of the plan's predictions, on per-seed metrics of any number of draws.

One code decides every verdict: Table 6 (``analysis.predictions``) applies it to the observed
sessions as a single draw, and ``study power`` (``analysis.power``) to thousands of simulated
draws at once. A *source* answers two questions for a clause: the per-seed metrics of one
model's condition, and the per-seed differences of one of the plan's comparisons, each as an
array of shape (draws, seeds), or None when a session it needs is missing. NaN stands for a
value a session does not have (the compliance of a session that decided nothing): it satisfies
no comparison.

Truth values are int8 arrays, one per draw: 1 true, 0 false, -1 not evaluable. A prediction
holds when every clause holds and fails when one fails; a falsification rule is triggered when
any clause holds; a not-evaluable clause makes the entry not evaluable unless another clause
already decides it. A catch-up rule exceeds, catches up or does not catch up by its thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

from study.protocol.predictions import (OPS, Clause, Contrast, ContrastPair, MetricTest, Prediction, Regime,
                                        SeedCount, SeedsWhere)

TRUE, FALSE, UNKNOWN = 1, 0, -1
NOT_EVALUABLE = "not evaluable"

#: The verdicts of each kind of entry, in the order ``verdict_index`` numbers them.
VERDICTS: dict[str, tuple[str, ...]] = {
    "prediction": ("holds", "fails", NOT_EVALUABLE),
    "falsification": ("triggered", "not triggered", NOT_EVALUABLE),
    "catch_up": ("exceeds", "catches up", "does not catch up", NOT_EVALUABLE),
}


class Source(Protocol):
    """Per-seed inputs of the rules; arrays are (draws, seeds)."""

    draws: int

    def has_model(self, model: str) -> bool: ...

    def seed_metrics(self, model: str, condition: str) -> Mapping[str, np.ndarray] | None: ...

    def differences(self, comparison: str, model: str | None) -> np.ndarray | None: ...


def truth(ok: np.ndarray) -> np.ndarray:
    return np.asarray(ok, dtype=bool).astype(np.int8)


def _unknown(draws: int) -> np.ndarray:
    return np.full(draws, UNKNOWN, dtype=np.int8)


def all_of(results: list[np.ndarray]) -> np.ndarray:
    """False if any is false; else not evaluable if any is; else true."""
    s = np.stack(results)
    return np.where((s == FALSE).any(0), FALSE, np.where((s == UNKNOWN).any(0), UNKNOWN, TRUE)).astype(np.int8)


def any_of(results: list[np.ndarray]) -> np.ndarray:
    """True if any is true; else not evaluable if any is; else false."""
    s = np.stack(results)
    return np.where((s == TRUE).any(0), TRUE, np.where((s == UNKNOWN).any(0), UNKNOWN, FALSE)).astype(np.int8)


def count_seeds(metrics: Mapping[str, np.ndarray], tests: tuple[MetricTest, ...], how: str) -> np.ndarray:
    """Per draw, the seeds whose session satisfies ``all`` (or ``any``) of the tests."""
    sat = [OPS[t.op](metrics[t.metric], t.value) for t in tests]
    ok = np.logical_and.reduce(sat) if how == "all" else np.logical_or.reduce(sat)
    return ok.sum(axis=-1)


def seeds_needed(at_least: int | str, seeds: int) -> int:
    return seeds if at_least == "all" else int(at_least)


def seeds_where(clause: SeedsWhere, model: str, src: Source) -> np.ndarray:
    out = []
    for condition in clause.conditions:
        metrics = src.seed_metrics(model, condition)
        if metrics is None:
            out.append(_unknown(src.draws))
            continue
        hits = count_seeds(metrics, clause.tests, clause.how)
        n = metrics[clause.tests[0].metric].shape[-1]
        out.append(truth(hits >= seeds_needed(clause.at_least, n)))
    return all_of(out)


def summary(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw: the mean difference and the numbers of positive and negative seeds."""
    return d.mean(axis=-1), (d > 0).sum(axis=-1), (d < 0).sum(axis=-1)


def _enough(rule: SeedCount, count: np.ndarray, n: int) -> np.ndarray:
    if rule.at_least_fraction is not None:
        return count >= rule.at_least_fraction * n
    return count >= seeds_needed(rule.at_least, n)


def contrast(clause: Contrast, model: str | None, src: Source) -> np.ndarray:
    d = src.differences(clause.comparison, model)
    if d is None:
        return _unknown(src.draws)
    mean, positive, negative = summary(d)
    n = d.shape[-1]
    oks = []
    if clause.mean is not None:
        oks.append(OPS[clause.mean.op](mean, clause.mean.value))
    if clause.abs_mean is not None:
        oks.append(OPS[clause.abs_mean.op](np.abs(mean), clause.abs_mean.value))
    for rule, count in ((clause.positive, positive), (clause.negative, negative)):
        if rule is not None:
            oks.append(_enough(rule, count, n))
    return all_of([truth(ok) for ok in oks]) if oks else np.full(src.draws, TRUE, dtype=np.int8)


def contrast_pair(clause: ContrastPair, model: str | None, src: Source) -> np.ndarray:
    left, right = (src.differences(c, model) for c in (clause.left, clause.right))
    if left is None or right is None:
        return _unknown(src.draws)
    return truth(OPS[clause.op](left.mean(axis=-1), right.mean(axis=-1)))


def clause_truth(clause: Clause, model: str | None, src: Source) -> np.ndarray:
    if isinstance(clause, SeedsWhere):
        return seeds_where(clause, model, src)
    if isinstance(clause, ContrastPair):
        return contrast_pair(clause, model, src)
    return contrast(clause, model, src)


def regime_level(rule: Regime, model: str, src: Source) -> np.ndarray | None:
    """Per draw, the mean over seeds of the regime's metric (NaN if no seed has a value);
    None when a session is missing."""
    metrics = src.seed_metrics(model, rule.condition)
    if metrics is None:
        return None
    x = metrics[rule.metric]
    have = ~np.isnan(x)
    count = have.sum(axis=-1)
    total = np.where(have, x, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def regime_codes(rule: Regime, level: np.ndarray) -> np.ndarray:
    """0 drift, 1 no drift, -1 undetermined (between the thresholds, or no value)."""
    return np.where(level < rule.drift_below, 0,
                    np.where(level >= rule.no_drift_at_least, 1, -1)).astype(np.int8)


def entry_truth(p: Prediction, model: str | None, src: Source) -> np.ndarray:
    """The combined truth of a prediction's or falsification rule's clauses, per draw."""
    if model is not None and not src.has_model(model):
        return _unknown(src.draws)
    if p.regime is not None:
        level = regime_level(p.regime, model, src)
        if level is None:
            return _unknown(src.draws)
        codes = regime_codes(p.regime, level)
        out = _unknown(src.draws)
        for code, clauses in ((0, p.regime.drift), (1, p.regime.no_drift)):
            if (codes == code).any():
                got = all_of([clause_truth(c, model, src) for c in clauses])
                out = np.where(codes == code, got, out).astype(np.int8)
        return out
    combine = any_of if p.combine == "any" else all_of
    return combine([clause_truth(c, model, src) for c in p.clauses])


def verdict_index(p: Prediction, model: str | None, src: Source) -> np.ndarray:
    """Per draw, the index of the entry's verdict in ``VERDICTS[p.kind]``."""
    if p.catch_up is not None:
        rule = p.catch_up
        d = src.differences(rule.comparison, None)
        if d is None:
            return np.full(src.draws, 3, dtype=np.int8)
        mean = d.mean(axis=-1)
        return np.where(mean >= rule.exceeds_at_least, 0,
                        np.where(mean >= rule.catches_up_at_least, 1, 2)).astype(np.int8)
    ok = entry_truth(p, model, src)
    return np.where(ok == TRUE, 0, np.where(ok == FALSE, 1, 2)).astype(np.int8)
