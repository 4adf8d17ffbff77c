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
    yaml_text = _blocks("yaml")[0]   # BugFix; the second is the built-in tools' example (below)
    settings, mcp = (json.loads(b) for b in _blocks("json")[:2])
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


def test_the_built_in_tools_example_is_the_example_project_and_its_hooks_run(tmp_path, monkeypatch):
    """docs/fsm.md's "The CLI's own tools" example is examples/fsm-workspace's workflow, and its
    .claude/settings.json hooks gate by it (tests/fsm/test_workspace_e2e.py runs it on the CLIs)."""
    example = REPO / "examples" / "fsm-workspace"
    workflow = _blocks("yaml")[1]
    assert workflow == (example / "workflows" / "train.yaml").read_text()
    settings = json.loads(_blocks("json")[2])
    assert set(settings["hooks"]) == {"PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop"}
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "train.yaml").write_text(workflow)
    monkeypatch.chdir(tmp_path)
    assert "study fsm enter TrainOnce --frames .fsm --workflow workflows/train.yaml" in DOC
    assert CliRunner().invoke(main, ["fsm", "enter", "TrainOnce", "--frames", ".fsm", "--workflow", "workflows/train.yaml"]).exit_code == 0

    def pre(tool: str, tool_input: dict) -> dict:
        command = shlex.split(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"].replace("$CLAUDE_PROJECT_DIR", str(tmp_path)))
        result = CliRunner().invoke(main, command[1:], input=json.dumps({"tool_name": tool, "tool_input": tool_input, "cwd": "/"}))
        return json.loads(result.stdout)

    assert pre("Edit", {"file_path": str(tmp_path / "config.py")}) == {}   # --workspace, not the cwd, is the root
    assert pre("Edit", {"file_path": str(tmp_path / "train.py")})["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert pre("Bash", {"command": "python3 train.py"}) == {}
