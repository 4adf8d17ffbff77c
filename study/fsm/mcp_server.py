"""The FSM tools as an MCP server (official ``mcp`` SDK, low-level ``Server``), for any agent CLI.

``study fsm serve --frames DIR --workflow FILE`` serves enter, status, self_check, transition
and exit over stdio, over one agent's frames in DIR, for any Claude Code or Codex CLI project.
The hook commands (``study fsm hook ...``) read and append to the same frames; the runtime is in
shared mode, so each request takes the frames' file lock and sees what the hooks wrote. The
study's Codex CLI sessions serve the same server from the runner (``on_event`` logs each
transition request, ``after_call`` is told each call's outcome).
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .runtime import FsmRuntime
from .tool_api import FSM_TOOLS, call_fsm_tool


def build_fsm_server(rt: FsmRuntime, *, name: str = "fsm", proposals: Any = None, on_event: Any = None,
                     after_call: Any = None) -> Server:
    """A low-level MCP server listing the FSM tools and running them over ``rt``; with
    ``proposals`` (a :class:`study.fsm.proposals.ProposalDesk`) also ``propose_workflow_change``.
    ``on_event(kind, fields)`` is called after each transition request and proposal (as by
    ``study.fsm.tool_api.call_fsm_tool``); ``after_call(name, args, is_error, text)`` after every call."""
    specs = list(FSM_TOOLS)
    if proposals is not None:
        from .proposals import PROPOSE_SPEC, call_propose

        specs.append(PROPOSE_SPEC)
    tools = [types.Tool(name=t.name, description=t.description, input_schema=t.input_schema) for t in specs]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments if params.arguments is not None else {}
        if proposals is not None and params.name == PROPOSE_SPEC.name:
            is_error, text = call_propose(proposals, args, on_event)
        else:
            is_error, text = call_fsm_tool(rt, params.name, args, on_event)
        if after_call is not None:
            after_call(params.name, args, is_error, text)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server(name, version="1", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def serve_stdio(rt: FsmRuntime, *, name: str = "fsm", proposals: Any = None) -> None:
    """Serve the FSM tools over stdin/stdout until the client closes stdin."""
    server = build_fsm_server(rt, name=name, proposals=proposals)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
