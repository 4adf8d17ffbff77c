"""Read the conversation the Claude Code CLI sends into a flat list of events.

The simulated model may use only what it is sent, so this module is how it "reads": it walks the
request's ``messages`` and returns, in order, what was said and done. How the CLI presents things
to the model was observed on this machine (CLI 2.1.332):

* tools are named ``mcp__<server>__<tool>``; a tool result is a ``tool_result`` block whose
  ``content`` is a string (errors) or a list of text blocks, with ``is_error: true`` on errors;
* a PreToolUse denial is an error result ``PreToolUse:<tool> hook error: <reason>`` (the
  outcome's ``denied``);
* the CLI's own tools (a workspace session) are called by their names (``Bash`` with ``command``,
  ``Write`` with ``file_path`` and ``content``, ``Edit`` with ``file_path``, ``old_string``,
  ``new_string``, ``Read`` ...; ``server`` None); a failed command is an error result ``Exit code N``;
* a Stop-hook block is a user message whose text holds ``Stop hook feedback:\\n<reason>``;
* a resumed session's new prompt is a plain user text after the assistant's last turn;
* after a compaction the first user message starts ``This session is being continued from a
  previous conversation`` and carries the summary the model wrote after ``Summary:``; the CLI
  keeps a recent stretch of the conversation after it;
* ``<system-reminder>`` blocks (environment, date, ``<total_tokens>`` notes) are the CLI's own
  and are ignored, except the one that carries Stop-hook feedback and those inside a tool result
  that carry a PostToolUse hook's additional context (``PostToolUse:<tool> hook additional
  context: <text>``: the FSM runtime's note after an automatic transition); command hooks' context
  comes as a ``system`` message after the result instead, and is read the same way.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Union

from study.fsm.hooks import split_tool_name  # one split for the hooks and the simulator

_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.DOTALL)
#: How the CLI shows a PostToolUse hook's additional context: inside the tool's result (hooks of
#: claude-agent-sdk), or as a message of role ``system`` right after the result (command hooks of
#: .claude/settings.json, CLI 2.1.332).
_DENIED = re.compile(r"^PreToolUse:\S+ hook error: (.*)$", re.DOTALL)
_SYSTEM_CONTEXT = re.compile(r"^PostToolUse(?:Failure)?:\S+ hook additional context: (.*)$", re.DOTALL)
_HOOK_CONTEXT = re.compile(r"<system-reminder>\s*PostToolUse(?:Failure)?:\S+ hook additional context: (.*?)\s*</system-reminder>",
                           re.DOTALL)
STOP_FEEDBACK = "Stop hook feedback:"
CONTINUED_MARK = "This session is being continued from a previous conversation"
#: Text of the CLI's compaction request (its last user message asks for this summary).
COMPACTION_MARK = "create a detailed summary of the conversation"


def visible_text(text: str) -> str:
    """The text without the CLI's ``<system-reminder>`` blocks."""
    return _REMINDER.sub("", text).strip() if "<system-reminder>" in text else text.strip()


@dataclass
class ToolCall:
    """A tool call the model made (``server`` is ``sopbench``, ``fsm`` or None)."""

    id: str
    server: str | None
    tool: str
    args: dict[str, Any]
    #: the item-id argument of the task's tools (the referral study's ``account_id`` by default)
    item_arg: str = "account_id"
    #: the task's ``Procedure`` when some required tool names the item by another argument
    #: (``Procedure.item_keys``), else None
    proc: Any = None

    @property
    def account(self) -> str | None:
        """The item the call names (its ``item_arg``, if a string; else through the tool's item key)."""
        value = self.args.get(self.item_arg) if isinstance(self.args, dict) else None
        if not isinstance(value, str) and self.proc is not None:
            return self.proc.item_of(self.tool, self.args)
        return value if isinstance(value, str) else None


@dataclass
class ToolOutcome:
    """The result of one call: ``text`` is its first text (reminders removed), ``data`` that text
    parsed as a JSON object if the call succeeded and it is one (parsed when first asked for),
    ``extras`` any further text blocks (e.g. the study's per-account reminder the runner attaches),
    ``hook_context`` the additional context of PostToolUse hooks shown with it, ``denied`` the
    tool-call gate's reason when a PreToolUse hook refused the call (None: it ran)."""

    call: ToolCall
    ok: bool
    text: str
    extras: list[str] = field(default_factory=list)
    hook_context: list[str] = field(default_factory=list)
    denied: str | None = None

    @cached_property
    def data(self) -> dict[str, Any] | None:
        return _parse_object(self.text) if self.ok else None


