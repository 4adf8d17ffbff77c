"""The Anthropic Messages API wire format, as far as the simulator needs it.

A policy answers with a :class:`Reply` (text and/or tool calls). This module turns a reply into
the bytes the Claude Code CLI expects: a streaming response (server-sent events
``message_start``, ``content_block_start``/``content_block_delta``/``content_block_stop`` with
``text_delta`` or ``input_json_delta``, ``message_delta`` with the stop reason and usage,
``message_stop``) or, for a non-streaming request, one JSON message. Every response gets its own
message id and every tool call its own ``toolu_`` id. Nothing here knows about policies.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any, Iterator

#: Characters per token used to report plausible token usage (the CLI only needs numbers).
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class ToolUse:
    """One tool call the model makes: the full tool name as the CLI lists it and its input.
    ``freeform``: a Responses API custom (freeform) tool's call, e.g. Codex's ``apply_patch``,
    whose raw text is ``input["input"]`` (the Messages API has no such tools)."""

    name: str
    input: dict[str, Any]
    freeform: bool = False


@dataclass(frozen=True)
class Usage:
    """Token usage reported for one response."""

    input_tokens: int
    output_tokens: int
    #: the part of the prompt reported as read from the prompt cache (billed at a tenth)
    cache_read_input_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


@dataclass(frozen=True)
class ApiError:
    """An API error the server answers instead of a message (HTTP ``status``; ``type`` defaults
    to the one the Messages API uses for that status)."""

    status: int
    message: str
    type: str | None = None


@dataclass
class Reply:
    """What the model says in one response: optional text, then zero or more tool calls.

    With no tool call the response ends the turn (``stop_reason`` ``end_turn``). A scripted
    policy may also set ``usage`` (reported instead of the server's estimate), ``delay_s`` (the
    server answers that many seconds later, without holding up other requests) or ``error``
    (the server answers with that API error instead of a message).
    """

    text: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    usage: Usage | None = None
    delay_s: float = 0.0
    error: ApiError | None = None

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tool_uses else "end_turn"


def estimate_tokens(obj: Any) -> int:
    """A rough token count of any JSON-able object (length of its JSON / 4, at least 1)."""
    return max(1, len(json.dumps(obj, ensure_ascii=False, default=str)) // CHARS_PER_TOKEN)


class IdMaker:
    """Unique ids for messages and tool calls (thread-safe enough: ``itertools.count``)."""

    def __init__(self, prefix: str):
        self._prefix = prefix
        self._counter = itertools.count(1)

    def message_id(self) -> str:
        return f"msg_sim{self._prefix}{next(self._counter):08d}"

    def tool_use_id(self) -> str:
        return f"toolu_sim{self._prefix}{next(self._counter):08d}"


def content_blocks(reply: Reply, ids: IdMaker) -> list[dict[str, Any]]:
    """The reply as API content blocks, giving each tool call a fresh id."""
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for use in reply.tool_uses:
        blocks.append({"type": "tool_use", "id": ids.tool_use_id(), "name": use.name, "input": use.input})
    return blocks


def message_json(message_id: str, model: str, blocks: list[dict], stop_reason: str | None, usage: Usage) -> dict:
    """A complete (non-streaming) Messages API response body."""
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage.as_dict(),
    }


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode("utf-8")


def sse_events(message_id: str, model: str, blocks: list[dict], stop_reason: str, usage: Usage) -> Iterator[bytes]:
    """The streaming form of the same response, one encoded SSE event at a time."""
    start = message_json(message_id, model, [], None, Usage(usage.input_tokens, 1, usage.cache_read_input_tokens))
    yield _sse("message_start", {"type": "message_start", "message": start})
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            yield _sse("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "text", "text": ""}})
            yield _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": {"type": "text_delta", "text": block["text"]}})
        else:
            yield _sse("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "tool_use", "id": block["id"],
                                                                 "name": block["name"], "input": {}}})
            yield _sse("content_block_delta", {"type": "content_block_delta", "index": index,
                                               "delta": {"type": "input_json_delta",
                                                         "partial_json": json.dumps(block["input"])}})
        yield _sse("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _sse("message_delta", {"type": "message_delta",
                                 "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                                 "usage": {"output_tokens": usage.output_tokens}})
    yield _sse("message_stop", {"type": "message_stop"})


def error_json(status: int, message: str, error_type: str | None = None) -> dict:
    """The Messages API error body for an HTTP error status (``error_type`` defaults to the
    API's type for that status)."""
    kinds = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
             404: "not_found_error", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error"}
    return {"type": "error", "error": {"type": error_type or kinds.get(status, "api_error"), "message": message}}
