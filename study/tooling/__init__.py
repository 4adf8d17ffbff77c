"""What every task family's tools share: a call's result, what serves tools, their MCP server.
Layer 1: may import the foundations only (docs/architecture.md).

- ``ToolResult``: the outcome of one tool call (what the agent sees, the data, the item it names);
- ``ToolProvider``: any object that lists its tools and answers calls (SOP-Bench's ``ToolBox``, a
  benchmark's conversation, ...); it never raises for bad input, it answers with an error result;
- ``build_server``: the one MCP server (official ``mcp`` SDK, low-level ``Server``) that serves a
  provider to either agent CLI (in process for Claude Code, over the runner's socket for Codex CLI,
  over stdio for any MCP client).
"""

from __future__ import annotations

from .result import AfterCall, ToolProvider, ToolResult
from .server import build_server, package_version

__all__ = ["AfterCall", "ToolProvider", "ToolResult", "build_server", "package_version"]
