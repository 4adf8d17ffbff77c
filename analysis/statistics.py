"""Paired statistics over seeds (DESIGN.md "Statistics").

For paired differences d (one per seed): the mean; a percentile bootstrap 95% CI with 10,000
resamples from a fixed seed, vectorised with numpy (all contrasts with the same number of seeds
share one resample-index matrix, so a contrast's CI never depends on which others are computed);
the exact two-sided sign test (scipy ``binomtest``, zero differences dropped); and the exact
two-sided Wilcoxon signed-rank test (scipy's exact distribution; zero differences dropped). With
tied absolute differences scipy offers only a slow permutation test or the normal approximation,
so the exact null distribution of the mid-rank statistic is counted here by hand
(``_signed_rank_counts``). For paired per-task outcomes, the exact McNemar test (statsmodels).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

#: Bootstrap resamples and the seed of their generator (fixed: same CIs every run).
RESAMPLES = 10_000
BOOTSTRAP_SEED = 20_240_601


@dataclass(frozen=True)
class Paired:
    """A paired comparison over seeds: differences a − b and their summary and tests."""

    seeds: tuple[int, ...]
    differences: tuple[float, ...]
    ci_low: float
    ci_high: float
    sign_p: float
    wilcoxon_p: float

    @property
    def n(self) -> int:
        return len(self.differences)

    @property
    def mean(self) -> float:
        return float(np.mean(self.differences))

    @property
    def positive(self) -> int:
        return sum(d > 0 for d in self.differences)

    @property
    def negative(self) -> int:
        return sum(d < 0 for d in self.differences)


def sign_test(differences) -> float:
    """Exact two-sided sign test p; zero differences are dropped (p = 1 if none remain)."""
    d = np.asarray(differences, dtype=float)
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    if pos + neg == 0:
        return 1.0
    return float(stats.binomtest(pos, pos + neg, 0.5, alternative="two-sided").pvalue)


def wilcoxon_test(differences) -> float:
    """Exact two-sided Wilcoxon signed-rank p; zeros dropped (p = 1 if none remain).

    Without ties: scipy's exact distribution. With tied absolute differences (mid-ranks): the
    exact distribution of W+ over all 2^n equally likely sign patterns, counted by
    ``_signed_rank_counts``; p = min(1, 2 min(P(W+ <= w), P(W+ >= w))), as scipy's permutation
    version computes it.
    """
    d = np.asarray(differences, dtype=float)
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    if np.unique(np.abs(d)).size == d.size:
        return float(stats.wilcoxon(d, zero_method="wilcox", alternative="two-sided",
                                    method="exact").pvalue)
    doubled = np.rint(2 * stats.rankdata(np.abs(d))).astype(int)   # mid-ranks are halves
    counts = _signed_rank_counts(doubled)
    observed = int(doubled[d > 0].sum())
    total = counts.sum()
    lower, upper = counts[: observed + 1].sum() / total, counts[observed:].sum() / total
    return float(min(1.0, 2 * min(lower, upper)))


def _signed_rank_counts(ranks: np.ndarray) -> np.ndarray:
    """counts[w] = number of sign patterns whose positive ranks sum to w (integer ranks)."""
    counts = np.zeros(int(ranks.sum()) + 1, dtype=np.float64)
    counts[0] = 1
    for r in ranks:
        shifted = np.zeros_like(counts)
        shifted[r:] = counts[:-r]
        counts = counts + shifted
    return counts


def mcnemar_exact(a, b) -> float:
    """Exact two-sided McNemar p for paired binary outcomes ``a`` and ``b`` (one per task)."""
    # imported only where a command needs it: no table computes McNemar's test, and statsmodels
    # (with the pandas it imports) took longer to import than the tables took to compute
    from statsmodels.stats.contingency_tables import mcnemar

    a, b = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    if a.shape != b.shape:
        raise ValueError(f"paired outcomes need equal lengths, got {a.size} and {b.size}")
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    return float(mcnemar(table, exact=True).pvalue)


#: Resamples per block of ``bootstrap_cis`` (a few MB at a time).
_BLOCK = 500


def bootstrap_cis(samples: list[np.ndarray], resamples: int = RESAMPLES,
                  seed: int = BOOTSTRAP_SEED) -> list[tuple[float, float]]:
    """Percentile 95% CI of the mean for each sample, vectorised per sample size."""
    out: list[tuple[float, float]] = [(float("nan"), float("nan"))] * len(samples)
    by_size: dict[int, list[int]] = {}
    for i, s in enumerate(samples):
        by_size.setdefault(len(s), []).append(i)
    for n, idx in sorted(by_size.items()):
        if n == 0:
            continue
        rows = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
        data = np.stack([np.asarray(samples[i], dtype=float) for i in idx])   # k × n
        # k × resamples, a block of resamples at a time: one k × resamples × n gather is 100 MB
        # for 24 contrasts over 50 seeds, and allocating it costs more than the arithmetic (each
        # mean is the same sum, in the same order, as in one block)
        means = np.concatenate([data[:, rows[b:b + _BLOCK]].mean(axis=2) for b in range(0, resamples, _BLOCK)],
                               axis=1)
        lo, hi = np.percentile(means, [2.5, 97.5], axis=1)
        for j, i in enumerate(idx):
            out[i] = (float(lo[j]), float(hi[j]))
    return out


def paired_many(pairs: list[tuple[tuple[int, ...], np.ndarray]]) -> list[Paired]:
    """``Paired`` for each (seeds, differences), with all bootstrap CIs in one vectorised pass."""
    cis = bootstrap_cis([d for _, d in pairs])
    return [Paired(seeds=tuple(seeds), differences=tuple(float(x) for x in d), ci_low=lo,
                   ci_high=hi, sign_p=sign_test(d), wilcoxon_p=wilcoxon_test(d))
            for (seeds, d), (lo, hi) in zip(pairs, cis)]
