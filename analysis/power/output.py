"""``study power``'s tables (through ``analysis.render``, like every other table) and figure."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..figures import _save as save_figure  # noqa: E402
from ..render import Cell, Column, Table, csv_number  # noqa: E402
from ..tables import SIMULATED_TITLE  # noqa: E402
from .run import PowerResult  # noqa: E402

#: Table numbers after the paper's ten, so no power table is mistaken for one of the paper's.
VERDICT_TABLE, TEST_TABLE = 11, 12
COLOURS = ("#0072B2", "#E69F00", "#56B4E9", "#CC79A7", "#009E73", "#D55E00", "#000000",
           "#F0E442", "#999999")


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
               "rule) the regime is undetermined in that draw.", _mc_note(r)]
    t.notes += [f"{pid}: {text}" for pid, text in texts.items()]
    return t


def test_table(r: PowerResult) -> PowerTable:
    t = PowerTable(TEST_TABLE, _title(r, f"Power of the paired tests at alpha = {r.alpha:g}"),
                   "Model", [Column("Comparison"), Column("Test")] + _seed_columns(r), file="power_tests")
    for row in r.tests:
        t.rows.append((row.group, [Cell(row.comparison), Cell(row.test)] + [_prob(x) for x in row.power]))
    t.notes = ["Power: the share of draws whose exact two-sided p <= alpha with the difference in the "
               "predicted direction (a > b); p values as in Table 7.", _mc_note(r)]
    if not r.tests:
        t.notes.insert(0, "No rows: the effect model gives both sides of no comparison of the plan.")
    return t


def write_figure(r: PowerResult, out: Path) -> list[Path]:
    """power_curves.png/.pdf: P(holds) / P(triggered) / P(exceeds) per entry, and test power."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.6), sharey=True)
    first = {"prediction": "holds", "falsification": "triggered", "catch_up": "exceeds"}
    wanted = set(first.values())
    shown = [row for row in r.verdicts if row.verdict in wanted]
    for i, row in enumerate(shown):
        label = f"{row.id}{f' [{row.model}]' if row.model else ''}: P({row.verdict})"
        left.plot(r.seeds, row.probability, marker="o", ms=3, lw=1.2,
                  color=COLOURS[i % len(COLOURS)], ls=("-", "--", ":")[i // len(COLOURS) % 3], label=label)
    left.set_title("Verdicts of the predictions")
    left.set_xlabel("seeds per model")
    left.set_ylabel("probability")
    for i, row in enumerate(r.tests):
        right.plot(r.seeds, row.power, marker="o" if row.test == "Sign" else "s", ms=3, lw=1.2,
                   color=COLOURS[(i // 2) % len(COLOURS)], ls="-" if row.test == "Sign" else "--",
                   label=f"{row.group}: {row.comparison} ({row.test})")
    right.axhline(0.8, color="#999999", lw=0.8, ls=":")
    right.set_title(f"Power of the paired tests (alpha = {r.alpha:g})")
    right.set_xlabel("seeds per model")
    for ax in (left, right):
        ax.set_ylim(-0.02, 1.02)
        ax.set_xticks(list(r.seeds))
        ax.grid(alpha=0.3)
        ax.legend(fontsize=5.5, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, frameon=False)
    head = "SIMULATED (made by the simulator; not results)\n" if r.effects.simulated else ""
    fig.suptitle(f"{head}study power: effect model {r.effects.source}; {r.draws:,} draws", fontsize=9)
    return save_figure(fig, out, "power_curves")
