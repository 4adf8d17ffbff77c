"""Generated corpora round-trip: every score and table equals the metrics it was built with."""

from __future__ import annotations

import csv
import io
import statistics

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from analysis.corpus import write_session
from analysis.loading import load_corpus, load_events
from study.protocol.plan import load_plan
from analysis.render import render
from analysis.scoring import score_session_dir
from analysis.exclusions import exclusion_list
from analysis.tables import Analysis, table1, table2, table6, table7, table8

from .conftest import HAIKU, MAIN_SEEDS, SONNET


@pytest.fixture(scope="module")
def analysis(corpus_dir, tmp_path_factory):
    root, _ = corpus_dir
    prereg = tmp_path_factory.mktemp("prereg")
    return Analysis.build(load_corpus(root), load_plan(), prereg)


def rows(table):
    text = render(table, "csv")
    assert text.startswith(f"# Table {table.number}: ")
    return list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))


def built(expected, model, condition, seeds):
    return [e for e in expected if e.model == model and e.condition == condition
            and e.seed in seeds and not e.voided]


def test_every_session_scores_as_built(corpus_dir):
    root, expected = corpus_dir
    for e in expected:
        s = score_session_dir(root / e.model / e.condition / f"seed-{e.seed}")
        assert (s.fc, s.decided, s.correct, s.compliant) == (e.fc, e.decided, e.correct, e.compliant)
        assert list(s.fc_windows) == e.fc_windows
        assert s.routes == e.routes
        assert s.cost_usd == e.cost_usd and s.voided == e.voided


def test_excluded_sessions_are_listed_under_every_table(analysis):
    excluded = {path: why.reason for path, why in analysis.corpus.excluded}
    assert excluded == {
        f"{HAIKU}/Remind/seed-5": "voided: infrastructure failure",
        f"{HAIKU}/FSM/seed-1": "development seed 1 (pass --include-exploratory to add it)",
        f"exploratory/{HAIKU}/FSM/seed-2": "exploratory (pass --include-exploratory to add it)",
    }
    listed = dict(exclusion_list(analysis))
    assert len(listed) == 16 and {k: listed[k] for k in excluded} == excluded
    # seeds outside a model's analysed seeds: named, with the reason (and a comparison using it)
    assert listed[f"{HAIKU}/Stop-only/seed-7"] == (
        "not in Tables 1, 2 and 8: seed 7 is not among the seeds analysed for Claude Haiku 4.5 Stop-only (2-4)")
    assert listed[f"{HAIKU}/FSM/seed-14"] == (
        "not in Tables 1, 2 and 8: seed 14 is not among the seeds analysed for Claude Haiku 4.5 FSM (2-9); "
        "a cross-model (catch-up) comparison uses it (Tables 6 and 7)")
    summary = ("Excluded: 16 sessions (13 on a seed the plan does not analyse for its model; 1 exploratory; "
               "1 on the development seed; 1 voided); the exclusion list (exclusions.md) gives each with its reason.")
    for t in (table1(analysis), table2(analysis), table6(analysis), table7(analysis), table8(analysis)):
        assert summary in t.notes and not any(n.startswith("Excluded: haiku") for n in t.notes)


def test_table1_equals_the_built_metrics(analysis, corpus_dir):
    _, expected = corpus_dir
    table = rows(table1(analysis))
    haiku = [r for r in table if r["Model"].startswith("Claude Haiku 4.5")]
    assert [r["Condition"] for r in haiku] == ["Plain", "Sys", "Remind", "Plain-loop", "Sys-loop",
                                               "Remind-loop", "FSM"]
    for r in haiku:
        es = built(expected, HAIKU, r["Condition"], MAIN_SEEDS)   # seeds 13-15 stay out
        assert int(r["Seeds"]) == len(es) == (7 if r["Condition"] == "Remind" else 8)
        assert float(r["FC"]) == pytest.approx(np.mean([e.fc for e in es]), abs=1e-6)
        assert float(r["FC s.d."]) == pytest.approx(statistics.stdev([e.fc for e in es]), abs=1e-6)
        for w in range(4):
            assert float(r[f"FC {50 * w + 1}-{50 * w + 50}"]) == pytest.approx(
                np.mean([e.fc_windows[w] for e in es]), abs=1e-6)
        assert float(r["Compliance"]) == pytest.approx(np.mean([e.compliance for e in es]), abs=1e-6)
        assert float(r["Decided"]) == pytest.approx(np.mean([e.decided for e in es]), abs=1e-6)
        assert float(r["Correct"]) == pytest.approx(np.mean([e.correct for e in es]), abs=1e-6)
        assert float(r["Cost ($)"]) == pytest.approx(np.mean([e.cost_usd for e in es]), abs=1e-6)
    assert [r["Condition"] for r in table if r["Model"].startswith("Claude Sonnet")] == [
        "Plain", "Remind-loop", "FSM"]


