"""The FSM tools as an in-process MCP server for claude-agent-sdk (``mcp__fsm__<tool>``)."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import McpSdkServerConfig, SdkMcpTool, create_sdk_mcp_server

from study.fsm.runtime import FsmRuntime
from study.fsm.tool_api import FSM_TOOLS, EventSink, FsmToolSpec, call_fsm_tool


def _sdk_tool(rt: FsmRuntime, spec: FsmToolSpec, on_event: EventSink | None) -> SdkMcpTool[Any]:
    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        is_error, text = call_fsm_tool(rt, spec.name, args, on_event)
        return {"content": [{"type": "text", "text": text}], "is_error": is_error}

    return SdkMcpTool(name=spec.name, description=spec.description, input_schema=spec.input_schema, handler=handler)


def _propose_tool(desk: Any, on_event: EventSink | None) -> SdkMcpTool[Any]:
    from study.fsm.proposals import PROPOSE_SPEC, call_propose

    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        is_error, text = call_propose(desk, args, on_event)
        return {"content": [{"type": "text", "text": text}], "is_error": is_error}

    return SdkMcpTool(name=PROPOSE_SPEC.name, description=PROPOSE_SPEC.description,
                      input_schema=PROPOSE_SPEC.input_schema, handler=handler)


def make_fsm_sdk_server(runtime: FsmRuntime, *, name: str = "fsm", on_event: EventSink | None = None,
                        proposals: Any = None) -> McpSdkServerConfig:
    """An McpSdkServerConfig serving enter, status, self_check, transition and exit over ``runtime``.

    ``on_event(kind, fields)`` is called after every transition request with kind
    ``"transition"`` and fields ``from``, ``to``, ``ok``, ``reason`` (the runner logs them).
    ``proposals``: a :class:`study.fsm.proposals.ProposalDesk` to serve ``propose_workflow_change``
    too (``on_event("proposal", ...)`` after each proposal); None (the default): the five tools only.
    """
    tools = [_sdk_tool(runtime, spec, on_event) for spec in FSM_TOOLS]
    if proposals is not None:
        tools.append(_propose_tool(proposals, on_event))
    return create_sdk_mcp_server(name, tools=tools)
