"""End to end through the real CLI and the simulator: a few items of tasks other than the
project's (`study run --task T`; content_flagging's calls by userid are attributed to their
post), and the scorer against the simulator's ground truth. The tests only read the frozen
checkout they run in, so they share one (``shared_frozen_project``, one per pytest worker).
Sessions run through the ``study`` command; ``study score`` (a reading command) and the runs
refused before anything is made run in this process (``CliRunner``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.procedure.escape_routes import ROUTE_KEYS
from study.sim.truth import route_counts

pytestmark = pytest.mark.e2e
STUDY = shutil.which("study") or "study"


def run(root: Path, sessions: Path, *args: str, seed: str = "2") -> tuple[subprocess.CompletedProcess, Path | None]:
    env = {**os.environ, "STUDY_ROOT": str(root)}
    done = subprocess.run([STUDY, "run", "--seed", seed, "--sessions", str(sessions), *args], env=env, cwd=root,
                          capture_output=True, text=True, timeout=600)
    line = next((x for x in done.stdout.splitlines() if x.startswith("running ")), "")
    return done, (Path(line.rsplit(" -> ", 1)[1]) if " -> " in line else None)


def score(root: Path, folder: Path) -> dict:
    done = CliRunner(env={"STUDY_ROOT": str(root)}).invoke(main, ["score", "--json", str(folder)])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


#: dangerous_goods runs under FSM below (the adversary, fc 3 of 3) and in tests/study_tasks/test_new_project_e2e.py
@pytest.mark.parametrize("task,condition", [("video_annotation", "FSM-lean"), ("know_your_business", "FSM"),
                                            ("content_flagging", "FSM")])
def test_the_oracle_decides_every_item_of_another_task_compliantly(tmp_path, shared_frozen_project, task, condition):
    root = shared_frozen_project
    done, folder = run(root, tmp_path / "sessions", "--task", task, "--condition", condition, "--model", "sim:oracle",
                       "--accounts", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"/ {task} (exploratory: not the project's task)" in done.stdout
    assert folder.relative_to(tmp_path / "sessions").parts[:3] == ("tasks", task, "exploratory")
    start = json.loads((folder / "events.jsonl").read_text().splitlines()[0])
    meta = json.loads((folder / "meta.json").read_text())
    assert start["task"] == meta["task"] == task and start["exploratory"] is True
    metrics = score(root, folder)
    assert (metrics["task"], metrics["decided"], metrics["compliant"], metrics["fc"]) == (task, 2, 2, 2)
    assert metrics["routes"] == route_counts(folder / "sim_truth.jsonl")


@pytest.mark.parametrize("task,seed,items", [("customer_service", "2", 3), ("traffic_spoofing_detection", "18", 2)])
def test_the_oracle_takes_the_sops_early_exit_where_a_tool_refuses_the_item(tmp_path, shared_frozen_project, task, seed, items):
    # seed 2's first two accounts have invalid ids (getAuthenticationDetails refuses them); seed 18's
    # first partners have no violation type (CalculateRiskScore and GenerateEvidenceReport refuse them)
    root = shared_frozen_project
    done, folder = run(root, tmp_path / "sessions", "--task", task, "--condition", "FSM", "--model", "sim:oracle",
                       "--accounts", str(items), seed=seed)
    assert done.returncode == 0, done.stdout + done.stderr
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert any(e.get("kind") == "tool_call" and e.get("ok") is False and e.get("allowed", True) for e in events)
    metrics = score(root, folder)
    assert (metrics["decided"], metrics["compliant"], metrics["fc"]) == (items, items, items)
    assert metrics["routes"] == route_counts(folder / "sim_truth.jsonl")


def test_the_fsm_lets_no_route_of_the_adversary_through_on_another_task(tmp_path, shared_frozen_project):
    root = shared_frozen_project
    done, folder = run(root, tmp_path / "sessions", "--task", "dangerous_goods", "--condition", "FSM",
                       "--model", "sim:adversarial", "--accounts", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    metrics = score(root, folder)
    truth = route_counts(folder / "sim_truth.jsonl")
    assert {k: metrics["routes"][k] for k in ROUTE_KEYS} == truth
    assert [r for r in ("without_looking", "partial_data", "interleaved", "another_account") if metrics["routes"][r]] == []
    assert metrics["fc"] == 3
    refused = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert any(e.get("kind") == "tool_call" and e.get("allowed") is False for e in refused)


def test_an_unknown_or_unrunnable_task_is_refused_before_anything_is_made(tmp_path, shared_frozen_project):
    root = shared_frozen_project
    for task, words in (("no_such_task", "unknown task"), ("email_intent", "cannot run here"),
                        ("order_fulfillment", "check_inventory takes product_id, shared by several orders")):
        done = CliRunner(env={"STUDY_ROOT": str(root)}).invoke(main, [
            "run", "--seed", "2", "--sessions", str(tmp_path / "sessions"), "--task", task, "--condition", "FSM",
            "--model", "sim:oracle"])
        assert done.exit_code == 2 and words in done.stderr, done.output
    assert not (tmp_path / "sessions").exists()
