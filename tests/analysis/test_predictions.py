"""predictions.yaml evaluated on hand-made per-session metrics shaped like the paper's Table 6."""

from __future__ import annotations

import polars as pl
import pytest

from analysis.comparisons import compute_comparisons
from analysis.loading import sessions_frame
from study.protocol.plan import PlanError, load_plan
from analysis.predictions import evaluate

HAIKU, SONNET, QWEN = "haiku-4.5", "sonnet-4.6", "qwen3.8-flash"
SEEDS = [2, 3, 4, 5, 6, 7, 8, 9]


def session(model, condition, seed, *, fc, decided=200, compliance=1.0, correct=None, w1=0, w4=0):
    return {"path": f"{model}/{condition}/{seed}", "model": model, "condition": condition,
            "seed": seed, "fc": fc, "decided": decided, "compliance": compliance,
            "correct": fc if correct is None else correct, "fc_w1": w1, "fc_w4": w4}


def frame(rows):
    template = sessions_frame([])
    full = [{c: r.get(c) for c in template.columns} for r in rows]
    return pl.DataFrame(full, schema=template.schema, orient="row")


def haiku_rows():
    rows = []
    fsm_fc = [150] * 8
    rl_fc = [10, 20, 30, 40, 50, 60, 70, 200]          # FSM - RL: 7 of 8 positive, mean 90.0
    for i, s in enumerate(SEEDS):
        for c in ("Plain", "Sys", "Remind"):
            rows.append(session(HAIKU, c, s, fc=5, decided=120, compliance=0.5))
        rows.append(session(HAIKU, "Plain-loop", s, fc=rl_fc[i] - 5, compliance=0.3))
        # Sys-loop beats Remind-loop on seed 2 only: the conservative contrast is 10/8 lower
        rows.append(session(HAIKU, "Sys-loop", s, fc=20 if s == 2 else 0, compliance=0.3))
        rows.append(session(HAIKU, "Remind-loop", s, fc=rl_fc[i], correct=138,
                            compliance=0.9 if s == 9 else 0.3, w1=30, w4=5))
        rows.append(session(HAIKU, "FSM", s, fc=fsm_fc[i], correct=147,
                            compliance=0.8 if s in (4, 6) else 1.0, w1=32, w4=34))
    return rows


def extension_rows():
    rows = []
    for seed, plain, rl, fsm, h_fsm, rl_comp, fsm_cor, rl_cor in (
            (13, 10, 0, 191, 147, 0.02, 190, 199), (14, 100, 200, 185, 81, 1.0, 185, 197),
            (15, 100, 199, 188, 60, 1.0, 188, 195)):
        rows += [session(SONNET, "Plain", seed, fc=plain),
                 session(SONNET, "Remind-loop", seed, fc=rl, compliance=rl_comp, correct=rl_cor),
                 session(SONNET, "FSM", seed, fc=fsm, correct=fsm_cor),
                 session(HAIKU, "FSM", seed, fc=h_fsm)]
    for i, seed in enumerate([2, 3, 4, 5, 6, 13, 14, 15]):
        diff = 33.2 if i == 7 else 10
        rows += [session(QWEN, "Plain", seed, fc=150),
                 session(QWEN, "Remind-loop", seed, fc=170, compliance=0.98),
                 session(QWEN, "FSM", seed, fc=170 + diff, compliance=0.99)]
    return rows


def outcomes(rows):
    plan = load_plan()
    sessions = frame(rows)
    return {(o.id, o.model): o for o in evaluate(plan, sessions, compute_comparisons(sessions, plan))}


def test_main_predictions_get_their_observed_values_and_verdicts():
    out = outcomes(haiku_rows() + extension_rows())
    got = {k[0]: (o.observed, o.verdict) for k, o in out.items() if k[1] is None}
    assert got["P1"] == ("8/8, 8/8, 8/8", "holds")
    assert got["P2"] == ("8/8, 8/8, 7/8", "holds")
    # P3 meets both contrasts but FSM compliance is 80% in seeds 4 and 6
    assert got["P3"] == ("6/8; +90.0, 7/8 positive; +88.8, 7/8 positive", "fails")
    assert got["P4"] == ("147.0 vs. 138.0", "holds")
    assert got["P5"] == ("29.0 vs. 2.0", "holds")
    assert got["F"] == ("+90.0; 1/8 negative", "not triggered")
    assert got["K1"] == ("+26.0 (seeds: +137, -19, -40)", "exceeds")
    assert got["K2"] == ("-40.3 (seeds: +137, -119, -139)", "does not catch up")


def test_extension_models_follow_the_regime_rule():
    out = outcomes(haiku_rows() + extension_rows())
    sonnet, qwen = "Claude Sonnet 4.6", "Qwen3.8-flash"
    e1s = out[("E1", sonnet)]
    assert e1s.observed.startswith("drift (67.3%): +55.0, 1/3 positive") and e1s.verdict == "fails"
    e1q = out[("E1", qwen)]
    assert e1q.observed.startswith("no drift (98.0%): +12.9, CI [") and e1q.verdict == "fails"
    assert (out[("E2", sonnet)].observed, out[("E2", sonnet)].verdict) == ("3/3", "holds")
    assert out[("E3", sonnet)].verdict == "fails" and out[("E3", qwen)].verdict == "holds"
    assert (out[("EF", sonnet)].observed, out[("EF", sonnet)].verdict) == (
        "+55.0; 2/3 negative", "triggered")
    assert out[("EF", qwen)].verdict == "not triggered"


def test_an_undetermined_regime_and_missing_sessions_are_not_evaluable():
    rows = [r for r in haiku_rows() + extension_rows()
            if not (r["model"] == HAIKU and r["condition"] == "Plain" and r["seed"] == 3)]
    for r in rows:
        if r["model"] == QWEN and r["condition"] == "Remind-loop":
            r["compliance"] = 0.9
    out = outcomes(rows)
    assert (out[("P1", None)].observed, out[("P1", None)].verdict) == (
        "Plain: seeds 3 missing, 8/8, 8/8", "not evaluable")
    assert out[("E1", "Qwen3.8-flash")].observed == "regime undetermined (90.0%)"
    assert out[("E1", "Qwen3.8-flash")].verdict == "not evaluable"
    assert out[("P2", None)].verdict == "holds"   # other predictions are unaffected


def test_a_plan_with_an_unknown_comparison_is_refused(tmp_path):
    text = load_plan().path.read_text().replace("contrast: fc_fsm_remind_loop\n        mean: [\">=\", 30]",
                                                "contrast: fc_fsm_nowhere\n        mean: [\">=\", 30]")
    bad = tmp_path / "predictions.yaml"
    bad.write_text(text)
    with pytest.raises(PlanError, match="prediction P3: unknown comparison 'fc_fsm_nowhere'"):
        load_plan(bad)


def test_a_model_without_sessions_is_not_evaluable():
    out = outcomes(haiku_rows())
    assert (out[("E2", "Qwen3.8-flash")].observed, out[("E2", "Qwen3.8-flash")].verdict) == (
        "no sessions of qwen3.8-flash", "not evaluable")
    assert out[("K1", None)].verdict == "not evaluable"
    assert out[("P3", None)].verdict == "fails"
