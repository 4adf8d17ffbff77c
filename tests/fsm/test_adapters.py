"""The ways in: Claude Code hook commands, the stdio MCP server, the in-process SDK server.

The standalone path is tested as a Claude Code project would use it: the hook command and the
MCP server are separate processes sharing one frames folder, so the server must see what the
hooks recorded and the hooks must see the state the server committed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from fsm_helpers import MAIN, REPO, investigate, make_runtime, record
from study.cli import main
from study.runtimes.claude_code.fsm_server import make_fsm_sdk_server

PREFIX = "mcp__sopbench__"


def hook(event: str, frames, payload, *extra: str) -> dict:
    """Run `study fsm hook EVENT` in process; return its JSON output."""
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    args = ["fsm", "hook", event, "--frames", str(frames), "--workflow", str(MAIN), "--tool-prefix", PREFIX, *extra]
    result = CliRunner().invoke(main, args, input=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout.strip().splitlines()[-1])


def tool_input(tool: str, **args) -> dict:
    return {"session_id": "s", "transcript_path": "/dev/null", "cwd": "/", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": args, "tool_use_id": "t1"}


def test_hook_commands_and_stdio_server_share_the_frames(tmp_path):
    frames = tmp_path / "frames"
    variables = tmp_path / "vars.json"
    variables.write_text(json.dumps({"batch": ["A1", "A2"]}))

    # no workflow active yet: the gate admits, the stop gate lets the turn end
    assert hook("pre-tool-use", frames, tool_input(PREFIX + "submit_decision", account_id="A1", action="No Action")) == {}
    assert hook("stop", frames, {"hook_event_name": "Stop", "stop_hook_active": False}) == {}

    async def scenario():
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "study.cli", "fsm", "serve", "--frames", str(frames), "--workflow", str(MAIN), "--variables", str(variables)],
            cwd=str(REPO),
        )
        async with Client(params) as client:
            tools = [t.name for t in (await client.list_tools()).tools]
            assert tools == ["enter", "status", "self_check", "transition", "exit"]
            entered = await client.call_tool("enter", {"workflow": "ReferralAbusePerAccount"})
            assert not entered.is_error and json.loads(entered.content[0].text)["state"] == "S_investigate"

            denied = hook("pre-tool-use", frames, tool_input(PREFIX + "submit_decision", account_id="A1", action="No Action"))
            out = denied["hookSpecificOutput"]
            assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
            assert "submit_decision is not permitted in this state (state S_investigate" in out["permissionDecisionReason"]
            assert hook("pre-tool-use", frames, tool_input(PREFIX + "investigate_account", account_id="A1")) == {}
            assert hook("pre-tool-use", frames, tool_input("mcp__fsm__transition", target="S_decide", token="x")) == {}
            assert "not one of workflow" in hook("pre-tool-use", frames, tool_input("Bash", command="ls"))["hookSpecificOutput"]["permissionDecisionReason"]

            for tool, args, _ in investigate("A1") + [record("A1")]:
                assert hook("post-tool-use", frames, {**tool_input(PREFIX + tool, **args), "tool_response": [{"type": "text", "text": "{}"}]}) == {}
            hook("post-tool-use-failure", frames, {**tool_input(PREFIX + "investigate_account", account_id="A2"), "error": "Error: x"})
            hook("post-tool-use", frames, {**tool_input("mcp__fsm__status"), "tool_response": "{}"})  # FSM tools are not recorded

            token = json.loads((await client.call_tool("self_check", {"target": "S_decide"})).content[0].text)["token"]
            moved = await client.call_tool("transition", {"target": "S_decide", "token": token})
            assert not moved.is_error, moved.content[0].text
            again = await client.call_tool("transition", {"target": "S_decide", "token": token})
            assert again.is_error and "already used" in again.content[0].text
            bad = await client.call_tool("self_check", {})
            assert bad.is_error and "argument 'target' is required" in bad.content[0].text

            blocked = hook("stop", frames, {"hook_event_name": "Stop", "stop_hook_active": True})
            assert blocked["decision"] == "block" and "in state S_decide" in blocked["reason"]
            assert hook("pre-tool-use", frames, tool_input(PREFIX + "submit_decision", account_id="A1", action="No Action")) == {}

    anyio.run(scenario)
    frame = json.loads((frames / "main.json").read_text())["stack"][0]
    calls = [e for e in frame["history"] if e["kind"] == "call"]
    assert [c["tool"] for c in calls][:6] == ["investigate_account", "analyze_traffic_patterns", "analyze_temporal_patterns",
                                              "get_violation_history", "get_financial_impact", "record_analysis"]
    assert calls[-1] == {"kind": "call", "tool": "investigate_account", "args": {"account_id": "A2"}, "ok": False}
    assert frame["state"] == "S_decide" and frame["variables"]["account"] == "A1"


def test_hook_refuses_when_it_cannot_decide(tmp_path):
    denied = hook("pre-tool-use", tmp_path, "this is not json")
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "FSM hook error (pre-tool-use)" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    broken = tmp_path / "broken.yaml"
    broken.write_text("workflow: [\n")
    result = CliRunner().invoke(main, ["fsm", "hook", "stop", "--frames", str(tmp_path), "--workflow", str(broken)], input="{}")
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["decision"] == "block" and "broken.yaml:2: malformed YAML" in out["reason"]


def test_hook_command_as_a_real_process(tmp_path):
    """The exact command a .claude/settings.json runs."""
    proc = subprocess.run(
        [sys.executable, "-m", "study.cli", "fsm", "hook", "pre-tool-use", "--frames", str(tmp_path), "--workflow", str(MAIN)],
        input=json.dumps(tool_input("submit_decision", account_id="A1", action="No Action")),
        capture_output=True, text=True, cwd=str(REPO), timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {}


def test_sdk_server_serves_the_tools_and_reports_transitions(tmp_path, main_wf):
    rt = make_runtime(tmp_path, main_wf, ["A1"])
    events = []
    config = make_fsm_sdk_server(rt, on_event=lambda kind, fields: events.append((kind, fields)))
    assert config["type"] == "sdk" and config["name"] == "fsm"

    async def scenario():
        async with Client(config["instance"]) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            status = json.loads((await client.call_tool("status", {})).content[0].text)
            token = json.loads((await client.call_tool("self_check", {"target": "S_decide"})).content[0].text)["token"]
            refused = await client.call_tool("transition", {"target": "S_decide", "token": token})
            for tool, args, ok in investigate("A1") + [record("A1")]:
                rt.observe(tool, args, ok)
            token = json.loads((await client.call_tool("self_check", {"target": "S_decide"})).content[0].text)["token"]
            moved = await client.call_tool("transition", {"target": "S_decide", "token": token})
            exited = await client.call_tool("exit", {})
            missing = await client.call_tool("transition", {"target": "S_decide"})
            return names, status, refused, moved, exited, missing

    names, status, refused, moved, exited, missing = anyio.run(scenario)
    assert names == ["enter", "status", "self_check", "transition", "exit"]
    assert status["state"] == "S_investigate" and status["transitions"] == ["S_decide", "S_done"]
    assert refused.is_error and refused.content[0].text.startswith("No record_analysis yet")
    assert not moved.is_error and json.loads(moved.content[0].text)["state"] == "S_decide"
    assert exited.is_error and "exit is admitted only in the exit state 'S_done'" in exited.content[0].text
    assert missing.is_error  # the schema requires the token
    assert events == [
        ("transition", {"from": "S_investigate", "to": "S_decide", "ok": False, "reason": refused.content[0].text}),
        ("transition", {"from": "S_investigate", "to": "S_decide", "ok": True, "reason": "Account A1 is fully investigated and recorded; submit its decision."}),
    ]
