"""Exact cases of the issue: power of the sign test when every seed favours FSM, and when each
seed favours it with probability q (against the binomial tail computed with scipy)."""

from __future__ import annotations

import math

import pytest
from scipy.stats import binom

from study.protocol.plan import load_plan
from analysis.power.run import run_power

from .conftest import two_conditions

SEEDS = list(range(3, 16))


def test_every_seed_fsm_above_remind_loop_gives_power_one_from_six_seeds(effects_file, load):
    model = load(effects_file(two_conditions({"fc": 150}, {"fc": {"values": [20, 40, 60]}})))
    r = run_power(model, load_plan(), SEEDS, draws=2000, rng_seed=3)
    for test in ("Sign", "Wilcoxon"):
        got = {n: r.power("fc_fsm_remind_loop", test, n) for n in SEEDS}
        assert got == {n: (1.0 if n >= 6 else 0.0) for n in SEEDS}, test
    # the verdict rules see the same draws: 'positive in >= 7/8' holds at 8 seeds, so P3's
    # contrast never fails it, and the falsification rule is never triggered
    assert r.probability("F", "triggered", 8) == 0.0
    assert r.probability("F", "not triggered", 8) == 1.0


def sign_threshold(n: int) -> int | None:
    """Smallest count k of positive seeds whose two-sided sign-test p is <= 0.05 (None: none)."""
    for k in range(n + 1):
        if k > n / 2 and min(1.0, 2 * binom.sf(k - 1, n, 0.5)) <= 0.05:
            return k
    return None


@pytest.mark.parametrize("tenths", [3, 6, 9])
def test_sign_power_equals_the_binomial_tail(effects_file, load, tenths):
    q = tenths / 10
    # FSM's FC is 100; Remind-loop's is 0 with probability q and 200 otherwise: P(FSM > RL) = q
    values = [0] * tenths + [200] * (10 - tenths)
    model = load(effects_file(two_conditions({"fc": 100}, {"fc": {"values": values}})))
    draws = 20_000
    r = run_power(model, load_plan(), [4, 5, 8, 12, 15], draws=draws, rng_seed=tenths)
    for n in (4, 5, 8, 12, 15):
        k = sign_threshold(n)
        want = 0.0 if k is None else float(binom.sf(k - 1, n, q))
        got = r.power("fc_fsm_remind_loop", "Sign", n)
        if k is None:
            assert got == 0.0
            continue
        se = math.sqrt(max(want * (1 - want), 1e-9) / draws)
        assert abs(got - want) <= 4 * se, (q, n, got, want)
    assert sign_threshold(5) is None and sign_threshold(6) == 6 and sign_threshold(8) == 8  # 7/8: p = 0.0703
    assert sign_threshold(12) == 10
