"""The study's own SWE-bench instances (study/families/swebench/task_repo.py): each a real small
repository whose base commit has a stable sha, whose test patch fails where it should, whose gold
fix resolves it and whose wrong fix does not (checked here with pytest on the host, in seconds;
test_grading.py grades the same in docker with the official harness), and nothing of whose
grading reaches the agent's workspace."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from study.families.swebench import task_repo

INSTANCES = task_repo.instances()


def test_there_are_three_to_four_instances_with_distinct_ids():
    assert 3 <= len(INSTANCES) <= 4
    assert len({i.instance_id for i in INSTANCES}) == len(INSTANCES)


@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: i.folder.name)
def test_the_base_commit_is_the_recorded_sha_every_time(instance, tmp_path):
    first = task_repo.make_repository(instance, tmp_path / "a")
    assert first == instance.meta["base_commit"] == task_repo.make_repository(instance, tmp_path / "b")
    log = task_repo.git(tmp_path / "a", "log", "--format=%an|%aI|%s")
    assert len(log.splitlines()) == len(instance.meta["history"]) >= 2
    assert task_repo.git(tmp_path / "a", "status", "--porcelain") == ""


def _outcomes(repo: Path, tests: list[str]) -> dict[str, str]:
    files = sorted({name.split("::")[0] for name in tests})
    # --basetemp beside the repository: an instance test using tmp_path would otherwise make a numbered
    # folder in the machine's pytest-of-<user> and prune the oldest there, which are this suite's own
    # (some hold whole session folders: tens of seconds to remove, while other workers read them)
    done = subprocess.run([sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider",
                           f"--basetemp={repo.parent / (repo.name + '-pytest')}", *files],
                          cwd=repo, capture_output=True, text=True,
                          # the instance's tests need no plugin; loading the suite's costs seconds a run
                          env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return dict((m.group(2), m.group(1)) for m in re.finditer(r"^(PASSED|FAILED|ERROR) (\S+)", done.stdout, re.M))


def _apply(repo: Path, patch: str) -> None:
    subprocess.run(["git", "apply", "-"], cwd=repo, input=patch, text=True, check=True)


@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: i.folder.name)
def test_the_tests_fail_at_the_base_and_pass_with_the_gold_fix_not_with_the_wrong_one(instance, tmp_path):
    f2p, p2p = instance.meta["FAIL_TO_PASS"], instance.meta["PASS_TO_PASS"]
    test_patch = task_repo.diff_of(instance, "test")
    for overlay, expect_resolved in ((None, False), ("gold", True), ("wrong", False)):
        repo = tmp_path / (overlay or "base")
        task_repo.make_repository(instance, repo)
        if overlay:
            _apply(repo, task_repo.diff_of(instance, overlay))
        _apply(repo, test_patch)
        outcome = _outcomes(repo, f2p + p2p)
        assert all(outcome.get(name) == "PASSED" for name in p2p) or overlay == "wrong", (overlay, outcome)
        if overlay is None:
            assert all(outcome.get(name) == "FAILED" for name in f2p), outcome
        resolved = all(outcome.get(name) == "PASSED" for name in f2p + p2p)
        assert resolved is expect_resolved, (overlay, outcome)


@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: i.folder.name)
def test_the_gold_patch_touches_no_test_and_the_test_patch_only_tests(instance):
    gold, test = task_repo.diff_of(instance, "gold"), task_repo.diff_of(instance, "test")
    assert gold and all(not f.startswith("tests/") for f in task_repo._diff_files(gold))
    assert test and all(f.startswith("tests/") for f in task_repo._diff_files(test))


@pytest.mark.parametrize("instance", INSTANCES, ids=lambda i: i.folder.name)
def test_nothing_of_the_grading_reaches_the_workspace(instance, tmp_path):
    task_repo.make_repository(instance, tmp_path / "ws")
    text = "\n".join(p.read_text() for p in (tmp_path / "ws").rglob("*") if p.is_file() and ".git" not in p.parts)
    for name in instance.meta["FAIL_TO_PASS"]:
        assert name.split("::")[1] not in text
    added = [line[1:] for line in task_repo.diff_of(instance, "gold").splitlines()
             if line.startswith("+") and not line.startswith("+++") and line[1:].strip()]
    assert added and not any(line in text for line in added if len(line.strip()) > 12)


def test_the_task_repo_is_well_formed_for_the_official_harness(tmp_path):
    checks = pytest.importorskip("swebench.task.checks", reason="pip install --require-hashes -r requirements-swebench.lock")
    repo = pytest.importorskip("swebench.task.repo")
    out = task_repo.build_task_repo(tmp_path / "tasks", "localhost/sweb-study-base:test")
    assert [str(p) for p in checks.check_task_repo(out)] == []
    loaded = {t["instance_id"]: t for t in repo.load_task_repo(out)}
    assert set(loaded) == {i.instance_id for i in INSTANCES}
    for instance in INSTANCES:
        task = loaded[instance.instance_id]
        assert task["image"] == checks.expected_image(instance.instance_id) == task_repo.image_name(instance.instance_id)
        assert task["base_commit"] == instance.meta["base_commit"]
        assert ": '>>>>> Start Test Output'" in task["eval_script"] and ": '>>>>> End Test Output'" in task["eval_script"]
        assert (out / "tasks" / instance.instance_id / ".dockerignore").read_text() == "*\n!repo.bundle\n"
