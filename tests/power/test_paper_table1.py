"""The paper's Table 1 as the effect model: P3's and the falsification rule's probabilities at
8 seeds, as `study power` prints them, against a separate slow simulation written here from the
effect model's definition and the rules' text (pure Python, its own random generator)."""

from __future__ import annotations

import math

import pytest
import random
from statistics import NormalDist

from .conftest import PAPER, csv_rows, run_cli

DRAWS_CLI, DRAWS_SLOW = 10_000, 40_000
# Table 1, Claude Haiku 4.5: (FC mean, FC s.d.); FSM compliance per-seed values (file header)
FC = {"FSM": (139.2, 33.8), "Plain-loop": (18.2, 12.1), "Sys-loop": (40.9, 47.0), "Remind-loop": (48.4, 52.6)}
FSM_COMPLIANCE = [0.80, 0.80, 0.98, 1.0, 1.0, 1.0, 1.0, 1.0]


def slow_probabilities(draws: int, seeds: int = 8) -> tuple[float, float]:
    """(P(P3 holds), P(F triggered)), one study at a time."""
    rng, phi = random.Random(20261130), NormalDist().cdf
    holds = triggered = 0
    for _ in range(draws):
        compliant_all, d_remind, d_best = True, [], []
        for _seed in range(seeds):
            fc = {}
            for condition, (mean, sd) in FC.items():
                z = rng.gauss(0.0, 1.0)
                fc[condition] = min(200, max(0, round(mean + sd * z)))
                if condition == "FSM":   # FC and compliance rise together within a session
                    quantile = FSM_COMPLIANCE[min(int(phi(z) * 8), 7)]
                    compliant_all &= quantile >= 0.95
            d_remind.append(fc["FSM"] - fc["Remind-loop"])
            d_best.append(fc["FSM"] - max(fc["Plain-loop"], fc["Sys-loop"], fc["Remind-loop"]))
        mean_r, mean_b = sum(d_remind) / seeds, sum(d_best) / seeds
        # P3: decided 200 (a constant) and compliance >= 95% in every seed; FSM - Remind-loop
        # >= 30 on average and positive in >= 7; conservative contrast >= 20, positive in >= 6
        holds += (compliant_all and mean_r >= 30 and sum(d > 0 for d in d_remind) >= 7
                  and mean_b >= 20 and sum(d > 0 for d in d_best) >= 6)
        # F: mean FSM - Remind-loop <= 0, or at least half the seeds negative
        triggered += mean_r <= 0 or sum(d < 0 for d in d_remind) >= 0.5 * seeds
    return holds / draws, triggered / draws


def test_p3_and_falsification_at_eight_seeds_within_three_standard_errors():
    result = run_cli("--effects", str(PAPER), "--seeds", "8", "--draws", str(DRAWS_CLI), "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = {(r[0], r[1]): float(r[2]) for r in csv_rows(result.output) if len(r) == 3 and r[0] in ("P3", "F")}
    got_p3, got_f = rows[("P3", "holds")], rows[("F", "triggered")]
    want_p3, want_f = slow_probabilities(DRAWS_SLOW)
    for got, want in ((got_p3, want_p3), (got_f, want_f)):
        se = math.sqrt(max(want * (1 - want), 1e-4) * (1 / DRAWS_CLI + 1 / DRAWS_SLOW))
        assert abs(got - want) <= 3 * se, (got, want, se)
    # what the run printed, for the record (the falsification rule is rare under Table 1)
    assert 0.05 < got_p3 < 0.15 and got_f < 0.01
    assert rows[("P3", "fails")] == pytest.approx(1 - got_p3, abs=1e-12)
