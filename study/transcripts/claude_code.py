"""The Claude Code transcript as a conversation: the turns a reader expects, not the CLI's records.

``turns(lines)`` reads the transcript's lines once into turns, in order (every text cut to
``TEXT_CAP`` characters for the viewer; ``turns(lines, cap=None)`` keeps whole texts, for the
exports):

- ``user``: the prompt (and any later user text);
- ``assistant``: the model's text; ``thinking``: its thinking (shown collapsed); each with
  ``response``, the id of the model response it is part of (as ``responses`` names it);
- ``call``: a tool call (``id``: the runtime's call id, as ``tool_call.call_id`` of the session
  log has it; ``response``, as above) with its arguments, and its result attached (``result``,
  ``error``);
  ``denied`` with the reason when a hook refused it (the FSM's PreToolUse gate);
- ``stop-block``: the Stop hook's feedback that sent the agent back to work;
- ``compaction``: the compaction boundary (trigger, tokens before and after) and the summary the
  CLI continued from (``summary``).

Every turn keeps ``n``, the transcript line it came from, so the raw record is one click away
(``documents.transcript_doc``). The CLI's bookkeeping records (``queue-operation``,
``attachment``, ``api-request*``, ``atis-latch``, ``last-prompt``, ``tools-used``, ``cost-state``
…) are not turns; ``conversation_doc`` counts them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import orjson

from study.protocol.models import Usage
from study.session_io.jsonout import dumps

from . import TEXT_CAP   # a longer text (a tool result, an assistant turn, a summary) is cut to this


def usage_of(raw: Any) -> Usage:
    """A Messages API response's ``usage`` in the price keys: cache writes are split into 5-minute
    and 1-hour writes when the usage says how (``cache_creation``), otherwise all priced as
    5-minute writes. Missing or non-numeric counts are 0."""
    raw = raw if isinstance(raw, dict) else {}

    def tokens(key: str, source: dict[str, Any] = raw) -> int:
        value = source.get(key)
        return int(value) if isinstance(value, (int, float)) else 0

    written = tokens("cache_creation_input_tokens")
    split = raw.get("cache_creation") if isinstance(raw.get("cache_creation"), dict) else {}
    written_1h = min(tokens("ephemeral_1h_input_tokens", split), written)
    return Usage(input=tokens("input_tokens"), output=tokens("output_tokens"),
                 cache_write_5m=written - written_1h, cache_write_1h=written_1h,
                 cache_read=tokens("cache_read_input_tokens"))

#: Turns per page of the conversation.
TURNS_PAGE = 100


def _cut(text: str, cap: int | None = TEXT_CAP) -> dict[str, Any]:
    if cap is None:
        return {"text": text, "cut": None}
    return {"text": text[:cap], "cut": len(text) if len(text) > cap else None}


def _text_of(content: Any) -> str:
    """The text of a message's or a tool result's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") if isinstance(b, dict) and isinstance(b.get("text"), str)
                 else dumps(b).decode() for b in content]
        return "\n".join(p for p in parts if p)
    return "" if content is None else dumps(content).decode()


def _tool(name: Any) -> str:
    """``mcp__sopbench__get_x`` as ``get_x``, ``mcp__fsm__status`` as ``fsm.status``."""
    text = str(name)
    parts = text.split("__")
    if len(parts) >= 3 and parts[0] == "mcp":
        return ("fsm." if parts[1] == "fsm" else "") + "__".join(parts[2:])
    return text


def _compaction(obj: dict[str, Any], n: int) -> dict[str, Any]:
    meta = obj.get("compactMetadata") if isinstance(obj.get("compactMetadata"), dict) else {}
    words = [str(meta[k]) for k in ("trigger",) if meta.get(k) is not None]
    if isinstance(meta.get("preTokens"), int) and isinstance(meta.get("postTokens"), int):
        words.append(f"{meta['preTokens']:,} → {meta['postTokens']:,} tokens")
    return {"n": n, "role": "compaction", "t": obj.get("timestamp"),
            "text": "Conversation compacted" + (f" ({', '.join(words)})" if words else "")}


