"""The month-end close's scripted agents through the executor: six periods, each a fresh context
under a turn cap, the plain condition and the FSM (its guards running the real step check)."""

from __future__ import annotations

import pytest

from study.families.workspace.month_end_close import WORKFLOW
from study.families.workspace.month_end_close.prompts import first_message
from study.families.workspace.month_end_close.scorer import score
from study.families.workspace.month_end_close.workspace import build_run
from study.families.workspace.sim.actions import McpCall
from study.families.workspace.sim.executor import Executor
from study.families.workspace.month_end_close.sim import CloseOracle, OutOfTurns
from study.families.workspace.sim.workflows import load_workflow

SEED = 2


def close_run(tmp_path, condition: str, policy, turns: int):
    run = build_run(tmp_path, SEED)
    workflow = load_workflow(WORKFLOW) if condition == "fsm" else None
    executor = Executor(run.workspace, workflow=workflow, frames=tmp_path / "frames", frame_per_context=True, turn_cap=turns)

    def periods():
        for number in range(1, 7):
            period = run.release(number)  # only this period's inputs appear as its context starts
            yield first_message(condition, period, number, 6, turns)

    executor.run(policy, periods())
    return run, executor, score(run.workspace, SEED)


def _moves(context):
    return [(a.args["target"], o.ok) for a, o in context.view.steps if isinstance(a, McpCall) and a.tool == "transition"]


@pytest.mark.parametrize("condition", ["plain", "fsm"])
def test_the_oracle_closes_six_of_six_periods_each_in_a_fresh_context(tmp_path, condition):
    run, executor, scores = close_run(tmp_path, condition, CloseOracle(), 40)
    assert [s.correct for s in scores] == [True] * 6
    assert [c.ended for c in executor.contexts] == ["end_turn"] * 6
    # each context began with nothing but its own prompt: the period is named there, nowhere else
    assert [c.prompt.count(f"This is period {s.period}") for c, s in zip(executor.contexts, scores)] == [1] * 6
    if condition == "fsm":
        order = ["S_valuation", "S_fx", "S_adjustments", "S_trial_balance", "S_report", "S_done"]
        assert all(_moves(c) == [(target, True) for target in order] for c in executor.contexts)
        assert max(c.turns for c in executor.contexts) == 23
        assert [p.name for p in sorted((tmp_path / "frames").iterdir())] == [f"context-{n}" for n in range(1, 7)]
    else:
        assert max(c.turns for c in executor.contexts) == 4


def test_the_agent_that_runs_out_of_turns_leaves_the_late_periods_without_a_report(tmp_path):
    # plain only: the scorer reads the workspace alike under either condition, and a context the
    # turn cap ends under the FSM is the next test's
    run, executor, scores = close_run(tmp_path, "plain", OutOfTurns(from_period=4), 40)
    assert [(s.period, s.correct, s.problem) for s in scores] == [
        ("2025-01", True, ""), ("2025-02", True, ""), ("2025-03", True, ""),
        ("2025-04", False, "no report"), ("2025-05", False, "no report"), ("2025-06", False, "no report")]
    assert [(c.turns, c.ended) for c in executor.contexts[3:]] == [(40, "turn_cap")] * 3


def test_a_turn_cap_too_tight_for_the_checks_stops_the_fsm_agent_only(tmp_path):
    """The careful oracle reads every input first: 13 turns a period plain, 32 under the FSM (the
    checks' self_check and transition cost turns), so 24 turns stop it under the FSM."""
    plain = close_run(tmp_path / "plain", "plain", CloseOracle(careful=True), 24)
    fsm = close_run(tmp_path / "fsm", "fsm", CloseOracle(careful=True), 24)
    assert [s.correct for s in plain[2]] == [True] * 6
    assert [s.right for s in fsm[2]] == [0] * 6
    assert (fsm[1].contexts[0].ended, fsm[1].contexts[0].state) == ("turn_cap", "S_trial_balance")
