"""The AutoResearch scorer and stage check on hand-made ledgers: each row rule, the counts, the
complete protocol and the best accuracy, worked out by hand (no training run, no scikit-learn)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from study.families.workspace.autoresearch.protocol import FULL_PLAN, Plan
from study.families.workspace.autoresearch.scorer import score
from study.families.workspace.autoresearch.workspace import build_run

from autoresearch_helpers import append, candidate, git, measured, one_per_stage

SCHEDULE = ('"learning_rate": "constant"', '"learning_rate": "optimal"')


def _stage_check(run, stage: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(run.checks / "stage_check.py"), stage], cwd=run.workspace, capture_output=True, text=True)


def test_each_rule_is_named_for_the_row_that_breaks_it(tmp_path):
    run = one_per_stage(tmp_path)
    base = candidate(run)
    append(run, 1, "baseline", "baseline", "template", 0.92, "keep", base)
    c2 = candidate(run, *SCHEDULE)
    append(run, 2, "scheduler", "lr_schedule", "optimal", 0.90, "revert", c2)          # decision
    git(run.workspace, "reset", "-q", "--hard", "HEAD~1")
    c3 = candidate(run, '"eta0": 1e-05', '"eta0": 0.001', extra="notes.txt")
    append(run, 3, "optimizer", "optimizer_lr", "eta0", 0.95, "keep", c3)              # files
    c4 = candidate(run, '"alpha": 0.0001', '"alpha": 0.001')
    append(run, 4, "regularization", "regularisation", "alpha", 0.97, "keep", c4)      # axis
    c5 = candidate(run, '"features": "raw"', '"features": "rbf"')
    append(run, 5, "features+throughput", "feature_augmentation", "rbf", 0.96, "discard", c5)  # stage
    append(run, 6, "throughput", "throughput", "epochs", "n/a", "keep", c5)           # metric
    append(run, 7, "combination", "combination", "combo", 0.98, "discard", "HEAD")    # commit: not an id
    append(run, 8, "confirmation", "confirmation", "", 0.99, "keep", c5)              # fields: change missing
    append(run, 9, "confirmation", "confirmation", "seed", 0.5, "keep", "deadbeef1")  # commit: none such
    result = score(run.workspace, Plan.uniform(1))
    assert [row.rule for row in result.rows] == [None, "decision", "files", "axis", "stage", "metric", "commit", "fields", "commit"]
    assert (result.valid_rows, result.invalid_rows, result.required) == (1, 8, 8)
    # kept rows with a number, valid or not: 0.92, 0.95, 0.97, 0.99, 0.5 -> 0.99
    assert result.best_accuracy == 0.99
    assert not result.complete
    assert result.incomplete_because == "8 invalid rows; the rows' stages are not the plan's 8 in order"
    files = dict(result.rows[2].problems)["files"]
    assert "notes.txt" in files and "only train.py may change" in files


def test_the_rules_read_two_ways_are_decided_by_the_papers_definition(tmp_path):
    """Issue 49, item 8 (docs/staged.md, "The ledger"): "a recorded candidate commit" is the id of
    the commit measured as git writes it (not an annotated tag's id, not in upper case), and "only
    the allowed file changed" makes an empty candidate a trial of nothing: the baseline's only."""
    run = one_per_stage(tmp_path)
    base = candidate(run)                                                            # empty: the template as it is
    append(run, 1, "baseline", "baseline", "template", 0.92, "keep", base)
    empty = candidate(run)
    append(run, 2, "scheduler", "lr_schedule", "nothing", 0.92, "discard", empty)    # files: changes nothing
    git(run.workspace, "reset", "-q", "--hard", "HEAD~1")
    c3 = candidate(run, *SCHEDULE)
    git(run.workspace, "tag", "-a", "trial-3", "-m", "trial 3", c3)
    tag = git(run.workspace, "rev-parse", "--short", "trial-3")
    assert git(run.workspace, "cat-file", "-t", tag) == "tag" and tag != c3
    append(run, 3, "optimizer", "optimizer_lr", "optimal", 0.93, "keep", tag)        # commit: a tag's id
    full = git(run.workspace, "rev-parse", c3)                                      # 40 digits: some are letters
    append(run, 4, "optimizer", "optimizer_lr", "optimal", 0.93, "keep", full.upper())  # commit: upper case
    append(run, 5, "optimizer", "optimizer_lr", "optimal", 0.93, "keep", c3)         # the same commit as git writes it
    result = score(run.workspace, Plan.uniform(1))
    assert [row.rule for row in result.rows] == [None, "files", "commit", "commit", None]
    problems = [dict(row.problems) for row in result.rows]
    assert "changes nothing" in problems[1]["files"] and "only the baseline's is empty" in problems[1]["files"]
    assert "is the id of a tag, not of a commit" in problems[2]["commit"]
    assert "not an id as git writes it" in problems[3]["commit"]
    checked = _stage_check(run, "optimizer")                                         # the FSM's guard says the same
    assert checked.returncode == 1 and "row 2 (line 3, trial 2): commit" in checked.stdout
    assert "row 3 (line 4, trial 3): candidate commit" in checked.stdout and "a tag, not of a commit" in checked.stdout


def test_the_workflow_refuses_a_shell_redirect_into_the_ledger_and_admits_its_edit(tmp_path):
    """docs/staged.md listed `printf/echo * >> ledger.tsv` as allowed; the frozen workflow has no
    such rule and refuses it (a compound command): the ledger is edited or written (issue 49, item 8)."""
    from study.families.workspace.autoresearch import WORKFLOW
    from study.fsm import Workflow
    from study.families.workspace.sim.workflows import load_workflow

    root = Path(__file__).resolve().parents[3]
    frozen = Workflow.load(root / "preregistration/studies/autoresearch/workflows/autoresearch.yaml")
    for wf in (frozen, load_workflow(WORKFLOW)):
        for state in ("S_baseline", "S_scheduler", "S_confirmation"):
            rules = wf.states[state].permissions
            for command in ("printf '26\\tconfirmation' >> ledger.tsv", "echo row >> ledger.tsv"):
                refusal = rules.decide("shell", {"command": command}, {})
                assert refusal is not None and "chains commands, redirects, or substitutes" in refusal
            assert rules.decide("edit", {"path": "ledger.tsv"}, {}) is None
            assert rules.decide("write", {"path": "ledger.tsv"}, {}) is None
            assert rules.decide("write", {"path": "train.py"}, {}) is not None
    page = (root / "docs" / "staged.md").read_text(encoding="utf-8")
    workflow_section = page.split("### The workflow: `AutoResearchSklearn`", 1)[1].split("###", 1)[0]
    assert "is refused" in workflow_section and "appending to the ledger (`printf" not in workflow_section


def _valid_campaign(run, accuracies):
    """One valid row per stage of Plan.uniform(1): each a committed change with its results file."""
    stages = [("baseline", "baseline"), ("scheduler", "lr_schedule"), ("optimizer", "optimizer_lr"),
              ("regularization", "regularization"), ("features", "feature_augmentation"), ("throughput", "throughput"),
              ("combination", "combination"), ("confirmation", "confirmation")]
    for number, ((stage, axis), accuracy) in enumerate(zip(stages, accuracies), 1):
        commit = candidate(run) if stage == "baseline" else candidate(run, '"seed": ', f'"seed": {number}0 + ')
        measured(run, commit, accuracy)
        append(run, number, stage, axis, f"trial {number}", accuracy, "keep" if accuracy >= 0.93 else "discard", commit)


def test_a_complete_protocol_needs_every_row_valid_and_the_stages_in_order(tmp_path):
    run = one_per_stage(tmp_path / "a")
    _valid_campaign(run, [0.92, 0.90, 0.93, 0.94, 0.98, 0.97, 0.99, 0.985])
    result = score(run.workspace, Plan.uniform(1))
    assert (result.valid_rows, result.complete, result.best_accuracy) == (8, True, 0.99)
    assert _stage_check(run, "confirmation").returncode == 0
    # the same valid rows under the paper's plan (25 rows): valid, but not complete
    full = score(run.workspace, FULL_PLAN)
    assert (full.valid_rows, full.required, full.complete) == (8, 25, False)
    # two rows swapped: still valid rows, no longer the stages in order
    lines = run.ledger.read_text().splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    run.ledger.write_text("".join(lines))
    swapped = score(run.workspace, Plan.uniform(1))
    assert (swapped.valid_rows, swapped.complete) == (8, False)
    check = _stage_check(run, "regularization")
    assert check.returncode == 1
    assert "- the rows are not in stage order" in check.stdout


def test_the_stage_check_names_each_problem_and_passes_once_fixed(tmp_path):
    run = one_per_stage(tmp_path)
    assert _stage_check(run, "start").returncode == 0
    base = candidate(run)
    measured(run, base, 0.92)
    append(run, 1, "baseline", "baseline", "template", 0.92, "keep", base)
    c2 = candidate(run, *SCHEDULE)
    measured(run, c2, 0.9)
    append(run, 2, "scheduler", "lr_schedule", "optimal", 0.9, "reject", c2)
    git(run.workspace, "reset", "-q", "--hard", "HEAD~1")
    assert _stage_check(run, "baseline").returncode == 1          # a row of a later stage already
    refused = _stage_check(run, "scheduler")
    assert refused.returncode == 1
    assert refused.stdout.splitlines() == [
        "- row 2 (line 3, trial 2): decision 'reject' is not one of keep, discard, crash",
        "stage check scheduler: 1 problem above. Fix them in ledger.tsv (or run the missing trials), then check again.",
    ]
    run.ledger.write_text(run.ledger.read_text().replace("\treject\t", "\tdiscard\t"))
    passed = _stage_check(run, "scheduler")
    assert (passed.returncode, passed.stdout.strip()) == (0, "stage check scheduler: passed (2 ledger rows up to scheduler, all valid)")
    missing = _stage_check(run, "optimizer")
    assert missing.returncode == 1 and "- stage optimizer has 0 rows; the protocol gives it 1" in missing.stdout


def test_the_stage_check_asks_for_the_measured_result(tmp_path):
    run = one_per_stage(tmp_path)
    base = candidate(run)
    append(run, 1, "baseline", "baseline", "template", 0.92, "keep", base)
    refused = _stage_check(run, "baseline")
    assert refused.returncode == 1 and "no results file results/" in refused.stdout
    measured(run, base, 0.95)
    differs = _stage_check(run, "baseline")
    assert differs.returncode == 1 and "differs from the run's measured test_accuracy 0.950000" in differs.stdout
    # the scorer's validity is the paper's seven rules: a missing measurement does not void the row
    assert score(run.workspace, Plan.uniform(1)).valid_rows == 1


def test_the_stage_check_is_called_wrongly_with_exit_2(tmp_path):
    run = one_per_stage(tmp_path)
    unknown = _stage_check(run, "tuning")
    assert unknown.returncode == 2 and "STAGE is start or one of baseline" in unknown.stderr
    (run.checks / "plan.json").unlink()
    assert _stage_check(run, "baseline").returncode == 2


def test_the_start_check_wants_the_template_unchanged_and_no_rows(tmp_path):
    run = build_run(tmp_path, FULL_PLAN)
    (run.workspace / "train.py").write_text("changed\n")
    started = _stage_check(run, "start")
    assert started.returncode == 1 and "train.py has uncommitted changes before the baseline" in started.stdout
    run.ledger.unlink()
    assert "ledger.tsv is missing" in _stage_check(run, "start").stdout
