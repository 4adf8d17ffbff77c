"""The power figures' layout, read from the matplotlib Figure objects (no image compared): a
panel per entry of the plan and per model x comparison, shared axes, the 0.8 line, and legends
that name exactly what is drawn."""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import pytest

from study.protocol.plan import load_plan
from analysis.power.figure import paired_tests_figure, verdict_figure, write_figures
from analysis.power.run import run_power

from .conftest import PAPER

ENTRIES = ["P1", "P2", "P3", "P4", "P5", "F", "E1", "E2", "E3", "EF", "K1", "K2"]
HAIKU, QWEN, SONNET = "Claude Haiku 4.5", "Qwen3.8-flash", "Claude Sonnet 4.6"


@pytest.fixture(scope="module")
def result():
    plan = load_plan()
    from analysis.power.effects import load_effects
    from study.protocol.conditions import condition_names
    return run_power(load_effects(PAPER, plan, condition_names()), plan, [3, 4, 5, 6, 7, 8], draws=200)


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_title()]


def _labels(ax) -> list[str]:
    return [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]


def _legend_texts(fig) -> list[list[str]]:
    return [[t.get_text() for t in legend.get_texts()] for legend in fig.legends]


def test_one_panel_per_prediction_with_its_models_lines_and_one_shared_legend(result):
    fig = verdict_figure(result)
    panels = _panels(fig)
    assert [ax.get_title().split(":")[0] for ax in panels] == ENTRIES
    by_id = {ax.get_title().split(":")[0]: _labels(ax) for ax in panels}
    assert by_id["P3"] == [f"{HAIKU}: P(holds)"]
    assert by_id["F"] == [f"{HAIKU}: P(triggered)"]
    assert by_id["E1"] == [f"{QWEN}: P(holds)", f"{QWEN}: P(not evaluable)",
                           f"{SONNET}: P(holds)", f"{SONNET}: P(not evaluable)"]
    assert by_id["EF"] == [f"{QWEN}: P(triggered)", f"{SONNET}: P(triggered)"]
    assert by_id["K1"] == ["cross-model: P(exceeds)", "cross-model: P(catches up)"]
    # one model, one colour, in every panel
    colours = {}
    for ax in panels:
        for line in ax.get_lines():
            colours.setdefault(line.get_label().split(":")[0], set()).add(line.get_color())
    assert all(len(c) == 1 for c in colours.values()) and len({next(iter(c)) for c in colours.values()}) == 4
    assert all(ax.get_legend() is None for ax in panels)
    assert _legend_texts(fig) == [[HAIKU, QWEN, SONNET, "cross-model",
                                   "P(holds), P(triggered) or P(exceeds)", "P(catches up)", "P(not evaluable)"]]
    assert all(ax.get_ylim() == panels[0].get_ylim() and ax.get_xlim() == panels[0].get_xlim() for ax in panels)
    assert fig.get_figwidth() == 5.5 and min(t.get_fontsize() for t in fig.legends[0].get_texts()) >= 7
    plt.close(fig)


def test_one_panel_per_model_and_comparison_with_sign_wilcoxon_and_the_08_line(result):
    fig = paired_tests_figure(result)
    panels = _panels(fig)
    groups = [ax.get_title().split("\n")[0] for ax in panels]
    assert groups == [HAIKU] * 4 + [SONNET] * 3 + [QWEN] * 3 + ["Cross-model"] * 3
    assert len(panels) == len(result.tests) // 2 == 13
    for ax in panels:
        assert _labels(ax) == ["Sign", "Wilcoxon"] and ax.get_legend() is None
        flat = [line for line in ax.get_lines() if line.get_label().startswith("_")]
        assert [tuple(line.get_ydata()) for line in flat] == [(0.8, 0.8)]
        assert ax.get_ylim() == panels[0].get_ylim() and ax.get_xlim() == panels[0].get_xlim()
    assert _legend_texts(fig) == [["sign test", "Wilcoxon signed-rank", "power 0.8"]]
    assert not fig._suptitle.get_text().startswith("SIMULATED")
    plt.close(fig)


def test_figures_of_simulated_sessions_are_titled_simulated(result, tmp_path):
    simulated = dataclasses.replace(result, effects=dataclasses.replace(result.effects, simulated=True))
    for make in (verdict_figure, paired_tests_figure):
        fig = make(simulated)
        assert fig._suptitle.get_text().startswith("SIMULATED (made from simulated sessions; not results)\n")
        plt.close(fig)
    names = [p.name for p in write_figures(simulated, tmp_path)]
    assert names == ["power_curves_verdicts.png", "power_curves_verdicts.pdf",
                     "power_curves_tests.png", "power_curves_tests.pdf"]