@dataclass
class UserText:
    """A user message that is not a tool result.

    ``kind``: ``first`` (the task), ``resume`` (a new prompt after the model ended its turn),
    ``stop_block`` (Stop-hook feedback) or ``summary`` (the start of a compacted conversation;
    ``text`` is the summary).
    """

    kind: str
    text: str


@dataclass
class Said:
    """An assistant message: its text, and whether it ended the turn (no tool call)."""

    text: str
    ends_turn: bool


Event = Union[ToolCall, ToolOutcome, UserText, Said]


def _blocks(content: Any) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


def _result_texts(block: dict) -> list[str]:
    texts = [visible_text(b.get("text", "")) for b in _blocks(block.get("content")) if b.get("type") == "text"]
    return [t for t in texts if t]


def _hook_contexts(block: dict) -> list[str]:
    return [c.strip() for b in _blocks(block.get("content")) if b.get("type") == "text" and "hook additional context" in b.get("text", "")
            for c in _HOOK_CONTEXT.findall(b.get("text", ""))]


def _parse_object(text: str) -> dict | None:
    try:
        value = json.loads(text)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _classify_user_text(raw: str, seen_assistant: bool) -> UserText | None:
    if STOP_FEEDBACK in raw:
        feedback = raw.split(STOP_FEEDBACK, 1)[1]
        return UserText("stop_block", feedback.split("</system-reminder>", 1)[0].strip())
    shown = visible_text(raw)
    if CONTINUED_MARK in shown:
        summary = shown.split("Summary:", 1)[1] if "Summary:" in shown else shown
        return UserText("summary", summary.strip())
    if not shown or COMPACTION_MARK in shown:
        return None  # nothing the model was told, or the CLI's own compaction instruction
    return UserText("resume" if seen_assistant else "first", shown)


def read_conversation(messages: list[dict], item_arg: str = "account_id", proc: Any = None) -> list[Event]:
    """The conversation as events, in order (``item_arg``: the task's item-id argument; ``proc``:
    its ``Procedure`` when some tool names the item by another argument). Tool results whose call
    is not in the conversation (cut away by compaction) are skipped."""
    events: list[Event] = []
    calls: dict[str, ToolCall] = {}
    seen_assistant = False
    for message in messages:
        blocks = _blocks(message.get("content"))
        if message.get("role") == "system":
            _attach_system_context(events, blocks)
            continue
        if message.get("role") == "assistant":
            seen_assistant = True
            text = "\n".join(b.get("text", "") for b in blocks if b.get("type") == "text").strip()
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            if text or not uses:
                events.append(Said(text, ends_turn=not uses))
            for use in uses:
                server, tool = split_tool_name(use.get("name", ""))
                call = ToolCall(use.get("id", ""), server, tool, use.get("input") or {}, item_arg,
                                proc if proc is not None and proc.item_keys else None)
                calls[call.id] = call
                events.append(call)
            continue
        texts = []
        for block in blocks:
            if block.get("type") == "tool_result":
                call = calls.get(block.get("tool_use_id", ""))
                if call is None:
                    continue
                parts = _result_texts(block)
                first = parts[0] if parts else ""
                ok = not block.get("is_error")
                refused = _DENIED.match(first) if not ok else None
                events.append(ToolOutcome(call, ok, first, parts[1:], _hook_contexts(block),
                                          refused.group(1).strip() if refused else None))
            elif block.get("type") == "text":
                texts.append(block.get("text", ""))
        if texts:
            said = _classify_user_text("\n".join(texts), seen_assistant)
            if said is not None:
                events.append(said)
    return events


def _attach_system_context(events: list[Event], blocks: list[dict]) -> None:
    """A hook's additional context sent as a ``system`` message: it belongs to the last result."""
    outcome = next((e for e in reversed(events) if isinstance(e, ToolOutcome)), None)
    for block in blocks:
        found = _SYSTEM_CONTEXT.match(block.get("text", "").strip())
        if found and outcome is not None:
            # the CLI may add its own note after a blank line ("The user hasn't heard from you ...")
            outcome.hook_context.append(found.group(1).strip().split("\n\n", 1)[0])


def is_compaction_request(body: dict) -> bool:
    """Whether the CLI asks for a compaction summary (its last user message says so)."""
    messages = body.get("messages") or []
    if not messages:
        return False
    last = messages[-1]
    text = " ".join(b.get("text", "") for b in _blocks(last.get("content")) if b.get("type") == "text")
    return COMPACTION_MARK in text


def tool_names(body: dict) -> set[str]:
    """The full names of the tools offered in the request."""
    return {t.get("name", "") for t in body.get("tools") or [] if isinstance(t, dict)}
