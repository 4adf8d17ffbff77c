"""predictions.yaml read once into typed entries: each problem names the file and its line, and
``Plan.prediction_runs`` is the one walk over a prediction's models."""

from __future__ import annotations

import pytest

from study.protocol.plan import PlanError, load_plan
from study.protocol.predictions import Bound, CatchUp, Contrast, ContrastPair, MetricTest, Regime, SeedCount, SeedsWhere

#: A small plan; line numbers below are 1-based lines of this text.
PLAN = """\
version: 1
models:
  a: {name: model-a, label: "Model A", seeds: [1, 2]}
  b: {name: model-b, seeds: [3]}
ablation:
  model: a
  seeds: [1]
  conditions: [Stop-only]
  rows:
    - {condition: FSM, gates: true, stop_gate: true}
comparisons:
  per_model:
    - {id: fsm_plain, label: "FSM - Plain", metric: fc, a: FSM, b: Plain}
    - {id: fsm_best, label: "FSM - best", metric: fc, a: FSM, b: {best_of: [Plain, Sys]}}
  cross_model:
    - {id: x, label: "A FSM - B Plain", metric: fc, seeds: [3], a: {model: a, condition: FSM},
       b: {model: b, condition: Plain}}
predictions:
  - id: P1
    kind: prediction
    model: a
    text: "seeds"
    all:
      - seeds_where: {conditions: [Plain, Sys], any: [[decided, "<", 200], [compliance, "<", 0.8]]}
        at_least: 1
      - contrast: fsm_plain
        mean: [">=", 30]
        positive: {at_least: all}
  - id: E1
    section: "Extension"
    kind: falsification
    models: [b, a]
    text: "regime"
    regime: {condition: Plain, metric: compliance, drift_below: 0.8, no_drift_at_least: 0.95}
    by_regime:
      drift:
        - contrast_pair: {left: fsm_plain, op: ">=", right: fsm_best}
      no_drift:
        - contrast: fsm_best
          abs_mean: ["<=", 10]
          negative: {at_least_fraction: 0.5}
          show: means
  - id: K1
    kind: catch_up
    text: "catch up"
    contrast: x
    exceeds_at_least: 10
    catches_up_at_least: -10
"""


def plan_file(tmp_path, text=PLAN):
    path = tmp_path / "predictions.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_predictions_are_typed_with_their_lines(tmp_path):
    p1, e1, k1 = load_plan(plan_file(tmp_path)).predictions
    assert (p1.id, p1.kind, p1.section, p1.models, p1.per_model_rows, p1.combine, p1.line) == (
        "P1", "prediction", "", ("a",), False, "all", 19)
    assert p1.clauses == (
        SeedsWhere(("Plain", "Sys"), "any", (MetricTest("decided", "<", 200), MetricTest("compliance", "<", 0.8)), 1, 24),
        Contrast("fsm_plain", Bound(">=", 30), None, SeedCount("all", None), None, False, 26))
    assert (e1.models, e1.per_model_rows, e1.combine, e1.clauses, e1.line) == (("b", "a"), True, None, (), 29)
    assert e1.regime == Regime("Plain", "compliance", 0.8, 0.95,
                               (ContrastPair("fsm_plain", ">=", "fsm_best", 37),),
                               (Contrast("fsm_best", None, Bound("<=", 10), None, SeedCount(None, 0.5), True, 39),))
    assert list(e1.every_clause()) == [*e1.regime.drift, *e1.regime.no_drift]
    assert (k1.models, k1.catch_up, k1.line) == ((), CatchUp("x", 10, -10), 43)


def test_prediction_runs_walk_each_model_once_and_label_only_a_models_list(tmp_path):
    runs = [(r.prediction.id, r.key, r.model, r.label) for r in load_plan(plan_file(tmp_path)).prediction_runs()]
    assert runs == [("P1", "a", "model-a", None), ("E1", "b", "model-b", "b"), ("E1", "a", "model-a", "Model A"),
                    ("K1", None, None, None)]


BAD = [
    # (replace, with, line, problem)
    ("    kind: prediction\n", "    kind: predicton\n", 20,
     "prediction P1: kind must be one of ('prediction', 'falsification', 'catch_up')"),
    ("    model: a\n", "    model: c\n", 21, "prediction P1: model 'c' is not one of ['a', 'b']"),
    ("      - contrast: fsm_plain\n", "      - contrast: fsm_nowhere\n", 26,
     "prediction P1: unknown comparison 'fsm_nowhere'"),
    ("[compliance, \"<\", 0.8]", "[compliance, \"=<\", 0.8]", 24,
     "prediction P1: unknown operator '=<'; use one of < <= > >= =="),
    ("[decided, \"<\", 200]", "[decidd, \"<\", 200]", 24,
     "prediction P1: unknown metric 'decidd'; use one of decided, correct, compliant, fc, compliance, "
     "fc_w1, fc_w2, fc_w3, fc_w4, cost_usd"),
    ("        mean: [\">=\", 30]\n", "        maen: [\">=\", 30]\n", 27,
     "prediction P1: unknown key 'maen' in a contrast clause; use one of contrast, mean, abs_mean, positive, "
     "negative, show"),
    ("        at_least: 1\n", "        at_least: some\n", 25,
     "prediction P1: at_least must be a number of seeds or all, got 'some'"),
    ("        - contrast_pair: {left: fsm_plain", "        - contrast: fsm_best\n          contrast_pair: {left: fsm_plain",
     37, "prediction E1: a clause is one of seeds_where, contrast, contrast_pair"),
    ("          show: means\n", "          show: all\n", 42, "prediction E1: show can only be means, got 'all'"),
    ("    regime: {condition", "    reg: {condition", 34,
     "prediction E1: unknown key 'reg' in an entry; use one of id, section, kind, text, model, models, all, any, "
     "regime, by_regime, contrast, exceeds_at_least, catches_up_at_least"),
    ("    exceeds_at_least: 10\n", "", 43, "prediction K1: a catch_up entry needs 'exceeds_at_least'"),
    ("    text: \"catch up\"\n", "    text: \"catch up\"\n    all: []\n", 46,
     "prediction K1: 'all' does not belong to this catch_up entry"),
    ("  - id: K1\n", "  - id: P1\n", 43, "prediction P1: the id is used at line 19 already; prediction ids must be unique"),
    ("    - {id: fsm_best,", "    - {id: fsm_plain,", 14,
     "comparisons.per_model[1]: comparison id 'fsm_plain' is used at line 13 already; comparison ids must be unique"),
]


@pytest.mark.parametrize(("old", "new", "line", "problem"), BAD)
def test_a_bad_entry_is_refused_naming_its_file_and_line(tmp_path, old, new, line, problem):
    assert PLAN.count(old) == 1
    path = plan_file(tmp_path, PLAN.replace(old, new))
    with pytest.raises(PlanError) as refused:
        load_plan(path)
    assert str(refused.value) == f"{path}:{line}: {problem}"
    assert refused.value.data == {"path": str(path), "line": line, "problem": problem}


def test_the_preregistered_plan_names_the_line_of_a_bad_reference(tmp_path):
    text = load_plan().path.read_text(encoding="utf-8")
    bad = text.replace("contrast: fc_fsm_best_loop\n", "contrast: fc_fsm_nowhere\n", 1)
    line = bad.splitlines().index("      - contrast: fc_fsm_nowhere") + 1
    path = plan_file(tmp_path, bad)
    with pytest.raises(PlanError, match=f"^{path}:{line}: prediction P3: unknown comparison 'fc_fsm_nowhere'$"):
        load_plan(path)
