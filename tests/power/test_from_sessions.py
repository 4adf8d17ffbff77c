"""--from-sessions over a simulator corpus: resampling the corpus' own seeds makes its observed
verdicts (Table 6, `study predictions`) the most likely ones at its own number of seeds."""

from __future__ import annotations

import pytest

from analysis.corpus import corpus_conditions, generate_corpus
from analysis.tables import load_analysis
from analysis.verdicts import NOT_EVALUABLE

from .conftest import csv_rows, run_cli

HAIKU, QWEN = "haiku-4.5", "qwen3.8-flash"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Haiku 4.5 on all conditions, seeds 2-9; Qwen3.8-flash on its three, its 8 planned seeds."""
    root = tmp_path_factory.mktemp("power_corpus") / "sessions"
    generate_corpus(root, models={HAIKU: list(corpus_conditions())}, seeds=list(range(2, 10)),
                    accounts=60, rng_seed=7)
    generate_corpus(root, models={QWEN: ["Plain", "Remind-loop", "FSM"]},
                    seeds=[2, 3, 4, 5, 6, 13, 14, 15], accounts=60, rng_seed=8)
    return root


def test_observed_verdicts_are_the_most_likely_at_the_corpus_seed_count(corpus):
    observed = load_analysis(corpus, allow_simulated=True).outcomes
    result = run_cli("--from-sessions", str(corpus), "--allow-simulated", "--seeds", "8",
                     "--draws", "4000", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "SIMULATED" in result.output.splitlines()[0]
    probs: dict[str, dict[str, float]] = {}
    for row in csv_rows(result.output):
        if len(row) == 3 and row[1] not in ("Verdict", "Test"):
            probs.setdefault(row[0], {})[row[1]] = float(row[2])
    checked: list[str] = []
    for o in observed:
        name = o.id + (f" [{o.model}]" if o.model else "")
        if o.verdict == NOT_EVALUABLE:   # no Sonnet 4.6 sessions; 60 accounts have no 4th window
            assert probs[name][NOT_EVALUABLE] == 1.0, name
            continue
        likely = max(probs[name], key=probs[name].get)
        assert likely == o.verdict, (name, o.observed, probs[name])
        checked.append(o.verdict)
    # P1, P2, P3, P4, F and Qwen's E1, E2, E3, EF: holds, fails and not triggered among them
    assert len(checked) == 9 and {"holds", "fails", "not triggered"} <= set(checked)


def test_a_simulated_pilot_is_refused_without_allow_simulated(corpus, tmp_path):
    out = tmp_path / "power"
    result = run_cli("--sessions", str(corpus), "--seeds", "8", "--draws", "200", "--out", str(out))
    assert result.exit_code == 2
    assert result.output.startswith(f"Error: {corpus}: the sessions are simulated")
    assert "--allow-simulated" in result.output and not out.exists()


def test_a_simulated_pilot_with_allow_simulated_titles_every_output_simulated(corpus, tmp_path):
    out = tmp_path / "power"
    result = run_cli("--sessions", str(corpus), "--allow-simulated", "--seeds", "6", "--draws", "200",
                     "--format", "md", "--format", "tex", "--out", str(out))
    assert result.exit_code == 0, result.output
    for name in ("power_verdicts.md", "power_tests.md"):
        assert (out / name).read_text().startswith("**Table 1")
        assert "SIMULATED" in (out / name).read_text().splitlines()[0]
    assert "SIMULATED" in (out / "power_tests.tex").read_text()
    assert {p.name for p in out.glob("*.png")} == {"power_curves_verdicts.png", "power_curves_tests.png"}
