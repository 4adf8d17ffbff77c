"""The tools as an MCP server over stdio (``python -m sopbench_tools``, ``study tools serve``).

The server itself is ``study.tooling.build_server`` over a ``ToolBox`` (re-exported here): the same
one the Claude Code runtime serves in process (``study/runtimes/claude_code/tool_server.py``) and
the Codex CLI runtime over a local socket; any MCP client can use the stdio one (see
``sopbench_tools/README.md``).
"""

from __future__ import annotations

import anyio
from mcp.server.stdio import stdio_server

from study.tooling import AfterCall, build_server as _build_server

from .toolbox import ToolBox, ToolResult

__all__ = ["AfterCall", "SERVER_NAME", "ToolResult", "build_server", "serve_stdio"]

SERVER_NAME = "sopbench"


def build_server(box: ToolBox, *, name: str = SERVER_NAME, after_call: AfterCall | None = None):
    """An MCP server that serves ``box``'s tools (``study.tooling.build_server``, named
    ``sopbench`` by default)."""
    return _build_server(box, name=name, after_call=after_call)


def serve_stdio(box: ToolBox, *, name: str = SERVER_NAME) -> None:
    """Serve ``box`` over this process's stdin/stdout until the client closes stdin."""
    server = build_server(box, name=name)

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)