def responses(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The main thread's model responses in order, one per message id (the CLI writes a line per
    content block, each with the response's usage); the CLI's synthetic messages left out. As
    ``{"id", "usage": Usage, "tool_uses": [tool_use blocks], "t": the time of its last line}``."""
    seen: dict[str, dict] = {}
    for line in lines:
        if line.get("type") != "assistant" or line.get("isSidechain") is True:
            continue
        message = line.get("message") if isinstance(line.get("message"), dict) else {}
        if message.get("model") == "<synthetic>" or not isinstance(message.get("id"), str):
            continue
        entry = seen.setdefault(message["id"], {"id": message["id"], "raw": message.get("usage"), "tool_uses": []})
        entry["raw"] = message.get("usage") or entry["raw"]
        entry["t"] = line.get("timestamp") or entry.get("t")
        for block in message.get("content") or ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                entry["tool_uses"].append(block)
    return [{"id": e["id"], "usage": usage_of(e["raw"]), "tool_uses": e["tool_uses"], "t": e.get("t")}
            for e in seen.values()]



def turns(lines: list[bytes], *, cap: int | None = TEXT_CAP) -> tuple[list[dict[str, Any]], int]:
    """The conversation of a transcript's lines, and how many records are not turns; each text
    cut to ``cap`` characters (None: whole)."""
    cut = partial(_cut, cap=cap)
    out: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}
    other = 0
    for n, raw in enumerate(lines):
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):
            other += 1
            continue
        kind, t = obj.get("type"), obj.get("timestamp")
        message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
        content = message.get("content")
        if kind == "system" and obj.get("subtype") == "compact_boundary":
            out.append(_compaction(obj, n))
        elif kind == "user" and obj.get("isCompactSummary"):
            out.append({"n": n, "role": "compaction", "t": t, "summary": True, **cut(_text_of(content))})
        elif kind == "user" and isinstance(content, str):
            hook = obj.get("isMeta") and (obj.get("rowSource") == "hook" or content.startswith("Stop hook feedback"))
            out.append({"n": n, "role": "stop-block" if hook else "user", "t": t, **cut(content)})
        elif kind == "user" and isinstance(content, list):
            _results(obj, content, n, calls, out, cut)
        elif kind == "assistant" and isinstance(content, list):
            response = message.get("id")   # the model response the block belongs to
            for block in content:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text":
                    out.append({"n": n, "role": "assistant", "t": t, "response": response,
                                **cut(_text_of(block.get("text")))})
                elif block.get("type") == "thinking":
                    out.append({"n": n, "role": "thinking", "t": t, "response": response,
                                **cut(_text_of(block.get("thinking")))})
                elif block.get("type") == "tool_use":
                    call = {"n": n, "role": "call", "t": t, "response": response, "id": block.get("id"),
                            "tool": _tool(block.get("name")), "args": cut(dumps(block.get("input")).decode()),
                            "result": None}
                    calls[str(block.get("id"))] = call
                    out.append(call)
        else:
            other += 1
    return out, other


def _results(obj: dict[str, Any], content: list, n: int, calls: dict[str, dict[str, Any]],
             out: list[dict[str, Any]], cut: Callable[[str], dict[str, Any]] = _cut) -> None:
    """A user record's tool results, each attached to its call (or a turn of its own)."""
    decision = obj.get("permissionDecision") if isinstance(obj.get("permissionDecision"), dict) else {}
    denied = decision.get("source") == "hook" or bool(obj.get("toolDenialKind"))
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            out.append({"n": n, "role": "user", "t": obj.get("timestamp"), **cut(_text_of(block.get("text")))})
            continue
        if block.get("type") != "tool_result":
            continue
        text = _text_of(block.get("content"))
        call = calls.get(str(block.get("tool_use_id")))
        if call is None:
            call = {"n": n, "role": "call", "t": obj.get("timestamp"), "id": block.get("tool_use_id"), "tool": "?",
                    "args": cut(""), "result": None}
            out.append(call)
        call.update(result=cut(text), result_n=n, error=bool(block.get("is_error")), denied=denied and bool(block.get("is_error")))


def conversation_doc(name: str, simulated: bool, conversation: tuple[list[dict[str, Any]], int],
                     page: int, refused: str | None = None) -> dict[str, Any] | None:
    """One page of the conversation (None past its last page)."""
    items, other = conversation
    if page >= max(1, -(-len(items) // TURNS_PAGE)):
        return None
    doc = {"name": name, "simulated": simulated, "page": page, "page_size": TURNS_PAGE, "total": len(items),
           "other_records": other, "turns": items[page * TURNS_PAGE:(page + 1) * TURNS_PAGE]}
    if refused:
        doc["refused"] = refused
    return doc
