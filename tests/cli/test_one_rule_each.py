"""Same name, same thing: the two old spellings of the sessions folder follow one rule, and the
hooks and the simulator split a tool name with one function."""

from __future__ import annotations

from pathlib import Path

import pytest

from study.cli_legacy import sessions_or_legacy
from study.cli_vocabulary import UsageError
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
