"""Same name, same thing: the two old spellings of the sessions folder follow one rule, and the
hooks and the simulator split a tool name with one function."""

from __future__ import annotations

from pathlib import Path

import pytest

from study.cli.legacy import sessions_or_legacy
from study.cli.vocabulary import UsageError
from study.runner.cli import sessions_folder


@pytest.mark.parametrize("resolve", [sessions_or_legacy, sessions_folder])
def test_both_old_spellings_follow_one_rule(resolve, capsys):
    assert resolve(Path("a"), None) == Path("a")
    assert resolve(None, Path("b")) == Path("b") and "note:" in capsys.readouterr().err
    assert resolve(Path("a"), Path("a")) == Path("a")
    with pytest.raises(UsageError, match="given twice, as --sessions a and as .* b; give it once"):
        resolve(Path("a"), Path("b"))


def test_one_split_of_tool_names():
    from study.fsm import hooks
    from study.sim import conversation, truth

    assert conversation.split_tool_name is hooks.split_tool_name is truth.split_tool_name
    assert hooks.split_tool_name("mcp__x") == ("x", "")
    assert hooks.split_tool_name("mcp__sopbench__list_batch") == ("sopbench", "list_batch")
    assert hooks.split_tool_name("Bash") == (None, "Bash")


def test_run_all_resolves_the_sessions_folder_once_and_passes_it_down(tmp_path, monkeypatch):
    """Without --sessions, run-all resolves the project's sessions/ at its edge: the matrix, the
    plan and every session get that path, nothing below works out the default again."""
    from click.testing import CliRunner

    from study.cli import main
    from study.runner import cli as runner_cli
    from study.runner.matrix import MatrixResult

    monkeypatch.setattr("study.paths.sessions_dir", lambda: tmp_path / "sessions")
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: "c0ffee" * 10 + "c0ff")
    calls = []
    monkeypatch.setattr(runner_cli, "run_matrix", lambda specs, **kw: calls.append((specs, kw)) or MatrixResult())
    done = CliRunner().invoke(main, ["run-all", "--conditions", "Plain", "--seeds", "2", "--model", "sim:oracle",
                                     "--accounts", "1"])
    assert done.exit_code == 0, done.output
    [(specs, kwargs)] = calls
    assert kwargs["root"] == tmp_path / "sessions"
    assert [s.out_root for s in specs] == [tmp_path / "sessions"]
