"""The freeze: what it hashes, the manifest's format, and when it refuses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import NotFrozen, PreregError, PreregViolation, amend, check_before_run, freeze, verify
from study.prereg.files import sha256_file

from .conftest import limits_text

FROZEN = [
    "analysis/__init__.py",
    "analysis/scoring.py",
    "analysis/stats/paired.py",
    "preregistration/README.md",
    "preregistration/conditions.yaml",
    "preregistration/limits.yaml",
    "preregistration/orders/seed-2.txt",
    "preregistration/orders/seed-3.txt",
    "preregistration/plan.md",
    "preregistration/predictions.yaml",
    "preregistration/runtime.json",
    "preregistration/texts/first_message.md",
    "preregistration/workflows/referral_abuse_per_account.yaml",
    "sopbench_tools/toolbox.py",
    "study/fsm/guards.py",
    "study/procedure/escape_routes.py",
    "study/runner/texts.py",
    "study/session_io/reader.py",
]


def manifest_lines(root: Path) -> list[str]:
    return (root / "preregistration/MANIFEST.sha256").read_text(encoding="utf-8").splitlines()


def test_manifest_lists_every_frozen_file_with_its_sha256_in_sha256sum_format(frozen):
    lines = manifest_lines(frozen)
    assert [line.split("  ", 1)[1] for line in lines] == FROZEN
    for line in lines:
        digest, path = line.split("  ", 1)
        assert digest == sha256_file(frozen / path)


def test_freeze_record_names_commit_time_and_hashes(tree):
    from study.prereg.gitinfo import head_commit

    commit = head_commit(tree)
    record = freeze(tree)
    on_disk = json.loads((tree / "preregistration/freeze.json").read_text(encoding="utf-8"))
    assert on_disk == record
    assert record["git_commit"] == commit and record["git_dirty"] is False
    assert record["files"] == len(FROZEN)
    assert record["manifest_sha256"] == sha256_file(tree / "preregistration/MANIFEST.sha256")
    assert record["frozen_at"].endswith("Z")


def test_analysis_code_hash_is_reproducible_with_grep_and_sha256sum(frozen):
    record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    by_hand = subprocess.run(
        "grep -E '^[0-9a-f]{64}  analysis/' preregistration/MANIFEST.sha256 | sha256sum",
        shell=True, cwd=frozen, capture_output=True, text=True, check=True,
    ).stdout.split()[0]
    assert record["analysis_code_sha256"] == by_hand


def test_freeze_refuses_a_dirty_tree_naming_the_files(tree):
    (tree / "preregistration/plan.md").write_text("# Plan, not committed\n", encoding="utf-8")
    (tree / "study/new_module.py").write_text("x = 1\n", encoding="utf-8")
    with pytest.raises(PreregError) as refused:
        freeze(tree)
    message = str(refused.value)
    assert "preregistration/plan.md" in message and "study/new_module.py" in message
    assert "--allow-dirty" in message
    assert not (tree / "preregistration/MANIFEST.sha256").exists()

    record = freeze(tree, allow_dirty=True)
    assert record["git_dirty"] is True
    assert sorted(record["dirty_paths"]) == ["preregistration/plan.md", "study/new_module.py"]


def test_freeze_outside_git_needs_allow_dirty(tmp_path, monkeypatch):
    from study.prereg import imported
    from study.prereg.runtime import write_runtime

    monkeypatch.setattr(imported, "package_dir", lambda name: tmp_path / name)  # no code: only the plan
    (tmp_path / "preregistration").mkdir()
    (tmp_path / "preregistration/plan.md").write_text("plan\n", encoding="utf-8")
    with pytest.raises(PreregError, match="runtime.json is missing"):
        freeze(tmp_path)
    write_runtime(tmp_path)
    with pytest.raises(PreregError, match="not a git checkout"):
        freeze(tmp_path)
    record = freeze(tmp_path, allow_dirty=True)
    assert record["git_commit"] is None and record["git_dirty"] is True
    check_before_run(tmp_path)


def test_freeze_refuses_an_empty_preregistration(tmp_path):
    (tmp_path / "preregistration").mkdir()
    with pytest.raises(PreregError, match="Nothing to freeze"):
        freeze(tmp_path, allow_dirty=True)


def test_second_freeze_is_refused_unless_refreeze_and_never_over_amendments(frozen, git):
    with pytest.raises(PreregError, match="already frozen"):
        freeze(frozen)
    (frozen / "preregistration/limits.yaml").write_text(limits_text(10), encoding="utf-8")
    record = freeze(frozen, refreeze=True, allow_dirty=True)
    with pytest.raises(PreregViolation, match="commit the new freeze"):
        check_before_run(frozen)
    git(frozen, "commit", "-qam", "new freeze")
    assert check_before_run(frozen) == record["sha256"]

    (frozen / "preregistration/limits.yaml").write_text(limits_text(20), encoding="utf-8")
    amend(["preregistration/limits.yaml"], "cap", root=frozen)
    with pytest.raises(PreregError, match="orphan"):
        freeze(frozen, refreeze=True, allow_dirty=True)


def test_unfrozen_tree_raises_not_frozen_with_the_command_to_run(tree):
    with pytest.raises(NotFrozen, match="study prereg freeze"):
        check_before_run(tree)
    with pytest.raises(NotFrozen):
        verify(tree)


def test_freeze_command_and_show_manifest_pipe_into_sha256sum(tree, study_root):
    study_root(tree)
    runner = CliRunner()
    frozen = runner.invoke(main, ["prereg", "freeze"])
    assert frozen.exit_code == 0, frozen.output
    assert "sha256sum -c preregistration/MANIFEST.sha256" in frozen.output
    again = runner.invoke(main, ["prereg", "freeze"])     # nothing changed: nothing to freeze (issue 49, item 4)
    assert again.exit_code == 0 and again.output.startswith("Nothing to freeze: the preregistration is frozen")
    assert "all 18 frozen files are as frozen" in again.output

    (tree / "preregistration/plan.md").write_text("# Plan v2\n", encoding="utf-8")
    changed = runner.invoke(main, ["prereg", "freeze"])   # a change: recorded by an amendment, not a freeze
    assert changed.exit_code == 1 and "already frozen" in changed.output and "study prereg amend" in changed.output
    assert runner.invoke(main, ["prereg", "amend", "--reason", "v2", "preregistration/plan.md"]).exit_code == 0
    effective = runner.invoke(main, ["prereg", "show", "--manifest"]).output
    checked = subprocess.run(["sha256sum", "--strict", "-c", "-"], input=effective, cwd=tree,
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "preregistration/plan.md: OK" in checked.stdout
