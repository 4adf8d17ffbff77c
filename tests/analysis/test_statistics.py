"""The paired tests reproduce the published values listed in DESIGN.md "Statistics"."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.statistics import (bootstrap_cis, mcnemar_exact, paired_many, sign_test,
                                 wilcoxon_test)


@pytest.mark.parametrize("diffs, p", [
    ([5, 3, 4, 6, 7, 8, 9, -1], 0.0703),     # 7 of 8 positive
    ([5, 3, 4, 6, 7, 8, 9, 1], 0.0078),      # 8 of 8
    ([137, -19, -40], 1.0),                  # 1 of 3
    ([4, 0, 3, 0, 2, 5, 6, 7, 8, -1], 0.0703),  # zeros are dropped: 7 of 8 again
])
def test_sign_test_published_values(diffs, p):
    assert sign_test(diffs) == pytest.approx(p, abs=5e-5)


def test_wilcoxon_one_negative_at_rank_two_of_eight():
    # ranks of |d|: 1 -> 1, -2 -> 2, ...; W- = 2; p = 2 * 3/256
    assert wilcoxon_test([1, -2, 3, 4, 5, 6, 7, 8]) == pytest.approx(0.0234, abs=5e-5)
    assert wilcoxon_test([1, -2, 3, 4, 5, 6, 7, 8]) == 6 / 256


def test_wilcoxon_with_tied_ranks_is_the_exact_sign_flip_distribution():
    # |d| = 1, 1, 2: tied ranks 1.5, 1.5, 3. W+ over the 8 sign flips: 0,1.5,1.5,3,3,4.5,4.5,6;
    # observed W+ = 6 (all positive) -> two-sided p = 2 * P(W+ >= 6) = 2/8.
    assert wilcoxon_test([1, 1, 2]) == pytest.approx(0.25)
    assert wilcoxon_test([0, 0]) == 1.0


@pytest.mark.parametrize("b, c, p", [(7, 0, 0.0156), (17, 0, 1.53e-5)])
def test_exact_mcnemar_published_values(b, c, p):
    a = [True] * b + [False] * c + [True] * 50 + [False] * 30
    other = [False] * b + [True] * c + [True] * 50 + [False] * 30
    assert float(f"{mcnemar_exact(a, other):.3g}") == p   # to the published precision
    assert mcnemar_exact(a, other) == 2 * 0.5 ** b


def test_bootstrap_is_seeded_and_independent_of_other_contrasts():
    d1 = np.array([10.0, 20, 30, -5, 15, 25, 40, 5])
    alone = bootstrap_cis([d1])[0]
    together = bootstrap_cis([np.array([1.0, 2, 3]), d1, -d1])
    assert together[1] == alone
    assert together[2] == pytest.approx((-alone[1], -alone[0]))
    assert d1.min() < alone[0] < d1.mean() < alone[1] < d1.max()


def test_bootstrap_of_a_constant_difference_is_that_constant():
    assert bootstrap_cis([np.full(5, 7.0)]) == [(7.0, 7.0)]


def test_paired_summary():
    (p,) = paired_many([((2, 3, 4), np.array([137.0, -19, -40]))])
    assert (p.n, p.positive, p.negative, p.sign_p, p.wilcoxon_p) == (3, 1, 2, 1.0, 1.0)
    assert p.mean == pytest.approx(26.0)
    assert p.ci_low >= -40 and p.ci_high <= 137


def test_wilcoxon_with_ties_matches_scipys_exhaustive_permutation_test():
    from scipy import stats
    d = np.array([3, -3, 5, 1, 1, 7, -2, 5, 4, 6.0])
    slow = stats.wilcoxon(d, method=stats.PermutationMethod(n_resamples=2 ** d.size)).pvalue
    assert wilcoxon_test(d) == pytest.approx(slow, abs=1e-12)
