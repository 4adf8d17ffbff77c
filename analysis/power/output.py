"""``study power``'s tables, through ``analysis.render`` like every other table (the figures:
``analysis.power.figure``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..render import Cell, Column, Table, csv_number
from ..statistics import sign_test
from ..tables import SIMULATED_TITLE
from .run import PowerResult

#: Table numbers after the paper's ten, so no power table is mistaken for one of the paper's.
VERDICT_TABLE, TEST_TABLE = 11, 12


@dataclass
class PowerTable(Table):
    """A table written to ``<file>.<format>`` instead of ``table<N>``."""

    file: str = "power"

    @property
    def name(self) -> str:
        return self.file


def _prob(x: float) -> Cell:
    return Cell(f"{x:.3f}", (csv_number(x),))


def _title(r: PowerResult, text: str) -> str:
    head = SIMULATED_TITLE if r.effects.simulated else ""
    return f"{head}{text} (effect model: {r.effects.source}; {r.draws:,} draws, rng seed {r.rng_seed})"


def _seed_columns(r: PowerResult) -> list[Column]:
    return [Column(str(n), (f"{n} seeds",)) for n in r.seeds]


def _mc_note(r: PowerResult) -> str:
    return (f"Monte Carlo standard error of a probability p: sqrt(p(1 - p) / {r.draws:,}), "
            f"at most {0.5 / r.draws ** 0.5:.4f}.")


def verdict_table(r: PowerResult) -> PowerTable:
    t = PowerTable(VERDICT_TABLE, _title(r, "Probability of each verdict by number of seeds"),
                   "Prediction", [Column("Verdict")] + _seed_columns(r), file="power_verdicts")
    texts: dict[str, str] = {}
    for row in r.verdicts:
        name = row.id + (f" [{row.model}]" if row.model else "")
        texts.setdefault(row.id, row.text)
        t.rows.append((name, [Cell(row.verdict)] + [_prob(x) for x in row.probability]))
    t.notes = ["Columns: seeds per model (every model, the ablation and the cross-model "
               "comparisons get that many seeds); verdicts from the code of Table 6.",
               "Not evaluable: a condition the entry reads is not in the effect model, or (a regime "
               "rule) the regime is undetermined in that draw.",
               "Seed counts the plan writes as counts stay counts (P1's \">= 6/8 seeds\" needs 6 seeds "
               "whatever the number of seeds), so such an entry fails in every draw below that count.",
               _mc_note(r)]
    t.notes += [f"{pid}: {text}" for pid, text in texts.items()]
    return t


def test_table(r: PowerResult) -> PowerTable:
    t = PowerTable(TEST_TABLE, _title(r, f"Power of the paired tests at alpha = {r.alpha:g}"),
                   "Model", [Column("Comparison"), Column("Test")] + _seed_columns(r), file="power_tests")
    for row in r.tests:
        t.rows.append((row.group, [Cell(row.comparison), Cell(row.test)] + [_prob(x) for x in row.power]))
    t.notes = ["Power: the share of draws whose exact two-sided p <= alpha with the difference in the "
               "predicted direction (a > b); p values as in Table 7."] + exact_test_notes(r.seeds, r.alpha) \
        + [_mc_note(r)]
    if not r.tests:
        t.notes.insert(0, "No rows: the effect model gives both sides of no comparison of the plan.")
    return t


def _p(x: float) -> str:
    return f"{x:.5f}".rstrip("0")


def sign_critical(n: int, alpha: float) -> int | None:
    """The fewest positive differences among ``n`` nonzero ones with which the exact two-sided
    sign test rejects at ``alpha`` (None: not even all ``n``)."""
    return next((k for k in range(n // 2 + 1, n + 1) if sign_test([1] * k + [-1] * (n - k)) <= alpha), None)


def exact_test_notes(seeds: tuple[int, ...], alpha: float) -> list[str]:
    """Why power is 0 at few seeds, and why the sign test's power saw-tooths: both tests are
    exact, so their p values take few values. n counts the nonzero differences (zeros are dropped)."""
    smallest = next((n for n in range(1, 64) if 2 * 0.5 ** n <= alpha), None)
    low = [n for n in seeds if smallest is None or n < smallest]
    floor = ("The smallest two-sided p either test can reach with n seeds (every difference positive) is "
             "2 x 0.5^n: " + ", ".join(f"{_p(2 * 0.5 ** n)} ({n} seeds)" for n in
                                       sorted(set(low[-3:] + ([smallest] if smallest else []))))
             + (f". So below {smallest} seeds neither test can reject at alpha = {alpha:g}, and their "
                "power is 0.000; ties that zero a difference lower n further." if low else "."))
    ks = [(n, sign_critical(n, alpha)) for n in seeds]
    needs = ", ".join(f"{k} of {n}" for n, k in ks if k is not None)
    if not needs:
        return [floor]
    return [floor, f"The sign test rejects only with at least k of n differences positive: {needs}. "
                   "Where one more seed raises k too, a rejection needs one more positive seed and "
                   "power falls; where k stays, the extra seed only adds chances and power rises: hence "
                   "the saw-tooth. The Wilcoxon test also weighs the sizes of the differences, so its "
                   "p values are finer and its curve smoother."]
