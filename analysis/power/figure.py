"""``study power``'s figures: small multiples, one panel per prediction and one per comparison.

- ``verdict_figure``: one panel per entry of the plan (P1 … K2), the probability of its positive
  verdict(s) by number of seeds — P(holds), P(triggered), or P(exceeds) and P(catches up) — one
  line per model of a multi-model entry (a colour per model, the same in every panel), and
  P(not evaluable) dotted where it is not zero. The figure's legend gives the colours (models,
  the same in every panel) and the line styles (verdicts).
- ``paired_tests_figure``: one panel per model × comparison of Table 12, the power of the sign test
  (solid, circles) and of the Wilcoxon test (dashed, squares), with the 0.8 line; one legend for
  the figure, since every panel draws the same three things.

All panels share both axes (seeds per model, 0-1), so curves compare across panels. The figures
are 5.5 inches wide with 8-point text: at a paper's text width (4.8-6.5 inches) the text prints
at 7-9.5 points. Made from simulated sessions, their title starts with SIMULATED.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from ..figures import _save as save_figure  # noqa: E402
from ..verdicts import NOT_EVALUABLE  # noqa: E402
from .run import PowerResult, VerdictRow  # noqa: E402

WIDTH_IN, PANEL_IN, COLUMNS, TITLE_CHARS = 5.5, 1.55, 3, 27
#: The verdicts drawn (their complements are 1 minus them) and the line style of each.
SHOWN = {"holds": "-", "triggered": "-", "exceeds": "-", "catches up": "--", NOT_EVALUABLE: ":"}
VERDICT_STYLES = (("-", "P(holds), P(triggered) or P(exceeds)"), ("--", "P(catches up)"),
                  (":", "P(not evaluable)"))
#: Okabe-Ito, one per model (the same in every panel), in the plan's order of the entries.
MODEL_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000")
CROSS_MODEL = "cross-model"
SIGN, WILCOXON, THRESHOLD = ("#0072B2", "-", "o"), ("#E69F00", "--", "s"), 0.8
FONT = {"font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7,
        "ytick.labelsize": 7, "legend.fontsize": 7}


def _short(text: str) -> str:
    """A prediction's name: the text before its first colon (``No harm``), else the text."""
    head = text.split(":", 1)[0] if ":" in text else text
    return head.replace(">=", "≥").replace("<=", "≤")


def _grid(count: int, title: str) -> tuple[Figure, list]:
    rows = max(1, math.ceil(count / COLUMNS))
    fig, axes = plt.subplots(rows, COLUMNS, figsize=(WIDTH_IN, PANEL_IN * rows + 0.9), sharex=True,
                             sharey=True, squeeze=False, layout="constrained")
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.remove()
    fig.suptitle(title)
    return fig, flat[:count]


def _axes_style(ax, r: PowerResult, col: int, last_row: bool, ylabel: str) -> None:
    ax.set_ylim(-0.03, 1.03)
    ax.set_yticks([0, 0.5, 0.8, 1])
    step = max(1, math.ceil(len(r.seeds) / 6))
    ax.set_xticks(list(r.seeds)[::step])
    ax.grid(alpha=0.3)
    if col == 0:
        ax.set_ylabel(ylabel)
    if last_row:
        ax.set_xlabel("seeds per model")
        ax.xaxis.set_tick_params(labelbottom=True)


def _head(r: PowerResult) -> str:
    return "SIMULATED (made from simulated sessions; not results)\n" if r.effects.simulated else ""


def _owners(rows: list[VerdictRow]) -> list[str]:
    """The models the verdict rows are drawn for, in first-seen order ("cross-model" for none)."""
    return list(dict.fromkeys(row.owner or CROSS_MODEL for row in rows))


def verdict_figure(r: PowerResult) -> Figure:
    """Table 11 as small multiples: a panel per entry of the plan."""
    entries: dict[str, list[VerdictRow]] = {}
    for row in r.verdicts:
        if row.verdict in SHOWN:
            entries.setdefault(row.id, []).append(row)
    owners = _owners([row for rows in entries.values() for row in rows])
    colour = {o: MODEL_COLOURS[i % len(MODEL_COLOURS)] for i, o in enumerate(owners)}
    with plt.rc_context(FONT):
        fig, axes = _grid(len(entries), f"{_head(r)}Verdicts of the predictions by number of seeds\n"
                                        f"(effect model {r.effects.source}; {r.draws:,} draws)")
        for i, (ax, (pid, rows)) in enumerate(zip(axes, entries.items())):
            for row in rows:
                owner = row.owner or CROSS_MODEL
                ax.plot(r.seeds, row.probability, color=colour[owner], ls=SHOWN[row.verdict],
                        marker=None if row.verdict == NOT_EVALUABLE else "o", ms=2.5, lw=1.3,
                        label=f"{owner}: P({row.verdict})")
            ax.set_title("\n".join(textwrap.wrap(f"{pid}: {_short(rows[0].text)}", TITLE_CHARS)))
            _axes_style(ax, r, i % COLUMNS, i + COLUMNS >= len(axes), "probability")
        models = [Line2D([], [], color=colour[o], lw=2, label=o) for o in owners]
        verdicts = [Line2D([], [], color="#444444", ls=ls, label=text) for ls, text in VERDICT_STYLES]
        fig.legend(handles=models + verdicts, loc="outside lower center", ncol=2, frameon=False)
    return fig


def paired_tests_figure(r: PowerResult) -> Figure:
    """Table 12 as small multiples: a panel per model × comparison, sign and Wilcoxon power."""
    panels: dict[tuple[str, str], dict[str, tuple[float, ...]]] = {}
    for row in r.tests:
        panels.setdefault((row.group, row.comparison), {})[row.test] = row.power
    with plt.rc_context(FONT):
        fig, axes = _grid(len(panels), f"{_head(r)}Power of the paired tests (alpha = {r.alpha:g}) by number "
                                       f"of seeds\n(effect model {r.effects.source}; {r.draws:,} draws)")
        for i, (ax, ((group, comparison), powers)) in enumerate(zip(axes, panels.items())):
            for test, (colour, ls, marker) in (("Sign", SIGN), ("Wilcoxon", WILCOXON)):
                if test in powers:
                    ax.plot(r.seeds, powers[test], color=colour, ls=ls, marker=marker, ms=2.5, lw=1.3,
                            label=test)
            ax.axhline(THRESHOLD, color="#777777", lw=0.9, ls=":")
            ax.set_title("\n".join([group] + textwrap.wrap(comparison, TITLE_CHARS)))
            _axes_style(ax, r, i % COLUMNS, i + COLUMNS >= len(axes), "power")
        handles = [Line2D([], [], color=SIGN[0], ls=SIGN[1], marker=SIGN[2], ms=2.5, label="sign test"),
                   Line2D([], [], color=WILCOXON[0], ls=WILCOXON[1], marker=WILCOXON[2], ms=2.5,
                          label="Wilcoxon signed-rank"),
                   Line2D([], [], color="#777777", ls=":", label=f"power {THRESHOLD}")]
        fig.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False)
    return fig


def write_figures(r: PowerResult, out: Path) -> list[Path]:
    """power_curves_verdicts.png/.pdf and (if Table 12 has rows) power_curves_tests.png/.pdf."""
    paths = save_figure(verdict_figure(r), out, "power_curves_verdicts")
    if r.tests:
        paths += save_figure(paired_tests_figure(r), out, "power_curves_tests")
    return paths
