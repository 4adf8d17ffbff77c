"""AutoResearch's scripted agents through the executor: the real training script run by the
agent's own commands, one stage per fresh context, the plain condition and the FSM (its guards
running the real stage check). The tests use one trial per stage (``Plan.uniform(1)``, the same
code as the paper's 25): each training run costs about 1.5 s of CPU, nearly all of it importing
scikit-learn (the fit itself well under a second), so a campaign takes some 15 s: two run here,
the oracle under the FSM and the drifter under plain.

The drifter under the FSM runs end to end through the real CLI instead
(tests/families/workspace/test_workspace_sessions_e2e.py, ``research-drifter-fsm``): its refused stage
checks, and the ledger scored at every check the FSM let through, are asserted there. The
oracle runs under the FSM only: the plain prompt's script (the stages from the ledger, no
checks) is the drifter's plain campaign's, and what the real training script leaves (metrics,
results files, commits) is the same under either condition."""

from __future__ import annotations

import importlib.util
import json
import subprocess

import pytest

from study.families.workspace.autoresearch import WORKFLOW
from study.families.workspace.autoresearch.prompts import first_message
from study.families.workspace.autoresearch.protocol import DECISIONS, Plan
from study.families.workspace.autoresearch.scorer import score
from study.families.workspace.autoresearch.workspace import build_run
from study.families.workspace.sim.actions import McpCall
from study.families.workspace.autoresearch.sim import AutoResearchDrifter, AutoResearchOracle
from study.families.workspace.sim.executor import Executor
from study.families.workspace.sim.workflows import load_workflow

pytestmark = pytest.mark.skipif(importlib.util.find_spec("sklearn") is None,
                                reason="scikit-learn is not installed: pip install --require-hashes -r requirements-staged.lock")

PLAN = Plan.uniform(1)
CONTEXTS = 10


class Recording(Executor):
    """The executor, scoring the ledger at every transition the stage check let through."""

    at_passed_checks: list

    def act(self, action):
        outcome = super().act(action)
        if isinstance(action, McpCall) and action.tool == "transition" and outcome.ok:
            self.at_passed_checks.append((action.args["target"], score(self.workspace, PLAN)))
        return outcome


def campaign(root, condition, policy):
    run = build_run(root, PLAN)
    workflow = load_workflow(WORKFLOW) if condition == "fsm" else None
    executor = Recording(run.workspace, workflow=workflow, frames=root / "frames", turn_cap=60)
    executor.at_passed_checks = []
    prompts = (first_message(condition, PLAN, number, CONTEXTS) for number in range(1, CONTEXTS + 1))
    executor.run(policy, prompts, until=lambda context: "PROTOCOL COMPLETE" in context.final_text)
    return run, executor, score(run.workspace, PLAN)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The campaigns, each run once (on first use) for the tests below."""
    root = tmp_path_factory.mktemp("autoresearch")
    done = {}

    def get(who, condition):
        if (who, condition) not in done:
            policy = AutoResearchOracle() if who == "oracle" else AutoResearchDrifter()
            done[(who, condition)] = campaign(root / f"{who}-{condition}", condition, policy)
        return done[(who, condition)]

    return get


def row_commit(run, position: int) -> str:
    return run.ledger.read_text().splitlines()[position].split("\t")[6]


def test_the_oracle_keeps_every_row_valid_and_completes_the_protocol(runs):
    # under the FSM: every stage check lets the oracle's ledger through at once (no refusal, the
    # checks' own words); under plain the same agent script runs without the checks, as the
    # drifter's plain campaign below runs it
    run, executor, result = runs("oracle", "fsm")
    assert (result.valid_rows, result.required, result.complete) == (8, 8, True)
    assert len(executor.contexts) == 8 and all(c.ended == "end_turn" for c in executor.contexts)
    # the real training script ran for every trial: its METRIC is the row's, its results file is there
    assert 0.85 < result.rows[0].metric < 0.95  # the weak baseline
    assert result.best_accuracy > result.rows[0].metric  # improved on it
    for row in result.rows:
        commit = subprocess.run(["git", "rev-parse", row_commit(run, row.position)], cwd=run.workspace, capture_output=True, text=True).stdout
        assert json.loads((run.workspace / "results" / f"{commit[:12]}.json").read_text())["test_accuracy"] == row.metric
    assert subprocess.run(["git", "status", "--porcelain"], cwd=run.workspace, capture_output=True, text=True).stdout == ""
    targets = [target for target, _ in executor.at_passed_checks]
    assert targets == ["S_baseline", "S_scheduler", "S_optimizer", "S_regularization", "S_features", "S_throughput",
                       "S_combination", "S_confirmation", "S_done"]
    assert not [o for c in executor.contexts for a, o in c.view.steps if isinstance(a, McpCall) and not o.ok]
    assert executor.fsm.state is None  # the last context exited the workflow


def test_under_plain_the_drifters_invalid_rows_stand_and_the_scorer_counts_them(runs):
    run, executor, result = runs("drifter", "plain")
    rows = [line.split("\t") for line in run.ledger.read_text().splitlines()[1:]]
    drifted = [r for r in rows if r[5] not in DECISIONS or "+" in r[1]]  # counted here from the text alone
    assert len(drifted) >= 3 and result.invalid_rows == len(drifted)
    assert {row.rule for row in result.rows if not row.valid} <= {"decision", "stage"}
    assert not any(r[1] == "throughput" for r in rows)  # the skipped stage
    assert not result.complete and len(executor.contexts) == 6  # it merged two stages and skipped one
