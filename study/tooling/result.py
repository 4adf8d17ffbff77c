"""A tool call's result and the shape of what serves tools, for every task family."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one call: ``text`` is what the agent sees; ``data`` the JSON object on success
    (a non-object result as ``{"result": value}``)."""

    ok: bool
    text: str
    data: dict | None
    #: the unit of work the call names (SOP-Bench: the item id argument, ``account_id`` for the
    #: preregistered task, or the item a required tool's item key names), else None
    account: str | None


class ToolProvider(Protocol):
    """What an MCP tool server serves: its tools and their calls."""

    def tool_specs(self) -> list[dict]:
        """Every tool as ``{"name", "description", "inputSchema"}`` (MCP's ``tools/list``)."""

    def call(self, name: str, args: dict | None) -> ToolResult:
        """Run one call; bad input gives an error result (``ok`` False) saying what to do."""


#: ``after_call(name, args, result)`` returns extra text blocks to append to what the model sees.
AfterCall = Callable[[str, dict, ToolResult], list[str]]

__all__ = ["AfterCall", "ToolProvider", "ToolResult"]
