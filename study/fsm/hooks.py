"""Adapters between Claude Code's hooks and the runtime: hook input dict in, hook output dict out.

They call the runtime and never change the state themselves: PreToolUse asks the tool-call gate,
Stop asks the stop gate, PostToolUse / PostToolUseFailure append the completed call to the
history (``observe``). The command ``study fsm hook EVENT`` wraps them for
``.claude/settings.json``; the study's runner may call them from claude-agent-sdk hooks.

Tool names: Claude Code names an MCP tool ``mcp__<server>__<tool>``. Calls of the FSM's own
server (``fsm_server``) are never gated or recorded. With ``tool_prefix`` (e.g.
``mcp__sopbench__``) that prefix is removed, so a workflow can use bare tool names; any other
name is used as it is (e.g. ``Bash``, ``Read``).

An admitted call gets an empty output (``{}``): the FSM only ever refuses, it never grants a
permission that Claude Code's own permission settings would not.
"""

from __future__ import annotations

from typing import Any

from .runtime import FsmRuntime


def workflow_tool_name(claude_tool: str, tool_prefix: str | None) -> str:
    if tool_prefix and claude_tool.startswith(tool_prefix):
        return claude_tool[len(tool_prefix):]
    return claude_tool


def is_fsm_tool(claude_tool: str, fsm_server: str | None) -> bool:
    return bool(fsm_server) and claude_tool.startswith(f"mcp__{fsm_server}__")


def deny_tool(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def block_stop(reason: str) -> dict[str, Any]:
    return {"decision": "block", "reason": reason}


def _tool_and_args(hook_input: dict[str, Any]) -> tuple[str, Any]:
    tool = hook_input.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise ValueError("the hook input has no 'tool_name'")
    return tool, hook_input.get("tool_input", {})


def pre_tool_use(rt: FsmRuntime, hook_input: dict[str, Any], *, tool_prefix: str | None = None, fsm_server: str | None = "fsm") -> dict[str, Any]:
    """The tool-call gate: {} to admit, a deny output with the reason to refuse."""
    tool, args = _tool_and_args(hook_input)
    if is_fsm_tool(tool, fsm_server):
        return {}
    decision = rt.gate(workflow_tool_name(tool, tool_prefix), args)
    return {} if decision.allowed else deny_tool(decision.reason)


def post_tool_use(rt: FsmRuntime, hook_input: dict[str, Any], *, ok: bool, tool_prefix: str | None = None, fsm_server: str | None = "fsm") -> dict[str, Any]:
    """Record the completed call: ``ok`` is True for PostToolUse, False for PostToolUseFailure.

    Claude Code (verified with CLI 2.1.332) fires PostToolUseFailure, not PostToolUse, when an
    MCP tool answers with ``isError``.
    """
    tool, args = _tool_and_args(hook_input)
    if not is_fsm_tool(tool, fsm_server):
        rt.observe(workflow_tool_name(tool, tool_prefix), args, ok)
    return {}


def stop(rt: FsmRuntime, hook_input: dict[str, Any]) -> dict[str, Any]:
    """The stop gate: {} to let the turn end, a block output naming the state otherwise."""
    decision = rt.stop_gate()
    return {} if decision.allowed else block_stop(decision.reason)
