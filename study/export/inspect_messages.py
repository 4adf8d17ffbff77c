"""A session's conversation as Inspect chat messages (``EvalSample.messages``), from its
transcript's turns (``study.transcripts``, by the session's runtime).

One assistant message per model response: the turns the transcript marks as one response
(``response``: the Messages API's message id on Claude Code, the Responses API's response id on
Codex CLI) are its text, thinking and tool calls; each call's result follows as a tool message
(its ``error`` as the transcript flags it: a call the tool-call gate refused is of type
``approval``, any other failed call ``unknown``). User text, stop-gate feedback
(``metadata.stop_block``) and a compaction's summary (``metadata.compaction``: the boundary's
words) are user messages, as the model saw them; a PostToolUse hook's note after a call (the FSM's
state note: Codex CLI writes it as a developer message, Claude Code inside the call's result) is
no message, but the ``metadata.hook_context`` of that call's result; a workspace run's fresh
context begins with its first prompt (``metadata.context``, ``metadata.unit``), where the model's
context began anew. Every message has an id unique in the sample (``messages_df`` and the model
events' inputs name messages by it).

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser, ContentReasoning, ContentText
from inspect_ai.tool import ToolCall, ToolCallError


@dataclass
class Conversation:
    """The messages, and where each model response's assistant message is (``response`` id ->
    index in ``messages``); ``starts``: the indexes where the model's context began anew (the
    first message, each compaction's summary)."""

    messages: list[Any] = field(default_factory=list)
    responses: dict[str, int] = field(default_factory=dict)
    starts: list[int] = field(default_factory=list)


def _arguments(text: str) -> tuple[dict[str, Any], str | None]:
    try:
        value = orjson.loads(text) if text else {}
    except orjson.JSONDecodeError as exc:
        return {}, f"the arguments are not JSON: {exc}"
    return (value, None) if isinstance(value, dict) else ({"value": value}, None)


def _tool_error(call: dict[str, Any]) -> ToolCallError | None:
    text = (call.get("result") or {}).get("text") or ""
    if call.get("denied"):
        return ToolCallError("approval", text)     # the tool-call gate (PreToolUse hook) refused it
    if call.get("error"):
        return ToolCallError("unknown", text)
    return None