def test_table2_uses_the_ablation_seeds(analysis, corpus_dir):
    _, expected = corpus_dir
    table = rows(table2(analysis))
    assert [r["Variant"] for r in table] == ["Remind-loop", "Stop-only", "Gates-only", "FSM"]
    for r in table:
        es = built(expected, HAIKU, r["Variant"], [2, 3, 4])
        assert float(r["FC"]) == pytest.approx(np.mean([e.fc for e in es]), abs=1e-6)
        assert float(r["Blind"]) == pytest.approx(np.mean([e.routes["without_looking"] for e in es]), abs=1e-6)
        assert float(r["Stops"]) == pytest.approx(np.mean([e.routes["ends_turn"] for e in es]), abs=1e-6)
    assert (table[1]["Gates"], table[1]["Stop gate"]) == ("off", "on")


def test_table8_equals_the_built_routes(analysis, corpus_dir):
    _, expected = corpus_dir
    for r in rows(table8(analysis)):
        model = HAIKU if r["Model"] == "Claude Haiku 4.5" else SONNET
        seeds = [2, 3, 4] if r["Condition"] in ("Stop-only", "Gates-only") else (
            MAIN_SEEDS if model == HAIKU else [13, 14, 15])
        es = built(expected, model, r["Condition"], seeds)
        for route in ("ends_turn", "without_looking", "interleaved", "another_account"):
            counts = [e.routes[route] for e in es]
            assert int(r[f"{route} sessions"]) == sum(c > 0 for c in counts)
            assert int(r[f"{route} of"]) == len(es)
            assert float(r[f"{route} mean"]) == pytest.approx(np.mean(counts), abs=1e-6)
        remarks = [e.routes["first_token_remark"] for e in es if e.routes["first_token_remark"] is not None]
        assert float(r["first_token_remark median"]) == pytest.approx(np.median(remarks))


def test_table7_equals_the_built_differences(analysis, corpus_dir):
    _, expected = corpus_dir
    table = {(r["Model"], r["Comparison"]): r for r in rows(table7(analysis))}

    def fc(model, condition, seeds):
        return {e.seed: e.fc for e in built(expected, model, condition, seeds)}

    fsm, rl = fc(HAIKU, "FSM", MAIN_SEEDS), fc(HAIKU, "Remind-loop", MAIN_SEEDS)
    d = [fsm[s] - rl[s] for s in MAIN_SEEDS]
    r = table[("Claude Haiku 4.5", "FC: FSM - Remind-loop")]
    assert float(r["Mean"]) == pytest.approx(np.mean(d), abs=1e-6)
    assert int(r["Seeds > 0"]) == sum(x > 0 for x in d) and int(r["Seeds"]) == 8
    assert float(r["Sign p"]) == pytest.approx(stats.binomtest(sum(x > 0 for x in d), sum(x != 0 for x in d)).pvalue)
    assert float(r["CI low"]) <= np.mean(d) <= float(r["CI high"])

    loops = [fc(HAIKU, c, MAIN_SEEDS) for c in ("Plain-loop", "Sys-loop", "Remind-loop")]
    best = [fsm[s] - max(l[s] for l in loops) for s in MAIN_SEEDS]
    r = table[("Claude Haiku 4.5", "FC: FSM - best -loop baseline")]
    assert float(r["Mean"]) == pytest.approx(np.mean(best), abs=1e-6)

    k_fsm, k_plain = fc(HAIKU, "FSM", [13, 14, 15]), fc(SONNET, "Plain", [13, 14, 15])
    r = table[("Catch-up", "FC: Haiku 4.5 FSM - Sonnet 4.6 Plain")]
    assert float(r["Mean"]) == pytest.approx(np.mean([k_fsm[s] - k_plain[s] for s in (13, 14, 15)]), abs=1e-6)
    # Sonnet has no Plain-loop or Sys-loop: its best -loop contrast is not in the table
    assert ("Claude Sonnet 4.6", "FC: FSM - best -loop baseline") not in table


EPISODE_KINDS = ["fc", "wrong", "blind", "partial", "stale", "mismatch", "batch", "swap", "skip"]


@settings(max_examples=40, deadline=None)
@given(episodes=st.lists(st.sampled_from(EPISODE_KINDS), min_size=1, max_size=12),
       stops=st.dictionaries(st.integers(0, 12), st.integers(1, 3), max_size=2),
       remark=st.one_of(st.none(), st.integers(0, 12)), noise=st.booleans())
def test_any_episode_sequence_scores_as_built(tmp_path_factory, episodes, stops, remark, noise):
    d = tmp_path_factory.mktemp("h") / "s"
    e = write_session(d, model="m", condition="Remind-loop", seed=4, episodes=episodes,
                      accounts=len(episodes), stops_at=stops, remark_at=remark, noise=noise)
    s = score_session_dir(d)
    assert (s.fc, s.decided, s.correct, s.compliant) == (e.fc, e.decided, e.correct, e.compliant)
    assert list(s.fc_windows) == e.fc_windows and s.routes == e.routes


def test_the_events_frame_holds_every_event(corpus_dir):
    root, expected = corpus_dir
    events = load_events(root)
    one = events.filter(pl.col("path") == f"{HAIKU}/FSM/seed-2")
    lines = (root / HAIKU / "FSM" / "seed-2" / "events.jsonl").read_text().splitlines()
    assert one.height == len(lines) and one["seq"].to_list() == list(range(len(lines)))
    decisions = one.filter((pl.col("tool") == "submit_decision") & pl.col("ok"))
    built_fsm = next(e for e in expected if (e.model, e.condition, e.seed) == (HAIKU, "FSM", 2))
    assert decisions.height == built_fsm.decided
