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
from typing import Any, Protocol

import numpy as np

from .plan import OPS

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


def count_seeds(metrics: Mapping[str, np.ndarray], tests: list, how: str) -> np.ndarray:
    """Per draw, the seeds whose session satisfies ``all`` (or ``any``) of [metric, op, value]."""
    sat = [OPS[op](metrics[m], v) for m, op, v in tests]
    ok = np.logical_and.reduce(sat) if how == "all" else np.logical_or.reduce(sat)
    return ok.sum(axis=-1)


def seeds_needed(at_least: Any, seeds: int) -> int:
    return seeds if at_least == "all" else int(at_least)


def seeds_where(clause: dict, model: str, src: Source) -> np.ndarray:
    sw = clause["seeds_where"]
    how = "all" if "all" in sw else "any"
    out = []
    for condition in sw["conditions"]:
        metrics = src.seed_metrics(model, condition)
        if metrics is None:
            out.append(_unknown(src.draws))
            continue
        hits = count_seeds(metrics, sw[how], how)
        n = metrics[sw[how][0][0]].shape[-1]
        out.append(truth(hits >= seeds_needed(clause["at_least"], n)))
    return all_of(out)


def summary(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw: the mean difference and the numbers of positive and negative seeds."""
    return d.mean(axis=-1), (d > 0).sum(axis=-1), (d < 0).sum(axis=-1)


def contrast(clause: dict, model: str | None, src: Source) -> np.ndarray:
    d = src.differences(clause["contrast"], model)
    if d is None:
        return _unknown(src.draws)
    mean, positive, negative = summary(d)
    n = d.shape[-1]
    oks = []
    if "mean" in clause:
        op, v = clause["mean"]
        oks.append(OPS[op](mean, v))
    if "abs_mean" in clause:
        op, v = clause["abs_mean"]
        oks.append(OPS[op](np.abs(mean), v))
    for key, count in (("positive", positive), ("negative", negative)):
        if key in clause:
            rule = clause[key]
            if "at_least_fraction" in rule:
                oks.append(count >= rule["at_least_fraction"] * n)
            else:
                oks.append(count >= seeds_needed(rule["at_least"], n))
    return all_of([truth(ok) for ok in oks]) if oks else np.full(src.draws, TRUE, dtype=np.int8)


def contrast_pair(clause: dict, model: str | None, src: Source) -> np.ndarray:
    pair = clause["contrast_pair"]
    left, right = (src.differences(pair[k], model) for k in ("left", "right"))
    if left is None or right is None:
        return _unknown(src.draws)
    return truth(OPS[pair["op"]](left.mean(axis=-1), right.mean(axis=-1)))


def clause_truth(clause: dict, model: str | None, src: Source) -> np.ndarray:
    for kind, rule in (("seeds_where", seeds_where), ("contrast_pair", contrast_pair),
                       ("contrast", contrast)):
        if kind in clause:
            return rule(clause, model, src)
    raise AssertionError(clause)  # load_plan admits only these kinds


def regime_level(rule: dict, model: str, src: Source) -> np.ndarray | None:
    """Per draw, the mean over seeds of the regime's metric (NaN if no seed has a value);
    None when a session is missing."""
    metrics = src.seed_metrics(model, rule["condition"])
    if metrics is None:
        return None
    x = metrics[rule["metric"]]
    have = ~np.isnan(x)
    count = have.sum(axis=-1)
    total = np.where(have, x, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def regime_codes(rule: dict, level: np.ndarray) -> np.ndarray:
    """0 drift, 1 no drift, -1 undetermined (between the thresholds, or no value)."""
    return np.where(level < rule["drift_below"], 0,
                    np.where(level >= rule["no_drift_at_least"], 1, -1)).astype(np.int8)


def entry_truth(p: dict, model: str | None, src: Source) -> np.ndarray:
    """The combined truth of a prediction's or falsification rule's clauses, per draw."""
    if model is not None and not src.has_model(model):
        return _unknown(src.draws)
    if "by_regime" in p:
        level = regime_level(p["regime"], model, src)
        if level is None:
            return _unknown(src.draws)
        codes = regime_codes(p["regime"], level)
        out = _unknown(src.draws)
        for code, name in ((0, "drift"), (1, "no_drift")):
            if (codes == code).any():
                got = all_of([clause_truth(c, model, src) for c in p["by_regime"][name]])
                out = np.where(codes == code, got, out).astype(np.int8)
        return out
    combine, clauses = (any_of, p["any"]) if "any" in p else (all_of, p["all"])
    return combine([clause_truth(c, model, src) for c in clauses])


def verdict_index(p: dict, model: str | None, src: Source) -> np.ndarray:
    """Per draw, the index of the entry's verdict in ``VERDICTS[p["kind"]]``."""
    if p["kind"] == "catch_up":
        d = src.differences(p["contrast"], None)
        if d is None:
            return np.full(src.draws, 3, dtype=np.int8)
        mean = d.mean(axis=-1)
        return np.where(mean >= p["exceeds_at_least"], 0,
                        np.where(mean >= p["catches_up_at_least"], 1, 2)).astype(np.int8)
    ok = entry_truth(p, model, src)
    return np.where(ok == TRUE, 0, np.where(ok == FALSE, 1, 2)).astype(np.int8)
