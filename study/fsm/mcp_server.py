"""The FSM tools as a stdio MCP server (official ``mcp`` SDK), for any Claude Code project.

``study fsm serve --frames DIR --workflow FILE`` serves enter, status, self_check, transition
and exit over one agent's frames in DIR. The hook commands (``study fsm hook ...``) read and
append to the same frames; the runtime is in shared mode, so each request takes the frames'
file lock and sees what the hooks wrote.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .runtime import FsmRuntime
from .tool_api import FSM_TOOLS, call_fsm_tool


def build_fsm_server(rt: FsmRuntime, *, name: str = "fsm", proposals: Any = None) -> Server:
    """A low-level MCP server listing the FSM tools and running them over ``rt``; with
    ``proposals`` (a :class:`study.fsm.proposals.ProposalDesk`) also ``propose_workflow_change``."""
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
            is_error, text = call_propose(proposals, args)
        else:
            is_error, text = call_fsm_tool(rt, params.name, args)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server(name, version="1", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def serve_stdio(rt: FsmRuntime, *, name: str = "fsm", proposals: Any = None) -> None:
    """Serve the FSM tools over stdin/stdout until the client closes stdin."""
    server = build_fsm_server(rt, name=name, proposals=proposals)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
