"""The public view of a τ²-bench conversation: the only thing the FSM's rules and the controller read.

A :class:`PublicRecord` holds what happened in the open, in order, as events (plain dicts of
strings, numbers, lists and dicts):

* ``{"by": "agent" | "controller", "tool", "args", "ok", "result"}``: a call of the agent's (or of
  the controller's, made for it), with what the tool returned; ``send_message_to_customer`` is a
  call too, its result the customer's reply;
* ``{"by": "customer", "tool", "args", "ok", "result"}``: a device action the customer performed
  (tau2's trajectory records it as a tool call of the user, with its result);
* ``{"by": "customer", "said": TEXT}``: what the customer said;
* ``{"by": "conversation", "ended": REASON}``: the conversation ended (tau2's stop markers, or
  the end of the record).

It never holds the task, its evaluation criteria, its id, the user scenario or the environment's
state: only calls, their results and words that were exchanged. The live session
(``work.Tau2Work``) and a replay of a results file (``replay.py``) fill it from tau2's messages
with the same functions (:func:`turn_events`), so the rules judge both alike.

The FSM's observers are registered functions called with ``(call, variables)``; they reach the
record through a key in the frame's variables (``record``) and :func:`lookup` (a registry of live
records, weak: a record lives as long as its session or replay holds it). The key is random: it
names the record, never the task.
"""

from __future__ import annotations

import json
import secrets
import weakref
from typing import Any, Iterable

SEND = "send_message_to_customer"
#: tau2's protocol markers a participant ends the conversation with (not wording: tokens).
STOP_MARKS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")

_RECORDS: "weakref.WeakValueDictionary[str, PublicRecord]" = weakref.WeakValueDictionary()


class PublicRecord:
    """One conversation's public events (see the module docstring)."""

    def __init__(self, opening: str = ""):
        #: the customer's opening message
        self.opening = opening
        self.events: list[dict[str, Any]] = []
        #: the random key the FSM frame's variables carry (``variables["record"]``)
        self.key = secrets.token_hex(12)
        _RECORDS[self.key] = self

    def add(self, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        return event

    def extend(self, events: Iterable[dict[str, Any]]) -> None:
        for event in events:
            self.add(event)

    @property
    def ended(self) -> bool:
        return any(e.get("by") == "conversation" for e in self.events)

    def end(self, reason: str) -> None:
        if not self.ended:
            self.add({"by": "conversation", "ended": reason})


def lookup(key: Any) -> PublicRecord | None:
    """The live record the key names (None: no such record in this process)."""
    return _RECORDS.get(key) if isinstance(key, str) else None


# ----- tau2's messages as events ----------------------------------------------------------------


def _get(message: Any, name: str, default: Any = None) -> Any:
    if isinstance(message, dict):
        return message.get(name, default)
    return getattr(message, name, default)


def _arguments(call: Any) -> dict[str, Any]:
    """A tool call's arguments (tau2's ``ToolCall.arguments``, or an OpenAI-style ``function``)."""
    args = _get(call, "arguments")
    function = _get(call, "function")
    if args is None and function is not None:
        args = _get(function, "arguments")
    if isinstance(args, str):
        try:
            args = json.loads(args or "{}")
        except ValueError:
            args = {"_raw": args}
    return dict(args) if isinstance(args, dict) else {}


def call_name(call: Any) -> str:
    name = _get(call, "name")
    if name is None and _get(call, "function") is not None:
        name = _get(_get(call, "function"), "name")
    return str(name or "")


def role(message: Any) -> str:
    return str(_get(message, "role") or "")


def text(message: Any) -> str:
    content = _get(message, "content")
    if isinstance(content, list):   # content blocks
        return "\n".join(str(_get(b, "text") or "") for b in content)
    return str(content or "")


def tool_calls(message: Any) -> list[Any]:
    return list(_get(message, "tool_calls") or [])


def _results(following: list[Any], requestor: str) -> tuple[dict[str, Any], list[Any]]:
    """The tool messages of ``following`` for ``requestor``'s calls: by id, and in order (a record
    that names no requestor: every tool message, matched by id)."""
    flat: list[Any] = []
    for m in following:   # a MultiToolMessage, if a record keeps one
        if role(m) == "tool":
            flat += list(_get(m, "tool_messages") or []) or [m]
    found = [m for m in flat if (_get(m, "requestor") or requestor) == requestor]
    return {str(_msg_id(m)): m for m in found if _msg_id(m)}, found


def _msg_id(message: Any) -> Any:
    return _get(message, "id") or _get(message, "tool_call_id")


def _call_event(by: str, call: Any, results: dict[str, Any], ordered: list[Any], used: set[int]) -> dict[str, Any]:
    result = results.get(str(_get(call, "id") or ""))
    if result is None:   # no id to match: the next unused result in order
        result = next((m for m in ordered if id(m) not in used), None)
    if result is not None:
        used.add(id(result))
    ok = result is not None and not bool(_get(result, "error", False))
    return {"by": by, "tool": call_name(call), "args": _arguments(call), "ok": ok,
            "result": text(result) if result is not None else ""}


def customer_events(following: list[Any]) -> list[dict[str, Any]]:
    """The customer's part of ``following`` (the messages after an agent's action): each device
    action with its result, then what they said, in order; an end marker where they stopped."""
    results, ordered = _results(following, "user")
    used: set[int] = set()
    out: list[dict[str, Any]] = []
    for message in following:
        if role(message) != "user":
            continue
        for call in tool_calls(message):
            out.append(_call_event("customer", call, results, ordered, used))
        said = text(message).strip()
        if said:
            out.append({"by": "customer", "said": said})
            mark = next((m for m in STOP_MARKS if m in said), None)
            if mark:
                out.append({"by": "conversation", "ended": mark.strip("#").lower().replace("-", "_")})
    return out


def replies(following: list[Any]) -> str:
    """What the customer said in ``following``, joined (the reply a message to them returns)."""
    return "\n".join(text(m).strip() for m in following if role(m) == "user" and text(m).strip())


def turn_events(by: str, action: Any, following: list[Any]) -> list[dict[str, Any]]:
    """The events of one action of the agent's side (``by``: agent or controller): ``action`` is
    tau2's assistant message (its tool calls, else its text to the customer), ``following`` the
    messages after it up to the agent's next turn (the tools' results; the customer's device
    actions, their results and the customer's words)."""
    calls = tool_calls(action)
    if calls:   # tau2 routes a message with tool calls to the environment: any text in it reaches nobody
        results, ordered = _results(following, "assistant")
        used: set[int] = set()
        events = [_call_event(by, call, results, ordered, used) for call in calls]
    else:
        events = [{"by": by, "tool": SEND, "args": {"message": text(action)}, "ok": True, "result": replies(following)}]
    return events + customer_events(following)
