"""The staged protocols' workflows (the paper's Table 11 shapes: AutoResearchSklearn 10 states and
nine stage-check calls, MonthlyClose 7 states and six) and the two conditions' first messages."""

from __future__ import annotations

from study.families.workspace.autoresearch import WORKFLOW as AUTORESEARCH
from study.families.workspace.autoresearch.prompts import first_message as autoresearch_message
from study.families.workspace.autoresearch.protocol import FULL_PLAN, STAGE_ORDER
from study.families.workspace.month_end_close import WORKFLOW as MONTHLY_CLOSE
from study.families.workspace.month_end_close.prompts import first_message as close_message
from study.families.workspace.sim.workflows import load_workflow


def _guards(workflow):
    return [(t.source, t.target, [c.command for c in t.hard]) for t in workflow.transitions.values()]


def test_autoresearch_is_ten_states_with_a_stage_check_on_each_of_nine_moves():
    wf = load_workflow(AUTORESEARCH)
    assert (wf.name, len(wf.states), wf.initial, wf.exit) == ("AutoResearchSklearn", 10, "S_start", "S_done")
    names = ["S_start", *(f"S_{s}" for s in STAGE_ORDER), "S_done"]
    checks = ["start", *STAGE_ORDER]
    assert _guards(wf) == [(a, b, [f"python3 ../checks/stage_check.py {c}"]) for a, b, c in zip(names, names[1:], checks)]
    trial = wf.states["S_features"].permissions
    assert trial.decide("shell", {"command": "python train.py"}, {}) is None
    assert trial.decide("edit", {"path": "train.py"}, {}) is None
    assert trial.decide("edit", {"path": "PROTOCOL.md"}, {}) is not None
    assert trial.decide("shell", {"command": "git push origin main"}, {}) is not None
    assert wf.states["S_start"].permissions.decide("edit", {"path": "train.py"}, {}) is not None


def test_the_monthly_close_is_seven_states_with_a_step_check_on_each_of_six_moves():
    wf = load_workflow(MONTHLY_CLOSE)
    names = ["S_ingest", "S_valuation", "S_fx", "S_adjustments", "S_trial_balance", "S_report", "S_done"]
    assert (wf.name, list(wf.states), sorted(wf.pause)) == ("MonthlyClose", names, ["S_done"])
    assert _guards(wf) == [(a, b, [f"python3 ../checks/check_step.py {n}"]) for n, (a, b) in enumerate(zip(names, names[1:]), 1)]
    step = wf.states["S_fx"].permissions
    assert step.decide("write", {"path": "periods/2025-02/close/03_fx.csv"}, {}) is None
    assert "the inputs never change" in step.decide("edit", {"path": "periods/2025-02/inputs/sales.csv"}, {})


def test_the_fsm_text_is_the_plain_text_plus_the_moves():
    plain, fsm = autoresearch_message("plain", FULL_PLAN, 2, 10), autoresearch_message("fsm", FULL_PLAN, 2, 10)
    assert "| 4 | `regularization` | `regularization` | 4 |" in plain and "This is context 2 of at most 10" in plain
    assert "`self_check`" in fsm and "`self_check`" not in plain and "../checks" not in plain + fsm
    close_plain, close_fsm = close_message("plain", "2025-03", 3, 6, 24), close_message("fsm", "2025-03", 3, 6, 24)
    assert "## Step 6: report and closing balances" in close_plain and "This is period 2025-03, context 3 of 6" in close_plain
    assert "at most 24 turns" in close_plain and "`self_check`" in close_fsm and "`self_check`" not in close_plain
