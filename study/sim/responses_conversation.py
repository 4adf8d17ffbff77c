"""Read the input Codex CLI sends (OpenAI Responses API) into the same events as Claude Code's.

The simulated model reads what it is sent, whichever CLI sends it: this module turns a
``/v1/responses`` request's ``input`` items into the events of ``conversation.py`` (``ToolCall``,
``ToolOutcome``, ``UserText``, ``Said``), so the policies and the memory are the same on both
runtimes. How Codex CLI 0.169.0 presents things to the model (checked against a scripted server;
docs/runtimes.md):

* the system prompt and Codex's notes are ``developer`` messages, the working folder a user
  message ``<environment_context>…``: not the task's, and skipped;
* an MCP tool's call is a ``function_call`` with ``namespace: "mcp__<server>"`` and the bare tool
  name; its result a ``function_call_output`` whose ``output`` is a list of texts, the first
  ``"Wall time: … seconds\\nOutput:"`` and then one per text block of the tool's result (the
  study's reminder is such a further block). Codex shows the model no error flag: an error is
  known by its text, as a real model knows it (the study's tools answer ``Error: …``; the FSM's
  tools answer JSON objects on success and a plain refusal otherwise);
* a PreToolUse denial is the output ``"Tool call blocked by PreToolUse hook: <reason>. Tool: …"``
  (a built-in call's: ``"Command blocked by PreToolUse hook: <reason>. Command: …"``; the
  outcome's ``denied``), an unknown tool ``"unsupported call: …"``;
* Codex's own tools (a workspace session): the shell is a ``function_call`` ``exec_command``
  (``cmd``), whose output reads ``Chunk ID: …\nWall time: …\nProcess exited with code N\n…
  Output:\n<output>``; ``apply_patch`` (offered to a model Codex has catalog metadata for) is a
  ``custom_tool_call`` whose ``input`` is the patch text (its ``args`` here: ``{"input": …}``),
  answered by a ``custom_tool_call_output`` ``Exit code: N\nWall time: …\nOutput:\n<summary>``
  or a refusal (``patch rejected: …``, ``apply_patch verification failed: …``); a patch run as
  a shell command (``apply_patch <<'EOF'`` …) is answered ``Wall time: …\nOutput:\n`` and the
  patch's own answer;
* a PostToolUse hook's additional context (the FSM runtime's note after an automatic transition)
  is a ``developer`` message between the call and its output;
* a Stop-hook block is a user message ``<hook_prompt hook_run_id="stop:…">reason</hook_prompt>``;
* a resumed session's new prompt (``codex exec resume``) is a plain user message after the
  assistant's last one;
* after a compaction the history is the original prompt(s) followed by a user message that
  starts ``Another language model started to solve this problem`` and carries the summary the
  model wrote; the tool calls before it are gone.
"""

from __future__ import annotations

import json
import re
from typing import Any

from study.transcripts.codex import command_result

from .conversation import Event, Said, ToolCall, ToolOutcome, UserText
from .responses import MCP_PREFIX

_STOP_PROMPT = re.compile(r'<hook_prompt hook_run_id="stop:[^"]*">(.*?)</hook_prompt>', re.DOTALL)
SUMMARY_MARK = "Another language model started to solve this problem"
SUMMARY_INTRO = "use the information in this summary to assist with your own analysis:"
#: The last input of Codex's compaction request (its default ``compact_prompt``).
COMPACTION_MARK = "CONTEXT CHECKPOINT COMPACTION"
WALL_TIME = "Wall time:"
BLOCKED = "Tool call blocked by PreToolUse hook: "
COMMAND_BLOCKED = "Command blocked by PreToolUse hook: "
UNSUPPORTED = "unsupported call:"
#: Codex's own tools whose outputs are read by :func:`builtin_outcome`.
BUILTIN_CALLS = ("exec_command", "write_stdin", "apply_patch")


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [c.get("text", "") for c in content or [] if isinstance(c, dict) and isinstance(c.get("text"), str)]


def _server(namespace: Any) -> str | None:
    if isinstance(namespace, str) and namespace.startswith(MCP_PREFIX):
        return namespace[len(MCP_PREFIX):]
    return None


def _args(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw) if isinstance(raw, str) else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _is_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, TypeError):
        return False


def call_succeeded(server: str | None, text: str, wrapped: bool) -> bool:
    """Whether a result reads as a success: it came from the tool (``wrapped`` in Codex's "Wall
    time" header, not a denial or an unknown call) and is not the tool's error: the study's
    tools' errors start ``Error: ``, the FSM's tools answer a JSON object on success."""
    if not wrapped:
        return False
    if server == "fsm":
        return _is_object(text)
    return not text.startswith("Error: ")


def _denial(text: str) -> str | None:
    """The gate's reason of a PreToolUse denial's output (None: not a denial)."""
    for prefix, tail in ((BLOCKED, ". Tool: "), (COMMAND_BLOCKED, ". Command: ")):
        if text.startswith(prefix):
            return text[len(prefix):].split(tail, 1)[0]
    return None


