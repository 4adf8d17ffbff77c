"""A τ²-bench session's conversation, read from its log (``events.jsonl``) alone: who said what
to whom, as the viewer shows it and the Inspect export carries it. The family's ``transcript``
part (layer 6; the viewer and the export ask it through ``study.families.registry``): its work is
one conversation (the reading's ``CONTEXTS`` is False), ``conversation(events)``, and ``turns``
counts its entries by who spoke.

The agent speaks to the customer only through ``send_message_to_customer`` (server ``tau2``),
whose result is the customer's reply; the customer's words are also logged as they were said
(``customer_message``), and the conversation's end as τ²-bench ends it (``conversation_end``).
Under FSM the workflow's controller may send the customer a fresh test after a repair: that turn
is the harness's, not the agent's, and the call's result says so after ``CONTROLLER_MARK``
(``study.families.tau2.telecom_evidence``; a test holds the two equal).

``conversation(events)`` gives the entries in the order things happened (each a dict):

- ``customer``: ``text``, ``seq`` (its ``customer_message``), ``opening`` for the first words
  the customer said before the agent had said anything;
- ``agent``: ``text`` the agent's message to the customer, ``seq`` of its call, ``state`` (the FSM
  state), ``ok``; a message the tool-call gate refused (``denied``, ``error``) or that failed
  (``error``) never reached the customer;
- ``controller``: ``text``, the fresh test the controller asked for after call ``seq``; or a call
  of the domain's tools the controller made itself (``controller_call``, the scope step's lookups):
  ``tool``, ``args``, ``ok``, ``result`` or ``error``;
- ``call``: any other tool call: ``server`` (``tau2``, ``fsm``), ``tool``, ``args``, ``ok``,
  ``denied``, ``result`` or ``error``, ``state``;
- ``end``: ``reason`` (``conversation_end``); ``note``: ``text``, the agent's own text outside the
  tool, which reaches no one; ``transition``: ``from``, ``to``, ``ok``, ``reason``; ``stop``:
  ``outcome``, ``reason``.

The log records a call when it completes, so the customer's reply to a message is logged before
the message's call. A reply is put after the message it answers only when the call's result shows
it is that reply (the customer's words, joined, are the result's text); so is the customer's answer
to the controller's fresh test, after the test (the words after ``Customer:``), and the end of the
conversation where the result says the customer ended it (``ENDED_NOTE``, after the words it
follows): a successful FSM Telecom conversation ends with one result holding the reply, the
fresh test and the answer that ends it. Otherwise everything stays in the order the log has it. Texts are cut to ``cap`` characters (``cut`` gives the full length).
Nothing here raises on a log whose fields are of other types than the runner writes.
"""

from __future__ import annotations

from typing import Any

#: The words the controller's fresh test follows in a call's result (the family's
#: ``telecom_evidence.CONTROLLER_MARK``).
CONTROLLER_MARK = "[The workflow's controller asked the customer for a fresh test:"
#: The note the family adds to the last reply of a conversation the customer ended.
ENDED_NOTE = "\n\n[The customer has ended the conversation ("
SEND = "send_message_to_customer"
SERVER = "tau2"
TEXT_CAP = 4000


def _text(value: Any, cap: int | None) -> dict[str, Any]:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    if cap is None or len(text) <= cap:
        return {"text": text}
    return {"text": text[:cap], "cut": len(text)}


def split_result(text: str) -> tuple[str, str | None, str | None]:
    """A call's result as (what the tool or the customer answered, the controller's request,
    the customer's answer to it); the last two None when the controller added nothing."""
    head, mark, tail = text.partition(CONTROLLER_MARK)
    if not mark:
        return text, None, None
    request, sep, answer = tail.rpartition('"]\nCustomer: ')
    if not sep:
        return head.rstrip("\n"), tail.strip(), ""
    return head.rstrip("\n"), request.strip().removeprefix('"'), answer


def _reply(text: str) -> tuple[str, bool]:
    """The customer's words in what a call brought them (a ``send_message_to_customer`` result,
    or the answer to the controller's test) without the family's note that the customer ended the
    conversation, and whether it has that note (alone, when the customer ended it saying nothing)."""
    words, note, _ = text.partition(ENDED_NOTE)
    if note:
        return words, True
    if text.startswith(ENDED_NOTE.lstrip()):
        return "", True
    return text, False


def _said(pending: list[dict[str, Any]], text: str) -> int:
    """Where in ``pending`` the customer's words and the end that ``text`` (what a call brought,
    ``_reply``) shows begin: its words are the texts of the last customer messages, joined, and
    when it says the customer ended the conversation the end follows them; len(pending) if the
    log's last entries are not that."""
    words, ended = _reply(text)
    last = len(pending)
    if ended:
        while last and pending[last - 1].get("kind") == "conversation_end":
            last -= 1
        if last == len(pending):
            return len(pending)
    if not words:
        return last
    texts: list[str] = []
    for i in range(last - 1, -1, -1):
        event = pending[i]
        if event.get("kind") != "customer_message":
            continue
        texts.insert(0, event.get("text") if isinstance(event.get("text"), str) else "")
        joined = "\n".join(texts)
        if joined == words:
            return i
        if len(joined) > len(words):
            break
    return len(pending)


