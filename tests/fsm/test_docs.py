"""docs/fsm.md's example project is valid: its workflow loads, its hooks and server commands parse."""

from __future__ import annotations

import json
import re
import shlex

from click.testing import CliRunner

from fsm_helpers import REPO
from study.cli import main

DOC = (REPO / "docs" / "fsm.md").read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC, flags=re.DOTALL)


def test_the_example_project_works_with_the_documented_commands(tmp_path, monkeypatch):
    (yaml_text,) = _blocks("yaml")
    settings, mcp = (json.loads(b) for b in _blocks("json"))
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "bugfix.yaml").write_text(yaml_text)
    expand = lambda s: s.replace("$CLAUDE_PROJECT_DIR", str(tmp_path))  # noqa: E731

    assert CliRunner().invoke(main, ["fsm", "validate", str(tmp_path / "workflows" / "bugfix.yaml")]).exit_code == 0
    monkeypatch.chdir(tmp_path)  # the MCP server runs in the project folder: its paths are relative
    server_args = mcp["mcpServers"]["fsm"]["args"]
    assert server_args[:2] == ["fsm", "serve"]
    assert CliRunner().invoke(main, ["fsm", "enter", "BugFix", *server_args[2:]]).exit_code == 0

    def run_hook(event_key: str, payload: dict) -> dict:
        command = shlex.split(expand(settings["hooks"][event_key][0]["hooks"][0]["command"]))
        assert command[:3] == ["study", "fsm", "hook"]
        result = CliRunner().invoke(main, command[1:], input=json.dumps(payload))
        assert result.exit_code == 0, result.output
        return json.loads(result.stdout)

    edit = {"tool_name": "Edit", "tool_input": {"file_path": "/p/src/x.py"}}
    assert run_hook("PreToolUse", edit)["hookSpecificOutput"]["permissionDecision"] == "deny"  # no edits before S_fix
    assert run_hook("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "python -m pytest -q tests/test_x.py"}}) == {}
    assert run_hook("PreToolUse", {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert run_hook("PostToolUse", {"tool_name": "Read", "tool_input": {"file_path": "/p/a.py"}, "tool_response": {}}) == {}
    assert run_hook("Stop", {"stop_hook_active": False})["decision"] == "block"
