"""A ``ToolProvider`` as an MCP server, built with the official ``mcp`` SDK (low-level ``Server``).

``build_server`` adapts a provider to MCP: ``tools/list`` gives ``provider.tool_specs()``
unchanged, ``tools/call`` runs ``provider.call`` and answers with one text block (``isError`` set
for a refused call), followed by any extra blocks ``after_call`` returns. Claude Code's runtime
serves it in process, Codex CLI's over the runner's socket, ``python -m sopbench_tools`` over stdio.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

import mcp_types as types
from mcp.server.lowlevel import Server

from .result import AfterCall, ToolProvider


def build_server(provider: ToolProvider, *, name: str, after_call: AfterCall | None = None) -> Server:
    """An MCP server that serves ``provider``'s tools. Bad input never raises: it becomes an
    ``isError`` result. An exception from ``after_call`` is not caught (a bug in the caller
    must not pass silently); the tool call itself has already been applied by then."""
    tools = [types.Tool.model_validate(spec) for spec in provider.tool_specs()]

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        args = params.arguments if params.arguments is not None else {}
        result = provider.call(params.name, args)
        texts = [result.text] + (list(after_call(params.name, args, result)) if after_call else [])
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text) for text in texts],
            is_error=not result.ok,
        )

    return Server(name, version=package_version(), on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def package_version() -> str:
    try:
        return metadata.version("sop-fidelity-study")
    except metadata.PackageNotFoundError:
        return "unknown"
