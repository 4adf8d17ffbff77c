"""The OpenAI Responses API wire format, as far as the simulator needs it (Codex CLI's API).

A policy answers with a :class:`study.sim.protocol.Reply` (text and/or tool calls), whatever the
API. This module turns a reply into the bytes Codex CLI expects of ``POST /v1/responses`` with
``stream: true``: server-sent events ``response.created``, then for each output item
``response.output_item.added`` (a ``message``'s text also as ``response.output_text.delta``) and
``response.output_item.done``, then ``response.completed`` carrying the whole response and its
``usage``; a custom (freeform) tool's call, Codex's ``apply_patch``, is a ``custom_tool_call`` item
whose ``input`` is the raw text. An MCP tool reaches the model as a tool of type ``namespace`` named
``mcp__<server>``, so a call of ``mcp__sopbench__submit_decision`` is a ``function_call`` item
with ``namespace: "mcp__sopbench"`` and ``name: "submit_decision"`` (Codex dispatches a call by
both and refuses one without its namespace). Every response gets its own id and every call its
own ``call_`` id. Nothing here knows about policies.

Usage is reported as the Responses API does: ``input_tokens`` counts the whole prompt, cached
part included (``input_tokens_details.cached_tokens``), and ``total_tokens`` is input plus
output; Codex CLI compacts its context when the reported total reaches its limit.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from .protocol import IdMaker, Reply, Usage

#: The prefix of an MCP tool's namespace (``mcp__<server>``) and the separator of a full name.
MCP_PREFIX = "mcp__"


def split_full_name(name: str) -> tuple[str | None, str]:
    """``mcp__sopbench__submit_decision`` -> (``mcp__sopbench``, ``submit_decision``); a name
    without a server -> (None, name)."""
    if name.startswith(MCP_PREFIX):
        server, sep, tool = name[len(MCP_PREFIX):].partition("__")
        if sep:
            return f"{MCP_PREFIX}{server}", tool
    return None, name


def output_items(reply: Reply, ids: IdMaker, response: int) -> list[dict[str, Any]]:
    """The reply as Responses output items: a ``message`` with its text, then one
    ``function_call`` per tool call, each with a fresh call id."""
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append({"type": "message", "id": f"msg_sim{response:08d}", "status": "completed", "role": "assistant",
                      "content": [{"type": "output_text", "text": reply.text, "annotations": []}]})
    for index, use in enumerate(reply.tool_uses):
        if use.freeform:   # a custom tool (Codex's apply_patch): its input is raw text, not JSON
            items.append({"type": "custom_tool_call", "id": f"ctc_sim{response:08d}_{index}", "status": "completed",
                          "call_id": ids.tool_use_id().replace("toolu_", "call_"), "name": use.name,
                          "input": str(use.input.get("input", ""))})
            continue
        namespace, name = split_full_name(use.name)
        item: dict[str, Any] = {"type": "function_call", "id": f"fc_sim{response:08d}_{index}", "status": "completed",
                                "call_id": ids.tool_use_id().replace("toolu_", "call_"), "name": name,
                                "arguments": json.dumps(use.input)}
        if namespace is not None:
            item["namespace"] = namespace
        items.append(item)
    return items


def usage_json(usage: Usage) -> dict[str, Any]:
    """``usage`` (the simulator's: new input, output, cached input) in the Responses API's form."""
    total_in = usage.input_tokens + usage.cache_read_input_tokens
    return {"input_tokens": total_in, "input_tokens_details": {"cached_tokens": usage.cache_read_input_tokens},
            "output_tokens": usage.output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": total_in + usage.output_tokens}


def response_json(response_id: str, model: str, items: list[dict[str, Any]], usage: Usage | None,
                  status: str = "completed") -> dict[str, Any]:
    return {"id": response_id, "object": "response", "created_at": 0, "model": model, "status": status,
            "output": items, "usage": usage_json(usage) if usage is not None else None}


def _sse(event: str, data: dict) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode("utf-8")


def sse_events(response_id: str, model: str, items: list[dict[str, Any]], usage: Usage) -> Iterator[bytes]:
    """The streaming form of one response, one encoded event at a time."""
    sequence = iter(range(1_000_000))
    yield _sse("response.created", {"type": "response.created", "sequence_number": next(sequence),
                                    "response": response_json(response_id, model, [], None, "in_progress")})
    for index, item in enumerate(items):
        if item["type"] == "custom_tool_call":
            yield _sse("response.output_item.added", {"type": "response.output_item.added", "sequence_number": next(sequence),
                                                      "output_index": index, "item": {**item, "status": "in_progress", "input": ""}})
            yield _sse("response.output_item.done", {"type": "response.output_item.done", "sequence_number": next(sequence),
                                                     "output_index": index, "item": item})
            continue
        added = {**item, "status": "in_progress", "content": []} if item["type"] == "message" else \
            {**item, "status": "in_progress", "arguments": ""}
        yield _sse("response.output_item.added", {"type": "response.output_item.added", "sequence_number": next(sequence),
                                                  "output_index": index, "item": added})
        if item["type"] == "message":
            yield _sse("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": next(sequence),
                                                      "item_id": item["id"], "output_index": index, "content_index": 0,
                                                      "delta": item["content"][0]["text"]})
        else:
            yield _sse("response.function_call_arguments.delta",
                       {"type": "response.function_call_arguments.delta", "sequence_number": next(sequence),
                        "item_id": item["id"], "output_index": index, "delta": item["arguments"]})
        yield _sse("response.output_item.done", {"type": "response.output_item.done", "sequence_number": next(sequence),
                                                 "output_index": index, "item": item})
    yield _sse("response.completed", {"type": "response.completed", "sequence_number": next(sequence),
                                      "response": response_json(response_id, model, items, usage)})


def error_json(status: int, message: str, error_type: str | None = None, code: str | None = None) -> dict:
    """The Responses API error body for an HTTP error status."""
    kinds = {400: "invalid_request_error", 401: "invalid_request_error", 403: "invalid_request_error",
             404: "invalid_request_error", 429: "rate_limit_error", 500: "server_error", 503: "server_error"}
    return {"error": {"message": message, "type": error_type or kinds.get(status, "server_error"), "param": None,
                      "code": code}}
