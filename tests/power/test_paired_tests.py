"""The vectorised p values of study power equal Table 7's functions on every pattern."""

from __future__ import annotations

import itertools

import numpy as np

from analysis.power.paired_tests import sign_power, unique_rows, wilcoxon_p
from analysis.statistics import sign_test, wilcoxon_test


def all_sign_patterns(magnitudes: list[float]) -> np.ndarray:
    return np.array([np.multiply(signs, magnitudes) for signs in
                     itertools.product((1, -1), repeat=len(magnitudes))], dtype=float)


def test_wilcoxon_p_equals_wilcoxon_test_with_and_without_ties_and_zeros():
    cases = [[1, 2, 3, 4, 5, 6, 7, 8], [3, 3, 5, 7, 7, 7, 9, 10], [0, 2, 2, 4, 0, 6],
             [5, 5, 5, 5, 5], [0, 0, 0], [1.5, 2.5, 2.5, 9, 11, 12, 13, 14, 20, 21]]
    for magnitudes in cases:
        d = all_sign_patterns(magnitudes)
        p, w_pos, w_neg = wilcoxon_p(d)
        want = np.array([wilcoxon_test(row) for row in d])
        np.testing.assert_allclose(p, want, rtol=1e-12, atol=0)
        assert ((p <= 0.05) == (want <= 0.05)).all()
        assert (w_pos - w_neg == [2 * sum(np.sign(x) * r for x, r in zip(row, _ranks(row))) for row in d]).all()


def _ranks(row):
    from scipy.stats import rankdata
    nz = row[row != 0]
    ranks = np.zeros_like(row)
    ranks[row != 0] = rankdata(np.abs(nz))
    return ranks


def test_sign_power_counts_only_significant_draws_in_the_predicted_direction():
    d = np.array([[1] * 6, [-1] * 6, [1] * 5 + [-1], [1] * 5 + [0]], dtype=float)
    assert [sign_test(row) <= 0.05 for row in d] == [True, True, False, False]
    assert sign_power(d, 0.05) == 0.25    # only the first: the second is significant the other way


def test_unique_rows_matches_numpy():
    x = np.random.default_rng(1).integers(0, 3, size=(500, 4))
    rows, first, inverse = unique_rows(x)
    want, want_first, want_inverse = np.unique(x, axis=0, return_index=True, return_inverse=True)
    assert (rows == want).all() and (first == want_first).all()
    assert (inverse == want_inverse.reshape(-1)).all()