def builtin_outcome(output: Any) -> tuple[bool, str, str | None]:
    """(whether it succeeded, what it printed, the gate's reason if it was denied) of the output
    of one of Codex's own tools (see the module docstring), read as the viewer reads it
    (``study.transcripts.codex.command_result``): success is exit code 0, or a command still
    running; a refusal of the gate, of the sandbox's patch check or of an unknown call is a failure."""
    text = "\n".join(_texts(output))
    denied = _denial(text)
    if denied is not None:
        return False, denied, denied
    result = command_result(text)
    return result.ok, result.output, None


def _outcome_parts(output: Any) -> tuple[bool, str, list[str]]:
    """(whether the tool ran, its first text, its further texts) of a ``function_call_output``."""
    texts = _texts(output)
    if texts and texts[0].startswith(WALL_TIME):
        body = texts[1:] or [""]
        return True, body[0], body[1:]
    first = texts[0] if texts else ""
    if first.startswith(BLOCKED):
        first = first[len(BLOCKED):]
    return False, first, texts[1:]


def _user_text(raw: str, seen_assistant: bool) -> UserText | None:
    stop = _STOP_PROMPT.search(raw)
    if stop:
        return UserText("stop_block", stop.group(1).strip())
    if SUMMARY_MARK in raw:
        summary = raw.split(SUMMARY_INTRO, 1)[1] if SUMMARY_INTRO in raw else raw
        return UserText("summary", summary.strip())
    shown = raw.strip()
    if not shown or shown.startswith("<environment_context>") or COMPACTION_MARK in shown:
        return None
    return UserText("resume" if seen_assistant else "first", shown)


def read_input(items: list[dict], item_arg: str = "account_id", proc: Any = None) -> list[Event]:
    """The conversation of a Responses request's ``input``, as events (see the module docstring)."""
    events: list[Event] = []
    calls: dict[str, ToolCall] = {}
    context: dict[str, list[str]] = {}       # call id -> the hook notes shown before its output
    open_calls: list[str] = []                # calls whose output has not come yet
    seen_assistant = False
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            role = item.get("role")
            texts = _texts(item.get("content"))
            if role == "developer":
                if open_calls:   # a PostToolUse hook's note: it belongs to the call before it
                    context.setdefault(open_calls[-1], []).extend(t.strip() for t in texts if t.strip())
                continue
            if role == "assistant":
                seen_assistant = True
                text = "\n".join(texts).strip()
                follows = items[index + 1] if index + 1 < len(items) else None
                ends = not (isinstance(follows, dict) and follows.get("type") in ("function_call", "custom_tool_call"))
                events.append(Said(text, ends_turn=ends))
                continue
            if role == "user":
                said = _user_text("\n".join(texts), seen_assistant)
                if said is not None:
                    events.append(said)
            continue
        if kind in ("function_call", "custom_tool_call"):
            seen_assistant = True
            args = _args(item.get("arguments")) if kind == "function_call" else {"input": str(item.get("input", ""))}
            call = ToolCall(str(item.get("call_id", "")), _server(item.get("namespace")), str(item.get("name", "")),
                            args, item_arg, proc if proc is not None and proc.item_keys else None)
            calls[call.id] = call
            open_calls.append(call.id)
            events.append(call)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            call_id = str(item.get("call_id", ""))
            call = calls.get(call_id)
            if call is None:
                continue   # its call was compacted away
            if call_id in open_calls:
                open_calls.remove(call_id)
            if call.server is None and call.tool in BUILTIN_CALLS:
                ok, first, denied = builtin_outcome(item.get("output"))
                events.append(ToolOutcome(call, ok, first, [], context.pop(call_id, []), denied))
                continue
            ran, first, extras = _outcome_parts(item.get("output"))
            events.append(ToolOutcome(call, call_succeeded(call.server, first, ran), first, extras,
                                      context.pop(call_id, []), None if ran else _denial("\n".join(_texts(item.get("output"))))))
    return events


def is_compaction_request(body: dict) -> bool:
    """Codex's compaction request: no tools, and its last input asks for the checkpoint summary."""
    items = body.get("input") or []
    if body.get("tools") or not items or not isinstance(items[-1], dict):
        return False
    return COMPACTION_MARK in "\n".join(_texts(items[-1].get("content")))


def tool_names(body: dict) -> set[str]:
    """The full names (``mcp__<server>__<tool>``) of the tools offered in the request."""
    names: set[str] = set()
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace":
            names.update(f"{tool.get('name')}__{t.get('name')}" for t in tool.get("tools") or [] if isinstance(t, dict))
        elif tool.get("name"):
            names.add(str(tool["name"]))
    return names


def results(items: list[dict]) -> list[tuple[str, bool, str]]:
    """Every ``function_call_output`` as (call id, ok, first text), for the ground truth's ledger."""
    servers = {str(i.get("call_id", "")): _server(i.get("namespace")) for i in items
               if isinstance(i, dict) and i.get("type") == "function_call"}
    out = []
    for item in items:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            call_id = str(item.get("call_id", ""))
            ran, first, _ = _outcome_parts(item.get("output"))
            out.append((call_id, call_succeeded(servers.get(call_id), first, ran), first))
    return out
