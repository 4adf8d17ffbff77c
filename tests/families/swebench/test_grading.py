"""Grading with the official harness in docker (study/families/swebench/grading.py): the gold
patch resolves, an empty patch, a wrong fix and a patch that does not apply do not, and a broken
image, a missing docker or a daemon that does not answer are infrastructure failures, never
"unresolved". Each real grading builds the instance's image afresh and runs its tests in a
container without network; an audit's re-grade from the kept logs gives the same verdict."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from study.families.swebench import grading, task_repo

pytestmark = pytest.mark.xdist_group("swebench-docker")
CALENDAR = "studyfixtures__calendarkit-12"
SETTINGS = "studyfixtures__appsettings-31"


def _instance(instance_id):
    return next(i for i in task_repo.instances() if i.instance_id == instance_id)


def _no_containers_left(grade):
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"name=.{grade.run_id}"],
                          capture_output=True, text=True).stdout.split()
    assert left == [], f"containers left behind: {left}"


LEDGER = "studyfixtures__ledgerexport-7"


@pytest.fixture(scope="module")
def batch(swebench_task_repo, tmp_path_factory):
    """One harness run: the gold patch of calendarkit, the wrong fix of appsettings, an empty
    patch for ledgerexport."""
    patches = {CALENDAR: task_repo.diff_of(_instance(CALENDAR), "gold"),
               SETTINGS: task_repo.diff_of(_instance(SETTINGS), "wrong"), LEDGER: ""}
    grades = grading.grade_many(patches, swebench_task_repo, tmp_path_factory.mktemp("batch"))
    print(f"three instances graded in one harness run in {grades[CALENDAR].seconds} s")
    return grades


def test_the_gold_patch_is_resolved(batch):
    grade = batch[CALENDAR]
    assert grade.outcome == grading.RESOLVED, grade.reason
    assert grade.reason == "resolved: FAIL_TO_PASS 3/3, PASS_TO_PASS 7/7"
    kept = Path(grade.folder)
    assert json.loads((kept / "grade.json").read_text())["grades"][CALENDAR]["outcome"] == "resolved"
    assert list(kept.glob(f"logs/run_evaluation/*/study/{CALENDAR}/test_output.txt"))
    assert list(kept.glob("logs/image_builder/*/*calendarkit*/build_image.log"))
    assert list(kept.glob("study.*.json")), "the harness's run report is kept"
    _no_containers_left(grade)


def test_a_wrong_fix_is_unresolved(batch):
    grade = batch[SETTINGS]
    assert grade.outcome == grading.UNRESOLVED, grade.reason
    assert grade.reason == "unresolved: FAIL_TO_PASS 1/2, PASS_TO_PASS 7/7"
    assert grade.report["patch_successfully_applied"] is True


def test_an_empty_patch_is_unresolved(batch):
    assert (batch[LEDGER].outcome, batch[LEDGER].reason) == (grading.UNRESOLVED, "empty patch")


def test_an_audit_s_regrade_from_the_kept_logs_agrees(batch, swebench_task_repo):
    again = grading.regrade(Path(batch[CALENDAR].folder), swebench_task_repo)
    assert {i: (g.outcome, g.reason) for i, g in again.items()} == {i: (g.outcome, g.reason) for i, g in batch.items()}


def test_the_verdict_reads_the_harness_s_own_words(tmp_path):
    """What the harness leaves when a patch does not apply, the tests time out or the container
    fails (no report.json, its run_instance.log says why), and how each is read; the strings are
    the harness's own constants."""
    constants = pytest.importorskip("swebench.harness.constants")
    assert grading.APPLY_FAILED == constants.APPLY_PATCH_FAIL
    instance_dir = tmp_path / "logs" / "run_evaluation" / "r" / "study" / CALENDAR
    instance_dir.mkdir(parents=True)
    (tmp_path / "harness.log").write_text("Running 1 instances...\nAll instances run.\n")
    cases = {
        f"INFO - {constants.APPLY_PATCH_FAIL}:\nerror: patch failed": (grading.UNRESOLVED, "the patch did not apply to the base commit"),
        "INFO - Error in evaluation for x: Test timed out after 60 seconds.": (grading.UNRESOLVED, "the tests ran past the time limit"),
        "ERROR - Error creating container for x: 500 Server Error": (grading.INFRASTRUCTURE_FAILURE, None),
    }
    for log, (outcome, reason) in cases.items():
        (instance_dir / "run_instance.log").write_text(log)
        got = grading.verdict(tmp_path, "r", CALENDAR, 0)
        assert got[0] == outcome and (reason is None or got[1] == reason), (log, got)
    assert grading.verdict(tmp_path, "r", CALENDAR, 1)[0] == grading.INFRASTRUCTURE_FAILURE, "a crashed harness"


def test_a_broken_dockerfile_is_an_infrastructure_failure(swebench_task_repo, tmp_path):
    broken = tmp_path / "task-repo"
    shutil.copytree(swebench_task_repo, broken)
    dockerfile = broken / "tasks" / LEDGER / "Dockerfile"
    dockerfile.write_text(dockerfile.read_text().replace("WORKDIR /testbed", "RUN exit 3\nWORKDIR /testbed"))
    gold = task_repo.diff_of(_instance(LEDGER), "gold")
    grade = grading.grade(LEDGER, gold, broken, tmp_path / "g")
    assert grade.outcome == grading.INFRASTRUCTURE_FAILURE, grade.reason
    assert "did not build" in grade.reason
    assert "exit 3" in next(Path(grade.folder).glob("logs/image_builder/*/*/build_image.log")).read_text()
    left = subprocess.run(["docker", "ps", "-a", "--format", "{{.Command}}"], capture_output=True, text=True).stdout
    assert "exit 3" not in left, "the failed build step left its container behind"
    dangling = subprocess.run(["docker", "images", "-q", "--filter", "dangling=true", "--filter",
                               f"label={task_repo.IMAGE_LABEL}"], capture_output=True, text=True).stdout
    assert dangling == "", "the failed build left its intermediate image behind"
    _no_containers_left(grade)
    assert grading.regrade(Path(grade.folder), broken)[LEDGER].outcome == grading.INFRASTRUCTURE_FAILURE
    print(f"broken image graded in {grade.seconds} s")


def test_no_docker_is_an_infrastructure_failure_in_one_line(tmp_path, monkeypatch):
    grade = grading.grade(CALENDAR, "diff", tmp_path / "none", tmp_path / "g", env={"PATH": str(tmp_path)})
    assert grade.outcome == grading.INFRASTRUCTURE_FAILURE
    assert grade.reason.startswith("docker is not installed: run scripts/docker-up")
    assert "\n" not in grade.reason
    assert json.loads((tmp_path / "g" / "grade.json").read_text())["grades"][CALENDAR]["outcome"] == "infrastructure_failure"


def test_a_daemon_that_does_not_answer_is_an_infrastructure_failure(tmp_path):
    if shutil.which("docker") is None:
        pytest.skip("no docker client here")
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "DOCKER_HOST": f"unix://{tmp_path}/no.sock", "HOME": str(tmp_path)}
    grade = grading.grade(CALENDAR, "diff", tmp_path / "none", tmp_path / "g", env=env)
    assert grade.outcome == grading.INFRASTRUCTURE_FAILURE
    assert grade.reason.startswith("the docker daemon does not answer") and "\n" not in grade.reason