class _Builder:
    """Turns to chat messages (see the module docstring). A turn of another response than the
    message being gathered starts the next assistant message; so does, in a transcript that names
    no responses, a turn after a result of the gathered message's calls."""

    def __init__(self, prefix: str, model: str) -> None:
        self.prefix, self.model = prefix, model
        self.out = Conversation()
        self._parts: list[Any] = []
        self._calls: list[dict[str, Any]] = []
        self._first_n: int | None = None
        self._response: Any = None
        self._boundary: dict[str, Any] | None = None
        self._context: dict[str, Any] | None = None    # a fresh context begun, its first message to come
        self._last_call: Any = None                     # the id of the last call seen

    @property
    def messages(self) -> list[Any]:
        return self.out.messages

    def _id(self, n: Any, tail: str = "") -> str:
        return f"{self.prefix}-L{n}{tail}-{len(self.messages)}"

    def _meta(self, turn: dict[str, Any], **more: Any) -> dict[str, Any]:
        return {"turn": turn["role"], "transcript_line": turn.get("n"), **more}

    def _answered(self, n: Any) -> bool:
        """A result of a pending call came before transcript line ``n``."""
        return any(isinstance(c.get("result_n"), int) and isinstance(n, int) and c["result_n"] < n
                   for c in self._calls)

    def _other_response(self, turn: dict[str, Any]) -> bool:
        response = turn.get("response")
        if response is not None and self._response is not None:
            return response != self._response
        return self._answered(turn.get("n"))

    def flush(self) -> None:
        if not self._parts and not self._calls:
            return
        parts = self._parts
        content: Any = parts[0].text if len(parts) == 1 and isinstance(parts[0], ContentText) else list(parts)
        calls = []
        for c in self._calls:
            arguments, problem = _arguments(c["args"]["text"])
            calls.append(ToolCall(id=str(c.get("id")), function=str(c.get("tool")), arguments=arguments,
                                  parse_error=problem))
        if self._response is not None:
            self.out.responses[str(self._response)] = len(self.messages)
        self.messages.append(ChatMessageAssistant(
            id=self._id(self._first_n), content=content or "", tool_calls=calls or None, model=self.model,
            source="generate", metadata={"turn": "assistant", "transcript_line": self._first_n,
                                         "response": self._response}))
        for call in self._calls:
            if call.get("result") is None:     # no result in the transcript (the session ended first)
                continue
            self.messages.append(ChatMessageTool(
                id=self._id(call.get("result_n"), "r"), content=call["result"]["text"], tool_call_id=str(call.get("id")),
                function=str(call.get("tool")), error=_tool_error(call),
                metadata={"turn": "result", "transcript_line": call.get("result_n"), "denied": bool(call.get("denied"))}))
        self._parts, self._calls, self._first_n, self._response = [], [], None, None

    def add(self, turn: dict[str, Any]) -> None:
        role = turn.get("role")
        if role in ("assistant", "thinking", "call"):
            self._unmarked()
            if self._other_response(turn):
                self.flush()
            if self._first_n is None:
                self._first_n, self._response = turn.get("n"), turn.get("response")
            if role == "assistant":
                self._parts.append(ContentText(text=turn.get("text") or ""))
            elif role == "thinking":
                self._parts.append(ContentReasoning(reasoning=turn.get("text") or ""))
            else:
                self._calls.append(turn)
                self._last_call = turn.get("id")
            return
        self.flush()
        text = turn.get("text") or ""
        n = turn.get("n")
        if role == "context":           # a fresh context of a workspace run: its first message starts anew
            self._unmarked()
            self._context = turn
            return
        if role == "compaction" and not turn.get("summary"):
            # the boundary: the conversation before it was replaced by the summary that follows;
            # it marks that summary (a system message would be shown first by Inspect's viewer)
            self._unmarked()
            self._boundary = turn
            return
        if role == "compaction":
            boundary, self._boundary = self._boundary, None
            self.out.starts.append(len(self.messages))
            self.messages.append(ChatMessageUser(id=self._id(n), content=text, metadata=self._meta(
                turn, compaction=boundary.get("text") if boundary else "Conversation compacted", summary=True)))
            return
        self._unmarked()
        at = self._result_of(self._last_call) if role == "user" and turn.get("hook") else None
        if at is not None:
            # a PostToolUse hook's note (Codex CLI writes it as a developer message after the call):
            # the harness's, never the user's; with the result of the call it followed, as Claude
            # Code has it
            result = self.messages[at]
            notes = [*((result.metadata or {}).get("hook_context") or []), text]
            self.messages[at] = result.model_copy(update={"metadata": {**(result.metadata or {}), "hook_context": notes}})
        elif role == "user":
            first = not self.messages
            context, self._context = self._context, None
            if first or context is not None:
                self.out.starts.append(len(self.messages))
            more = {"context": context.get("n"), "unit": context.get("unit")} if context is not None else {}
            self.messages.append(ChatMessageUser(id=self._id(n), content=text, source="input" if first else None,
                                                 metadata=self._meta(turn, **more)))
        elif role == "stop-block":      # the stop gate sent the agent back to work: the model sees it as user text
            self.messages.append(ChatMessageUser(id=self._id(n), content=text, metadata=self._meta(turn, stop_block=True)))

    def _result_of(self, call_id: Any) -> int | None:
        """Where the last result of call ``call_id`` is among the messages, or None."""
        for i in range(len(self.messages) - 1, -1, -1):
            message = self.messages[i]
            if isinstance(message, ChatMessageTool) and call_id is not None and message.tool_call_id == str(call_id):
                return i
        return None

    def _unmarked(self) -> None:
        """A compaction boundary with no summary after it: a user message of its own, marked
        ``synthetic`` (the model never saw it), where the model's context began anew."""
        boundary, self._boundary = self._boundary, None
        if boundary is not None:
            self.out.starts.append(len(self.messages))
            self.messages.append(ChatMessageUser(id=self._id(boundary.get("n")), content=f"[{boundary.get('text')}]",
                                                 metadata=self._meta(boundary, compaction=boundary.get("text"),
                                                                     synthetic=True)))

    def close(self) -> Conversation:
        self.flush()
        self._unmarked()
        return self.out


def conversation(turns: list[dict[str, Any]], prefix: str, model: str) -> Conversation:
    """The chat messages of a session's turns (``study.transcripts``), in order."""
    out = _Builder(prefix, model)
    for turn in turns:
        out.add(turn)
    return out.close()
