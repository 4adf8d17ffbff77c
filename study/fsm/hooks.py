"""Adapters between Claude Code's hooks and the runtime: hook input dict in, hook output dict out.

They call the runtime and never change the state themselves: PreToolUse asks the tool-call gate,
Stop asks the stop gate, PostToolUse / PostToolUseFailure append the completed call to the
history (``observe``, where the runtime commits any automatic transition the call makes hold; the
hook then adds the new state's instructions to the call's result). These functions are the only place where a hook decision is made: the
command ``study fsm hook EVENT`` wraps them for ``.claude/settings.json``, and the study's runner
(``study.runner.bridge``) calls the same functions from claude-agent-sdk hooks, adding only its
logging.

Tool names: Claude Code names an MCP tool ``mcp__<server>__<tool>``. Calls of the FSM's own
server (``fsm_server``) are never gated or recorded. With ``tool_prefix`` (e.g.
``mcp__sopbench__``) that prefix is removed, so a workflow can use bare tool names; any other
name is used as it is (e.g. ``Bash``, ``Read``). A call of the CLI's own tools (``Bash``,
``Edit``, Codex's ``apply_patch``, ...) is mapped to the built-in vocabulary (``shell``, ``read``,
``edit``, ``write``; ``builtin_tools.py``) for a workflow that uses it, with paths relative to
``workspace`` (default: the hook input's ``cwd``).

An admitted call gets an empty output (``{}``): the FSM only ever refuses, it never grants a
permission that Claude Code's own permission settings would not. PostToolUse's output is empty
too, except right after an automatic transition (additional context, never a decision).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from .builtin_tools import actions_of
from .outcomes import Decision, TransitionResult
from .runtime import FsmRuntime

#: The FSM tools' MCP server name the hooks assume unless told otherwise.
FSM_SERVER = "fsm"


def split_tool_name(claude_tool: str) -> tuple[str | None, str]:
    """``mcp__sopbench__submit_decision`` -> (``sopbench``, ``submit_decision``); ``Bash`` -> (None, ``Bash``)."""
    if claude_tool.startswith("mcp__"):
        server, _, tool = claude_tool[len("mcp__"):].partition("__")
        return server, tool
    return None, claude_tool


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


def refusal(output: dict[str, Any]) -> str | None:
    """The reason of a deny or block output (as made by :func:`deny_tool` / :func:`block_stop`),
    or None when the output admits the call or lets the turn end."""
    if output.get("decision") == "block":
        return str(output.get("reason", ""))
    specific = output.get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") == "deny":
        return str(specific.get("permissionDecisionReason", ""))
    return None


def tool_call_ok(hook_input: dict[str, Any]) -> bool:
    """Whether a completed call succeeded: PostToolUseFailure, or a response flagged ``isError``,
    is a failed call. Claude Code (verified with CLI 2.1.332) fires PostToolUseFailure, not
    PostToolUse, when an MCP tool answers with ``isError``."""
    if hook_input.get("hook_event_name") == "PostToolUseFailure":
        return False
    response = hook_input.get("tool_response")
    return not (isinstance(response, dict) and response.get("isError"))


def _tool_and_args(hook_input: dict[str, Any]) -> tuple[str, Any]:
    tool = hook_input.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise ValueError("the hook input has no 'tool_name'")
    args = hook_input.get("tool_input")
    return tool, args if args is not None else {}


def _cwd(hook_input: dict[str, Any]) -> str | None:
    cwd = hook_input.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else None


def pre_tool_use(rt: FsmRuntime, hook_input: dict[str, Any], *, tool_prefix: str | None = None, fsm_server: str | None = FSM_SERVER,
                 workspace: str | None = None) -> dict[str, Any]:
    """The tool-call gate: {} to admit, a deny output with the reason to refuse. ``workspace``:
    the folder built-in calls' paths are relative to (default: the hook input's ``cwd``)."""
    tool, args = _tool_and_args(hook_input)
    if is_fsm_tool(tool, fsm_server):
        return {}
    actions = actions_of(tool, args, _cwd(hook_input), workspace)
    if actions is not None:
        decision = rt.gate_builtin(tool, args, actions)
    else:
        decision = rt.gate(workflow_tool_name(tool, tool_prefix), args)
    return {} if decision.allowed else deny_tool(decision.reason)


def add_context(event: str, text: str) -> dict[str, Any]:
    """A PostToolUse / PostToolUseFailure output that adds ``text`` to the tool's result (the CLI
    shows it to the model inside that result, as a system reminder)."""
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def post_tool_use(rt: FsmRuntime, hook_input: dict[str, Any], *, ok: bool | None = None, tool_prefix: str | None = None,
                  fsm_server: str | None = FSM_SERVER,
                  on_transition: Callable[[TransitionResult], None] | None = None,
                  workspace: str | None = None) -> dict[str, Any]:
    """Record the completed call in the history the guards read; the runtime commits the automatic
    transitions the call makes hold. ``ok``: True for PostToolUse, False for PostToolUseFailure;
    None reads it from the hook input (:func:`tool_call_ok`). Returns {} when the state did not
    change or every move was quiet; after an automatic move, the new state's instructions as
    additional context of the call's result (once: only the call that moved the state gets them).
    ``on_transition`` is called with each committed automatic transition (the study's runner logs
    them, quiet ones too). A built-in call is recorded as its vocabulary actions under a
    workflow that uses them (see :func:`pre_tool_use`)."""
    tool, args = _tool_and_args(hook_input)
    if is_fsm_tool(tool, fsm_server):
        return {}
    succeeded = tool_call_ok(hook_input) if ok is None else ok
    actions = actions_of(tool, args, _cwd(hook_input), workspace)
    if actions is not None:
        moved, text = rt.observe_builtin(tool, args, actions, succeeded, result_text(hook_input))
    else:
        moved, text = rt.observe_and_tell(workflow_tool_name(tool, tool_prefix), args, succeeded, result_text(hook_input))
    if not moved:
        return {}
    if on_transition is not None:
        for result in moved:
            on_transition(result)
    if not text:   # every move was quiet: the agent is told nothing
        return {}
    event = hook_input.get("hook_event_name") or ("PostToolUseFailure" if ok is False else "PostToolUse")
    return add_context(str(event), text)


def result_text(hook_input: dict[str, Any]) -> str | None:
    """The completed call's text as the hook received it (a string, content blocks or a dict), for
    the workflow's observers; None when the hook carries none."""
    response = hook_input.get("tool_response", hook_input.get("error"))
    if response is None:
        return None
    if isinstance(response, dict) and "content" in response:
        response = response["content"]
    if isinstance(response, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in response)
    return response if isinstance(response, str) else json.dumps(response, default=str)


def stop(rt: FsmRuntime, hook_input: dict[str, Any], *, reason: Callable[[Decision], str] | None = None) -> dict[str, Any]:
    """The stop gate: {} to let the turn end, a block output otherwise. The block's reason is the
    gate's (naming the state and its transitions), or ``reason(decision)`` when given (the
    study's runner shows its continuation message instead)."""
    decision = rt.stop_gate()
    if decision.allowed:
        return {}
    return block_stop(reason(decision) if reason is not None else decision.reason)
