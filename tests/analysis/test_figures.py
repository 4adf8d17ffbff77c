"""The figures as a reader sees them: ticks for short runs, a legend of what occurs, headroom
above and below the FC windows, a style of its own per condition, attempts and real turn ends
apart in the heatmap (issue 14)."""

from __future__ import annotations

import pytest

from analysis import figures
from analysis.corpus import SessionWriter, write_session
from analysis.loading import load_corpus
from study.protocol.plan import load_plan
from analysis.tables import Analysis
from sopbench_tools.orders import order_for_seed

from .conftest import HAIKU


@pytest.fixture
def drawn(monkeypatch):
    """The figures' matplotlib objects instead of files."""
    kept: dict[str, object] = {}

    def keep(fig, _out, name):
        kept[name] = fig
        return []

    monkeypatch.setattr(figures, "_save", keep)
    yield kept
    for fig in kept.values():
        figures.plt.close(fig)


def analysis_of(root, tmp_path) -> Analysis:
    return Analysis.build(load_corpus(root), load_plan(), tmp_path / "prereg")


def test_a_short_run_has_ticks_and_its_legend_lists_only_outcomes_that_occur(tmp_path, drawn):
    root = tmp_path / "sessions"
    for condition in ("Remind-loop", "FSM"):
        write_session(root / HAIKU / condition / "seed-2", model=HAIKU, condition=condition, seed=2,
                      episodes=["fc"] * 8 + ["blind"] * 2, accounts=10)
    figures.figure1(analysis_of(root, tmp_path), tmp_path)
    ax = drawn["figure1"].axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["faithful and correct", "not compliant"]


def test_a_long_run_is_ticked_every_25_accounts():
    assert figures._account_ticks(200) == list(range(0, 201, 25))
    assert figures._account_ticks(60) == [0, 10, 20, 30, 40, 50, 60]
    assert figures._account_ticks(7) == list(range(8))


def test_fc_windows_leave_headroom_and_give_each_condition_its_own_style(tmp_path, drawn):
    root = tmp_path / "sessions"
    for condition in ("Plain", "Remind-loop", "FSM", "Gates-only"):   # identical series
        for seed in (2, 3):
            write_session(root / HAIKU / condition / f"seed-{seed}", model=HAIKU, condition=condition,
                          seed=seed, episodes=["fc"] * 20, accounts=20)
    figures.fc_windows(analysis_of(root, tmp_path), tmp_path)
    ax = drawn["fc_windows"].axes[0]
    low, high = ax.get_ylim()
    assert low < 0 and high > 20              # the 20 of a full window is not on the frame
    lines = ax.get_lines()[:4]
    styles = {(line.get_color(), line.get_marker()) for line in lines}
    assert len(styles) == 4                   # no series hides another's colour and marker
    assert len({tuple(line.get_xdata()) for line in lines}) == 4     # dodged side by side
    assert "#F0E442" not in {line.get_color() for line in lines}     # no faint yellow
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1-20"]
    assert drawn["fc_windows"]._suptitle.get_text().endswith("per 20 accounts")


def test_the_heatmap_counts_attempts_and_real_turn_ends_apart(tmp_path, drawn):
    root = tmp_path / "sessions"
    order = order_for_seed(2)[:3]
    w = SessionWriter(root / HAIKU / "FSM" / "seed-2", model=HAIKU, condition="FSM", seed=2, order=order)
    for _ in range(3):
        w.stop("blocked")                     # the stop gate blocks three attempts
    w.stop("ended")                           # one turn really ends
    w.end("ended_with_accounts_left", 1.0)
    w.write_meta(model=HAIKU, condition="FSM", seed=2, simulated=True)
    a = analysis_of(root, tmp_path)
    assert a.corpus.sessions.select("ends_turn", "turn_ends").row(0) == (4, 1)
    figures.routes_heatmap(a, tmp_path)
    ax = drawn["routes_heatmap"].axes[0]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[:2] == ["Attempts to end\nturn, accounts left", "Turn ends,\naccounts left"]
    cells = [t.get_text() for t in ax.texts]
    assert cells[:2] == ["1/1\n(4.0)", "1/1\n(1.0)"]
