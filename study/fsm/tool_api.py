"""The FSM's agent-facing tools (enter, status, self_check, transition, exit), served over MCP.

One definition serves both servers: :mod:`study.runtimes.claude_code.fsm_server` (in process, for
claude-agent-sdk) and :mod:`study.fsm.mcp_server` (stdio, for any Claude Code project). The
tools are never gated. Every result is one JSON text; a refusal is an error result whose text
is the reason (for a refused transition: the guard's message).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from .outcomes import FsmRefusal
from .runtime import FsmRuntime

#: on_event(kind, fields): called with kind "transition" and fields from, to, ok, reason.
EventSink = Callable[[str, dict[str, Any]], None]

_STRING = {"type": "string"}


@dataclass(frozen=True)
class FsmToolSpec:
    name: str
    description: str
    input_schema: dict[str, Any]


FSM_TOOLS = (
    FsmToolSpec(
        "enter",
        "Enter a workflow: start at its initial state. Entering the workflow that is already active returns its status.",
        {"type": "object", "properties": {"workflow": {**_STRING, "description": "The workflow's name"}}, "required": ["workflow"]},
    ),
    FsmToolSpec(
        "status",
        "Show the active workflow, the current state, its instructions, the tools it permits and the transitions out of it.",
        {"type": "object", "properties": {}},
    ),
    FsmToolSpec(
        "self_check",
        "Confirm the current state's exit conditions for a move to `target`; returns a one-time token for `transition`.",
        {"type": "object", "properties": {"target": {**_STRING, "description": "The state to move to"}}, "required": ["target"]},
    ),
    FsmToolSpec(
        "transition",
        "Move to `target` with the token from self_check. The guard checks the history; if it refuses, nothing changes and its message says what is missing.",
        {
            "type": "object",
            "properties": {
                "target": {**_STRING, "description": "The state to move to"},
                "token": {**_STRING, "description": "The token self_check returned for this target"},
            },
            "required": ["target", "token"],
        },
    ),
    FsmToolSpec(
        "exit",
        "Leave the active workflow. Admitted only in its exit state.",
        {"type": "object", "properties": {}},
    ),
)
FSM_TOOL_NAMES = tuple(t.name for t in FSM_TOOLS)


def _text_arg(args: Any, name: str) -> str:
    value = args.get(name) if isinstance(args, dict) else None
    if not isinstance(value, str) or not value:
        raise FsmRefusal(f"argument '{name}' is required and must be a non-empty string")
    return value


def call_fsm_tool(rt: FsmRuntime, name: str, args: Any, on_event: EventSink | None = None) -> tuple[bool, str]:
    """Run one FSM tool; return (is_error, text). Never raises for bad input."""
    try:
        if name == "enter":
            return False, json.dumps(rt.enter(_text_arg(args, "workflow")))
        if name == "status":
            return False, json.dumps(rt.status())
        if name == "self_check":
            return False, json.dumps(rt.self_check(_text_arg(args, "target")))
        if name == "exit":
            return False, json.dumps(rt.exit())
        if name == "transition":
            target = _text_arg(args, "target")
            token = args.get("token") if isinstance(args, dict) else None
            result = rt.transition(target, token if isinstance(token, str) else None)
            if on_event is not None:
                on_event("transition", {"from": result.from_state, "to": target, "ok": result.ok, "reason": result.reason})
            if not result.ok:
                return True, result.reason
            return False, json.dumps({"ok": True, "state": result.to_state, "message": result.reason, "status": rt.status()})
        return True, f"unknown FSM tool '{name}'; the FSM tools are {', '.join(FSM_TOOL_NAMES)}"
    except FsmRefusal as exc:
        return True, str(exc)
