"""Fixtures for the tool tests: a client for the real stdio server, spawned as a subprocess."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import pytest
from mcp import Client, StdioServerParameters

REPO = Path(__file__).resolve().parents[2]


class ToolClient:
    """The official MCP client connected to ``python -m sopbench_tools``, with small helpers."""

    def __init__(self, client: Client):
        self.client = client

    async def list_tools(self):
        return (await self.client.list_tools()).tools

    async def call(self, name: str, args: Any) -> tuple[bool, str, list[str]]:
        """(ok, first text block, all text blocks) of one call."""
        result = await self.client.call_tool(name, args)
        texts = [block.text for block in result.content]
        return (not result.is_error), texts[0], texts

    async def data(self, name: str, args: Any) -> dict:
        ok, text, _ = await self.call(name, args)
        assert ok, text
        return json.loads(text)


@pytest.fixture
def run_server() -> Callable[..., Any]:
    """``run_server(scenario, *server_args)``: spawn ``python -m sopbench_tools *server_args``
    (or, with ``entry=STUDY_ENTRY``, ``study tools serve *server_args``), run the async
    ``scenario(tool_client)`` against it, close it, return the scenario's value."""

    def run(scenario: Callable[[ToolClient], Awaitable[Any]], *server_args: str,
            entry: tuple[str, ...] = ("-m", "sopbench_tools")) -> Any:
        async def main() -> Any:
            params = StdioServerParameters(command=sys.executable, args=[*entry, *server_args], cwd=str(REPO))
            async with Client(params) as client:
                return await scenario(ToolClient(client))

        return anyio.run(main)

    return run
