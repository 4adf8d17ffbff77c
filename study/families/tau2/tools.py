"""The τ²-bench session's tools as the agent is offered them, and the study's frozen texts.

- ``Tau2Provider``: the ``tau2`` MCP server's tools over one session's ``Tau2Work`` (the domain's
  agent tools, as tau2's environment lists them, and ``send_message_to_customer``), a
  ``study.tooling.ToolProvider``;
- ``ToolResult``: a tool's answer, in the shape of the study's tool results;
- ``Texts``: the frozen texts of a τ²-bench study (its folder of Markdown files).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SEND_MESSAGE = "send_message_to_customer"
SERVER = "tau2"
#: What every tool answers once the conversation has ended.
ENDED = "Error: the conversation with the customer has ended ({reason}); no tool can be used any more. End your turn."
#: The tool's description: what the agent is told it does.
SEND_DESCRIPTION = ("Send a message to the customer and return the customer's reply. The customer may perform "
                    "actions on their own device before replying. Use this for every word meant for the customer.")
#: Frozen text files Tau2Work reads from its texts folder (texts_template/ holds the study's).
TEXT_FILES = ("first_message.md", "continuation.md", "fsm_paragraph.md")   # a study's; the templates' paragraph is per domain


@dataclass
class ToolResult:
    """A tool's answer (the shape of the study's tool results: ``study.tooling.ToolResult``)."""

    ok: bool
    text: str
    data: dict | None = None
    account: str | None = None


class Texts:
    """The frozen texts of a τ²-bench study (a folder: ``first_message.md``, ``continuation.md``,
    ``fsm_paragraph.md``, ``policy_<domain>.md``, ``checklist_<domain>.md``; the templates folder
    has ``fsm_paragraph_<domain>.md`` instead)."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def read(self, name: str) -> str:
        path = self.folder / name
        if not path.is_file():
            raise FileNotFoundError(f"{path}: a τ²-bench text is missing; copy study/families/tau2/texts_template/ there")
        return path.read_text(encoding="utf-8")

    def read_first(self, *names: str) -> str:
        """The first of ``names`` the folder has (a study's ``fsm_paragraph.md``; the templates'
        ``fsm_paragraph_<domain>.md``)."""
        for name in names[:-1]:
            if (self.folder / name).is_file():
                return self.read(name)
        return self.read(names[-1])


def _texts_of(messages: list[Any], role: str) -> list[str]:
    return [m.content for m in messages if getattr(m, "role", None) == role and m.content and not m.is_tool_call()]


class Tau2Provider:
    """The ``tau2`` MCP server's tools over one :class:`Tau2Work` (a ``ToolProvider``)."""

    def __init__(self, work: Any):   # a Tau2Work (work.py, which imports this module)
        self.work = work

    def tool_specs(self) -> list[dict[str, Any]]:
        specs = []
        for tool in self.work.conversation.tools:
            function = tool.openai_schema["function"]
            specs.append({"name": function["name"], "description": function.get("description", ""),
                          "inputSchema": function.get("parameters") or {"type": "object", "properties": {}}})
        specs.append({"name": SEND_MESSAGE, "description": SEND_DESCRIPTION,
                      "inputSchema": {"type": "object", "properties": {"message": {
                          "type": "string", "description": "What to say to the customer."}},
                                      "required": ["message"]}})
        return specs

    def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        return self.work.call(name, args)


def _json_object(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else {"value": value}
