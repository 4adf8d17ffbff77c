"""Power of Table 7's paired tests (exact sign and Wilcoxon signed-rank) on simulated differences.

A p value depends only on a draw's *pattern*, so each distinct pattern is computed once and
looked up for every draw that has it. Sign test: the numbers of positive and negative
differences; the p is ``analysis.statistics.sign_test`` (Table 7's function) run on the first
draw with that pattern. Wilcoxon: the doubled mid-ranks of the nonzero |differences| (their tie
structure) and the doubled sum of the positive ones, W; simulated counts tie often (clipped at
0 or 200), so running scipy per pattern took minutes. Per tie structure the exact null
distribution is counted once with ``statistics._signed_rank_counts`` and p = min(1, 2 min(P(W+ <=
w), P(W+ >= w))) read for every w: the formula ``statistics.wilcoxon_test`` uses with ties, and
equal to scipy's exact p without them (tests/power/test_paired_tests.py checks both against
``wilcoxon_test`` over every sign pattern of small samples). Power counts the draws whose
two-sided p is at most alpha *and* whose differences point the predicted way (more positive
seeds, or a larger positive rank sum): a significant result in the other direction is no success.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from ..statistics import _signed_rank_counts, sign_test

_CACHE: dict[tuple[str, bytes], float] = {}
_NULL: dict[bytes, np.ndarray] = {}


def unique_rows(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of an integer matrix (sorted), the first row index of each, and each row's
    distinct-row number. ``np.unique(axis=0)`` sorts rows as opaque bytes and took most of a
    run; a lexsort over the columns does the same in a fraction of the time."""
    order = np.lexsort(x.T[::-1])
    s = x[order]
    new = np.ones(len(s), dtype=bool)
    new[1:] = (s[1:] != s[:-1]).any(axis=1)
    group = np.cumsum(new) - 1
    inverse = np.empty(len(x), dtype=np.int64)
    inverse[order] = group
    return s[new], order[new], inverse


def _p_values(kind: str, keys: np.ndarray, d: np.ndarray, test) -> np.ndarray:
    """p per draw: the test run on the first draw of each distinct key row."""
    unique, first, inverse = unique_rows(keys)
    ps = np.empty(len(unique))
    for i, (row, at) in enumerate(zip(unique, first)):
        key = (kind, row.tobytes())
        if key not in _CACHE:
            _CACHE[key] = test(d[at])
        ps[i] = _CACHE[key]
    return ps[inverse]


def sign_power(d: np.ndarray, alpha: float) -> float:
    """Share of draws (rows of ``d``, one column per seed) where the sign test rejects, a > b."""
    pos, neg = (d > 0).sum(axis=1), (d < 0).sum(axis=1)
    p = _p_values("sign", np.stack([pos, neg], axis=1), d, sign_test)
    return float(((p <= alpha) & (pos > neg)).mean())


def wilcoxon_p_table(doubled: np.ndarray) -> np.ndarray:
    """p for every doubled positive-rank sum w = 0 .. sum, given the doubled mid-ranks."""
    key = np.sort(doubled).tobytes()
    if key not in _NULL:
        counts = _signed_rank_counts(np.sort(doubled))
        total = counts.sum()
        below = np.cumsum(counts)                         # exact: integer counts below 2**53
        lower = below / total
        upper = (total - np.concatenate([[0.0], below[:-1]])) / total
        _NULL[key] = np.minimum(1.0, 2 * np.minimum(lower, upper))
    return _NULL[key]


def wilcoxon_p(d: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per draw (rows of ``d``): the two-sided exact Wilcoxon p, doubled W+ and doubled W-."""
    nonzero = d != 0
    zeros = (~nonzero).sum(axis=1, keepdims=True)
    # zeros are dropped: rank them below everything, then shift the others down past them
    ranked = rankdata(np.where(nonzero, np.abs(d), -1.0), axis=1)
    doubled = np.where(nonzero, np.rint(2 * (ranked - zeros)), 0).astype(np.int64)
    w_pos = np.where(d > 0, doubled, 0).sum(axis=1)
    structures, _first, inverse = unique_rows(np.sort(doubled, axis=1))
    tables = [wilcoxon_p_table(row[row > 0]) for row in structures]
    width = max(len(t) for t in tables)
    padded = np.ones((len(tables), width))
    for i, t in enumerate(tables):
        padded[i, : len(t)] = t
    return padded[inverse, w_pos], w_pos, doubled.sum(axis=1) - w_pos


def wilcoxon_power(d: np.ndarray, alpha: float) -> float:
    """Share of draws where the two-sided Wilcoxon signed-rank test rejects, a > b."""
    p, w_pos, w_neg = wilcoxon_p(d)
    return float(((p <= alpha) & (w_pos > w_neg)).mean())
