"""Tables 11 and 12 say under them why test power is 0 at few seeds (the exact tests' smallest
attainable p) and why the sign test's power saw-tooths (the rejection count k(n) it needs)."""

from __future__ import annotations

from analysis.power.output import exact_test_notes, sign_critical

from .conftest import PAPER, run_cli


def test_sign_test_needs_these_positive_counts_at_alpha_005():
    assert [sign_critical(n, 0.05) for n in range(1, 16)] == [None] * 5 + [6, 7, 8, 8, 9, 10, 10, 11, 12, 12]
    assert sign_critical(6, 0.01) is None and sign_critical(8, 0.01) == 8


def test_notes_give_the_smallest_p_and_the_sign_tests_steps():
    floor, steps = exact_test_notes(tuple(range(3, 16)), 0.05)
    assert floor == ("The smallest two-sided p either test can reach with n seeds (every difference positive) "
                     "is 2 x 0.5^n: 0.25 (3 seeds), 0.125 (4 seeds), 0.0625 (5 seeds), 0.03125 (6 seeds). "
                     "So below 6 seeds neither test can reject at alpha = 0.05, and their power is 0.000; "
                     "ties that zero a difference lower n further.")
    assert steps.startswith("The sign test rejects only with at least k of n differences positive: 6 of 6, "
                            "7 of 7, 8 of 8, 8 of 9, 9 of 10, 10 of 11, 10 of 12, 11 of 13, 12 of 14, 12 of 15. ")
    assert "saw-tooth" in steps
    # with enough seeds only the formula, no "below" sentence
    assert exact_test_notes((8, 9), 0.05)[0].endswith("2 x 0.5^n: 0.03125 (6 seeds).")


def test_table_12_carries_the_notes_and_table_11_the_absolute_counts():
    result = run_cli("--effects", str(PAPER), "--seeds", "4-7", "--draws", "200", "--format", "md")
    assert result.exit_code == 0, result.output
    t11, t12 = result.output.split("**Table 12")
    assert "So below 6 seeds neither test can reject at alpha = 0.05" in t12
    assert "6 of 6, 7 of 7" in t12 and "saw-tooth" in t12
    assert "needs 6 seeds whatever the number of seeds" in t11
