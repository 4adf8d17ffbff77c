"""The tools as an MCP server, built with the official ``mcp`` SDK (low-level ``Server``).

``build_server`` adapts a ``ToolBox`` to MCP: ``tools/list`` gives ``box.tool_specs()``
unchanged, ``tools/call`` runs ``box.call`` and answers with one text block (``isError`` set
for a refused call), followed by any extra blocks ``after_call`` returns. The same server is
served over stdio here (``python -m sopbench_tools``, ``study tools serve``), in process by the
Claude Code runtime (``study/runtimes/claude_code/tool_server.py``) and over a local socket by the
Codex CLI runtime; any MCP client can use the stdio one (see ``sopbench_tools/README.md``).
"""

from __future__ import annotations

from importlib import metadata
from typing import Any, Callable

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .toolbox import ToolBox, ToolResult

#: ``after_call(name, args, result)`` returns extra text blocks to append to what the model sees.
AfterCall = Callable[[str, dict, ToolResult], list[str]]

SERVER_NAME = "sopbench"


def build_server(box: ToolBox, *, name: str = SERVER_NAME, after_call: AfterCall | None = None) -> Server:
    """An MCP server that serves ``box``'s tools. Bad input never raises: it becomes an
    ``isError`` result. An exception from ``after_call`` is not caught (a bug in the caller
    must not pass silently); the tool call itself has already been applied by then."""
    tools = [types.Tool.model_validate(spec) for spec in box.tool_specs()]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments if params.arguments is not None else {}
        result = box.call(params.name, args)
        texts = [result.text] + (list(after_call(params.name, args, result)) if after_call else [])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text) for text in texts],
            is_error=not result.ok,
        )

    return Server(name, version=_package_version(), on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def _package_version() -> str:
    try:
        return metadata.version("sop-fidelity-study")
    except metadata.PackageNotFoundError:
        return "unknown"


def serve_stdio(box: ToolBox, *, name: str = SERVER_NAME) -> None:
    """Serve ``box`` over this process's stdin/stdout until the client closes stdin."""
    server = build_server(box, name=name)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
