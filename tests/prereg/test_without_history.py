"""A project root without git history (a STUDY_ROOT copy without ``.git``) holds a freeze that
nothing checks: a confirmatory session there needs ``--without-git-history``; exploratory ones
run as before."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from study.cli import main


@pytest.fixture
def copy_without_git(tmp_path, frozen_project, monkeypatch):
    root = frozen_project(tmp_path / "project")
    shutil.rmtree(root / ".git")
    monkeypatch.setenv("STUDY_ROOT", str(root))
    monkeypatch.chdir(root)
    return root


@pytest.mark.parametrize("command", [
    ["run", "--condition", "FSM", "--seed", "2"],
    ["run-all", "--conditions", "FSM,Plain", "--seeds", "2-3"],
])
def test_a_confirmatory_run_without_git_history_is_refused(copy_without_git, tmp_path, command):
    out = tmp_path / "sessions"
    verify = CliRunner().invoke(main, ["prereg", "verify"])
    assert verify.exit_code == 0 and "not a git checkout" in verify.output   # the plan itself holds
    result = CliRunner().invoke(main, [*command, "--model", "sim:oracle", "--sessions", str(out)])
    assert result.exit_code == 2, result.output
    assert "is not a git checkout" in result.output and "--without-git-history" in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_the_flag_lets_it_run_and_exploratory_sessions_need_no_flag(copy_without_git, monkeypatch):
    from study.runner import cli

    confirmatory = [type("C", (), {"exploratory": False})()]
    exploratory = [type("C", (), {"exploratory": True})()]
    cli.refuse_without_history(confirmatory, True)
    cli.refuse_without_history(exploratory, False)
    with pytest.raises(cli.UsageError, match="not a git checkout"):
        cli.refuse_without_history(confirmatory, False)
