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


def build_fsm_server(rt: FsmRuntime, *, name: str = "fsm") -> Server:
    """A low-level MCP server listing the FSM tools and running them over ``rt``."""
    tools = [types.Tool(name=t.name, description=t.description, input_schema=t.input_schema) for t in FSM_TOOLS]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        is_error, text = call_fsm_tool(rt, params.name, params.arguments if params.arguments is not None else {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    return Server(name, version="1", on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def serve_stdio(rt: FsmRuntime, *, name: str = "fsm") -> None:
    """Serve the FSM tools over stdin/stdout until the client closes stdin."""
    server = build_fsm_server(rt, name=name)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