class _Builder:
    def __init__(self, cap: int | None) -> None:
        self.cap = cap
        self.out: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []      # customer words and the end, not yet placed
        self.agent_spoke = False

    def flush(self, events: list[dict[str, Any]] | None = None) -> None:
        for event in self.pending if events is None else events:
            if event.get("kind") == "customer_message":
                entry = {"role": "customer", "seq": event.get("seq"), **_text(event.get("text"), self.cap)}
                if not self.agent_spoke:
                    entry["opening"] = True
                self.out.append(entry)
            else:
                self.out.append({"role": "end", "seq": event.get("seq"), "reason": event.get("reason")})
        if events is None:
            self.pending = []

    def call(self, event: dict[str, Any]) -> None:
        server, tool = event.get("server"), event.get("tool")
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        denied = event.get("allowed") is False
        ok = event.get("ok") is True and not denied
        result = event.get("result") if isinstance(event.get("result"), str) else ""
        base = {"seq": event.get("seq"), "state": event.get("state"), "ok": ok}
        if denied:
            base["denied"] = True
        if not ok:
            base["error"] = _text(event.get("error"), self.cap)["text"]
        if server != SERVER:               # the FSM's tools: nothing the customer hears
            self.flush()
            self.out.append({"role": "call", "server": server, "tool": tool, "args": args, **base,
                             **({"result": _text(result, self.cap)} if ok else {})})
            return
        answer_text, request, answer = split_result(result) if ok else (result, None, None)
        later: list[dict[str, Any]] = []
        if request is not None:            # the controller's answer: the last customer words
            at = _said(self.pending, answer or "")
            self.pending, later = self.pending[:at], self.pending[at:]
        if tool == SEND:
            reply: list[dict[str, Any]] = []
            if ok:
                at = _said(self.pending, answer_text)
                self.pending, reply = self.pending[:at], self.pending[at:]
            self.flush()
            self.agent_spoke = True
            self.out.append({"role": "agent", **_text(args.get("message"), self.cap), **base})
            self.flush(reply)
        else:
            self.flush()
            self.agent_spoke = True
            self.out.append({"role": "call", "server": server, "tool": tool, "args": args, **base,
                             **({"result": _text(answer_text, self.cap)} if ok else {})})
        if request is not None:
            self.out.append({"role": "controller", "seq": event.get("seq"), **_text(request, self.cap)})
            self.flush(later)

    def controller_call(self, event: dict[str, Any]) -> None:
        ok = event.get("ok") is True
        args = event.get("args") if isinstance(event.get("args"), dict) else {}
        result = _text(event.get("result"), self.cap)
        self.flush()
        self.out.append({"role": "controller", "seq": event.get("seq"), "tool": event.get("tool"), "args": args, "ok": ok,
                         **({"result": result} if ok else {"error": result["text"]})})

    def add(self, event: dict[str, Any]) -> None:
        kind = event.get("kind")
        if kind in ("customer_message", "conversation_end"):
            self.pending.append(event)
        elif kind == "controller_call":
            self.controller_call(event)
        elif kind == "tool_call":
            self.call(event)
        elif kind == "assistant_text":
            self.flush()
            self.out.append({"role": "note", "seq": event.get("seq"), **_text(event.get("text"), self.cap)})
        elif kind == "transition":
            self.flush()
            self.out.append({"role": "transition", "seq": event.get("seq"), "from": event.get("from"),
                             "to": event.get("to"), "ok": event.get("ok") is True,
                             **({"reason": _text(event.get("reason"), self.cap)["text"]} if event.get("reason") else {})})
        elif kind == "stop":
            self.flush()
            self.out.append({"role": "stop", "seq": event.get("seq"), "outcome": event.get("outcome"),
                             **({"reason": _text(event.get("reason"), self.cap)["text"]} if event.get("reason") else {})})


def conversation(events: list[dict[str, Any]], *, cap: int | None = TEXT_CAP) -> list[dict[str, Any]]:
    """The conversation of a τ²-bench session's log (see the module docstring)."""
    out = _Builder(cap)
    for event in events:
        if isinstance(event, dict):
            out.add(event)
    out.flush()
    return out.out


#: Who speaks in a conversation's entries, as the viewer counts them (``turns``).
ROLES = ("customer", "agent", "controller", "call")


def turns(entries: list[dict[str, Any]]) -> dict[str, int]:
    """How many entries of the conversation each of ``ROLES`` has (the session page's counts)."""
    return {role: sum(e["role"] == role for e in entries) for role in ROLES}


def by_call(events: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """For each successful ``tau2`` call of the log, by its ``call_id``: the customer's words it
    brought (``reply``: the texts of its ``customer_message`` events, in order), the controller's
    request after it (``controller``, or None) and the customer's answer to that (``answer``: texts),
    and whether the conversation ended during it (``ended``: the reason, or None). What the export
    puts in place of the call's result."""
    found: dict[Any, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    for entry in conversation(events, cap=None):
        role = entry.get("role")
        if role in ("agent", "call") and entry.get("ok"):
            current = {"reply": [], "controller": None, "answer": [], "ended": None, "seq": entry.get("seq"),
                       "role": role}
            found[entry.get("seq")] = current
        elif role == "controller" and current is not None and "tool" not in entry:
            current["controller"] = entry["text"]
        elif role == "customer" and current is not None:
            current["answer" if current["controller"] is not None else "reply"].append(entry["text"])
        elif role == "end" and current is not None:
            current["ended"] = entry.get("reason")
        elif role in ("agent", "call"):
            current = None
    ids = {e.get("seq"): e.get("call_id") for e in events if isinstance(e, dict) and e.get("kind") == "tool_call"}
    return {ids.get(seq): value for seq, value in found.items() if ids.get(seq) is not None}
