"""`study fsm build --task T`: the workflows of any task, generated from its manifest.

The preregistered task's are the frozen files byte for byte; another task's have the same states,
gate, guards (Eqs. 4-6 over its required data tools, its record and its decision) and stop gate,
and load through the workflow loader.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from click.testing import CliRunner

from fsm_helpers import REPO, make_runtime, move, observe_all
from sopbench_tools.tasks import load_task, task_names
from study.cli import main
from study.fsm import Workflow
from study.fsm.task_build import main_workflow_file, task_files

TINY = REPO / "tests" / "fixtures" / "tasks" / "tiny_parcels.yaml"
FROZEN_MAIN = "56d85d82446ff03b5d4c0b97f185e44c2fe1b47eb6ac8a2e2e2ec62a3c93d011"


def test_the_preregistered_task_builds_the_frozen_files_byte_for_byte(tmp_path):
    result = CliRunner().invoke(main, ["fsm", "build", "--task", "referral_abuse_detection_v2", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    built = tmp_path / "workflows" / "referral_abuse_per_account.yaml"
    assert hashlib.sha256(built.read_bytes()).hexdigest() == FROZEN_MAIN
    for path in sorted(tmp_path.rglob("*.*")):
        rel = path.relative_to(tmp_path)
        assert path.read_bytes() == (REPO / "preregistration" / rel).read_bytes(), rel
    check = CliRunner().invoke(main, ["fsm", "build", "--task", "referral_abuse_detection_v2", "--check"])
    assert check.exit_code == 0, check.output


def test_another_task_has_the_same_machine_over_its_own_tools(tmp_path):
    result = CliRunner().invoke(main, ["fsm", "build", "--task", str(TINY), "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    main_wf = Workflow.load(tmp_path / "workflows" / "tiny_parcels_per_parcel.yaml")
    assert (main_wf.name, main_wf.initial, main_wf.exit) == ("TinyParcelsPerParcel", "S_investigate", "S_done")
    assert set(main_wf.transitions) == {("S_investigate", "S_decide"), ("S_decide", "S_investigate"), ("S_investigate", "S_done")}
    investigate = main_wf.states["S_investigate"].permissions.permitted_tools(main_wf.tools)
    decide = main_wf.states["S_decide"].permissions.permitted_tools(main_wf.tools)
    assert set(investigate) == {"check_weight", "read_label", "record_analysis", "list_batch", "list_decisions"}
    assert set(decide) == {"submit_decision", "list_batch", "list_decisions"}
    text = (tmp_path / "workflows" / "tiny_parcels_per_parcel.yaml").read_text()
    assert "item_arg: parcel_id" in text and "item_noun: parcel" in text and "account" not in text
    for rel in ("workflows/stop_only.yaml", "workflows/exploratory/fsm_bound.yaml",
                "workflows/exploratory/fsm_lean.yaml", "workflows/exploratory/fsm_lean_bound.yaml"):
        wf = Workflow.load(tmp_path / rel)
        assert "account" not in (tmp_path / rel).read_text(), rel
        if "lean" in rel:
            assert list(wf.pause) == ["S_done"]
            assert all(t.automatic for t in wf.transitions.values())
    assert "parcel" in (tmp_path / "texts" / "reminder.md").read_text()


def test_the_guards_of_another_task_are_equations_4_to_6_over_its_tools(tmp_path):
    wf = Workflow.from_text(task_files(load_task(TINY))[Path("workflows/tiny_parcels_per_parcel.yaml")], "tiny.yaml")
    rt = make_runtime(tmp_path, wf, ["P001", "P002"])
    weight = ("check_weight", {"parcel_id": "P001"}, True)
    label = ("read_label", {"parcel_id": "P001"}, True)
    rec = ("record_analysis", {"parcel_id": "P001", "hazard_score": 3, "hazard_class": "Class A"}, True)
    observe_all(rt, [weight, rec])
    refused = move(rt, "S_decide")
    assert not refused.ok and "Missing data for parcel P001" in refused.reason and "read_label" in refused.reason
    observe_all(rt, [label, ("check_weight", {"parcel_id": "P002"}, True), rec])
    refused = move(rt, "S_decide")
    assert not refused.ok and "Interleaved parcels" in refused.reason and "P002" in refused.reason
    observe_all(rt, [weight, label, rec])
    assert move(rt, "S_decide").ok
    observe_all(rt, [("submit_decision", {"parcel_id": "P001", "hazard_class": "Class A"}, True)])
    assert move(rt, "S_investigate").ok
    done = move(rt, "S_done")
    assert not done.ok and "1 of 2 parcels have no decision" in done.reason


def test_a_task_other_than_the_projects_needs_a_root():
    result = CliRunner().invoke(main, ["fsm", "build", "--task", str(TINY)])
    assert result.exit_code == 2 and "--root" in result.output


def test_an_unknown_task_is_refused_naming_the_tasks(tmp_path):
    result = CliRunner().invoke(main, ["fsm", "build", "--task", "no_such_task", "--root", str(tmp_path)])
    assert result.exit_code == 2 and "referral_abuse_detection_v2" in result.output
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("name", task_names())
def test_every_vendored_task_builds_workflows_the_loader_accepts(name):
    task = load_task(name)
    if not task.runnable:
        pytest.skip(task.not_runnable_reason)
    files = task_files(task)
    for rel, text in files.items():
        if rel.suffix == ".yaml":
            Workflow.from_text(text, str(rel))
    main_wf = Workflow.from_text(files[main_workflow_file(task)], "main.yaml")
    guard = main_wf.transitions[("S_investigate", "S_decide")]
    assert guard is not None and main_wf.initial == "S_investigate"


def test_calls_that_name_the_item_by_a_unique_argument_count_for_that_item_in_the_guards(tmp_path):
    # content_flagging's calculateBotProbabilityIndex and calculate_user_trust_score take the post's
    # userid (unique per post), not its content_id: the workflow's guards map it to the post
    task = load_task("content_flagging")
    a, b = task.item_ids[:2]
    ua, ub = task.rows[a]["userid"], task.rows[b]["userid"]
    wf = Workflow.from_text(task_files(task)[main_workflow_file(task)], "content_flagging.yaml")
    rt = make_runtime(tmp_path, wf, [a, b])
    bot = lambda user: ("calculateBotProbabilityIndex", {"userid": user}, True)  # noqa: E731
    trust = lambda user: ("calculate_user_trust_score", {"userid": user}, True)  # noqa: E731
    severity, final = ("calculateContentSeverityIndex", {"content_id": a}, True), ("determineFinalDecision", {"content_id": a}, True)
    rec = ("record_analysis", {"content_id": a}, True)
    observe_all(rt, [bot(ua), severity, final, rec])
    refused = move(rt, "S_decide")
    assert not refused.ok and f"Missing data for post {a}" in refused.reason and "calculate_user_trust_score" in refused.reason
    observe_all(rt, [trust(ua), bot(ub), rec])
    refused = move(rt, "S_decide")
    assert not refused.ok and "Interleaved posts" in refused.reason and b in refused.reason
    observe_all(rt, [bot(ua), severity, trust(ua), final, rec])
    assert move(rt, "S_decide").ok


def test_only_a_task_with_such_tools_gets_the_item_key_parameters():
    from study.procedure.core import procedure_of

    params = procedure_of(load_task("content_flagging")).check_params()
    assert params["item_keys"] == {"calculateBotProbabilityIndex": "userid", "calculate_user_trust_score": "userid"}
    assert len(params["item_tables"]["userid"]) == 168
    for name in ("referral_abuse_detection_v2", "dangerous_goods", "order_fulfillment"):
        assert "item_keys" not in procedure_of(load_task(name)).check_params()
