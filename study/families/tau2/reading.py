"""How a τ²-bench session reads, from its log alone: the family's ``reading`` part (layer 2).

The readers ask it through ``study.families.registry`` (``study status``, ``study score``, the
viewer, the Inspect export, the audit); a session is one conversation, its ``outcome`` event
τ²-bench's own evaluator's verdict (``work.py`` writes it):

- ``verdict(outcome)``: one line (``reward 1``, ``not judged``), its class and one cell (the
  task), the matrix's strip; ``details(outcome, events)``: every figure the evaluator gave (the
  reward's parts and basis, how the conversation ended, a transfer, the harness's turns), for a
  page; ``group_words``: a group's verdicts in words;
- ``running(progress)``: the status cell of a conversation without an outcome yet (the customer's
  messages, its end); ``unfinished(events)``: the viewer's words for a log without an end;
- ``score_lines(outcome, events)``: what ``study score`` prints and adds to its JSON;
- ``inspect_scores``: the verdict as the Inspect export's scores (plain data: name -> the
  ``Score``'s fields), ``SCORES`` their names, the headline first; ``inspect_metadata``;
- ``UNITS``: what the session's unit is called, and that a session decides none (the readers show
  its verdict instead of a count: ``study.families.units``);
- the record rules: ``UNIT_END`` (the kind whose event ends the session's one unit: the audit
  counts the decisions by it), ``CONTEXTS`` and ``BUILTIN_TOOLS`` (False: one context, MCP tools
  only); ``MARKERS``: the viewer's timeline marks of the family's own kinds.

The outcome is the log's, never recomputed: an untrusted record, read through
``study.session_io.outcome_fields`` (every field checked for its type, every list cut). Nothing
here raises.
"""

from __future__ import annotations

from typing import Any, Callable

from study.session_io.outcome_fields import FAIL, LIST_CAP, NONE, PASS, g, number, short

from .events import CONTROLLER_CALL, CONVERSATION_END, CUSTOMER_MESSAGE

#: The name a τ²-bench outcome reads under (its verdict's ``protocol``): the family's own.
PROTOCOL = "tau2"
#: The tool that hands the conversation to a human agent.
TRANSFER_TOOL = "transfer_to_human_agents"
#: The kind whose event ends the session's one unit, the conversation (the audit's decisions).
UNIT_END = CONVERSATION_END
#: What a session's unit is called (``study.families.units``): one conversation, which the session
#: does not decide (None): its verdict (the reward, or not judged) says how it went.
UNITS = ("conversation", "conversations", None)
#: One conversation in one context, over the domain's MCP tools (no CLI tools of its own).
CONTEXTS = False
BUILTIN_TOOLS = False
#: The Inspect scores of an outcome, the headline first (a task not judged has none).
SCORES = {PROTOCOL: ("reward",)}
NOT_JUDGED = ("not judged: the reward needs a judge of the task's natural-language assertions that did not run; "
              "never passed nor failed")


def protocol_of(record: dict[str, Any]) -> str:
    """The name an outcome or a session_start of the family reads under: always ``tau2``."""
    return PROTOCOL


def _judged(outcome: dict[str, Any]) -> bool:
    return outcome.get("judged") is not False and number(outcome.get("reward")) is not None


def verdict(outcome: dict[str, Any]) -> dict[str, Any]:
    """``text``, ``class`` and ``cells`` of the family's ``outcome`` event."""
    reward = number(outcome.get("reward"))
    if not _judged(outcome):
        return {"text": "not judged", "class": NONE,
                "cells": [{"class": NONE, "title": "not judged: the reward needs a judge that did not run"}]}
    cls = PASS if reward >= 1.0 else FAIL
    return {"text": f"reward {reward:g}", "class": cls, "cells": [{"class": cls, "title": f"reward {reward:g}"}]}


def transferred(events: list[dict[str, Any]]) -> bool:
    """Whether the conversation ended in a successful transfer to a human agent."""
    return any(isinstance(e, dict) and e.get("kind") == "tool_call" and e.get("tool") == TRANSFER_TOOL
               and e.get("ok") is True and e.get("allowed") is not False for e in events)


def details(outcome: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything τ²-bench's evaluator said, for a page: the headline, the reward and its parts
    (each in the reward's basis or not), and the facts."""
    found = verdict(outcome)
    doc: dict[str, Any] = {"protocol": PROTOCOL, "headline": found["text"], "class": found["class"], "facts": []}
    facts = doc["facts"]
    basis = [str(b) for b in outcome.get("reward_basis") or [] if isinstance(b, str)] \
        if isinstance(outcome.get("reward_basis"), list) else []
    parts = outcome.get("parts") if isinstance(outcome.get("parts"), dict) else {}
    doc["judged"] = _judged(outcome)
    doc["reward"] = number(outcome.get("reward"))
    doc["parts"] = [{"name": short(k, 60), "value": number(v), "in_basis": k in basis}
                    for k, v in sorted(parts.items())[:LIST_CAP]]
    doc["basis"] = basis
    if not doc["judged"]:
        facts.append(["not judged", "the reward needs a judge of the task's natural-language assertions "
                                    "that did not run: never passed nor failed"])
    facts += [["task", short(outcome.get("task_id"))], ["domain", short(outcome.get("domain"))],
              ["ended", short(outcome.get("termination_reason"))],
              ["transferred to a human agent", "yes" if transferred(events) else "no"],
              ["agent turns", g(outcome.get("agent_turns"))],
              ["written by the harness", g(outcome.get("scripted_turns"))],
              ["of them the controller's", g(outcome.get("controller_turns"))],
              ["customer's device actions", g(outcome.get("customer_device_actions"))]]
    if outcome.get("note"):
        facts.append(["τ²-bench's note", short(outcome.get("note"))])
    return doc


def group_words(protocol: str | None) -> tuple[str, str, str]:
    """The words of a group's summary in the viewer's matrix, by verdict class (pass, fail, none)."""
    return ("passed", "failed", "not judged")


def _messages(said: int) -> str:
    return f"{said} customer message{'s' if said != 1 else ''}"


def running(progress: Any) -> str:
    """``study status``'s cell of a conversation with no outcome yet (``progress``: the runner's
    ``LogProgress``, which counts the family's kinds): the customer's messages, and how the
    conversation ended once it has."""
    said = _messages(progress.counts.get(CUSTOMER_MESSAGE, 0))
    end = progress.lasts.get(CONVERSATION_END)
    reason = (end.get("reason") if isinstance(end.get("reason"), str) else "ended") if end is not None else None
    return f"conversation ended ({reason}), {said}" if reason else f"talking: {said}"


def unfinished(events: list[dict[str, Any]]) -> str:
    """The viewer's verdict of a log without an end: how far the conversation went."""
    return f"no end yet: {_messages(sum(e.get('kind') == CUSTOMER_MESSAGE for e in events))}"


def score_lines(outcome: dict[str, Any], events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """What ``study score`` adds to its JSON and the lines it prints under the session's head."""
    transfer = any(e.get("kind") == "tool_call" and e.get("tool") == TRANSFER_TOOL and e.get("ok") for e in events)
    reward = outcome.get("reward")
    said = "not judged (the reward needs a judge that did not run)" if not outcome.get("judged") else \
        f"reward {reward:g}" if isinstance(reward, (int, float)) else "no reward"
    parts = ", ".join(f"{k} {v:g}" for k, v in sorted((outcome.get("parts") or {}).items()))
    lines = [f"  τ²-bench {outcome.get('domain')}: {said}  (parts: {parts or 'none'}; basis: "
             f"{', '.join(outcome.get('reward_basis') or [])})",
             f"  ended: {outcome.get('termination_reason')}{'; transferred to a human agent' if transfer else ''}"
             f"  agent turns {outcome.get('agent_turns')}, written by the harness "
             f"{outcome.get('scripted_turns')} (the controller's {outcome.get('controller_turns')})"]
    return {"transferred": transfer}, lines


def inspect_scores(protocol: str, outcome: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The verdict as the Inspect export's scores, each the fields of an Inspect ``Score``: the
    ``reward``, with every part of the evaluation in its metadata; none for a task not judged
    (never passed nor failed: ``inspect view`` would draw any value it had as a verdict; its
    sample's metadata says why, ``inspect_metadata``)."""
    fields = {k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")}
    found = details(outcome, events)
    meta = {**{k: fields.get(k) for k in ("parts", "reward_basis", "judged", "task_id", "domain", "termination_reason",
                                          "agent_turns", "controller_turns", "scripted_turns",
                                          "customer_device_actions", "note")},
            "transferred": transferred(events)}
    if not found["judged"]:
        return {}
    reward = found["reward"]
    parts = ", ".join(f"{p['name']} {p['value']:g}" for p in found["parts"] if p["value"] is not None)
    return {"reward": {"value": reward, "answer": "passed" if reward >= 1.0 else "failed",
                       "explanation": f"τ²-bench's reward {reward:g} (its basis: {', '.join(found['basis']) or 'none'}; "
                                      f"parts: {parts or 'none'}); ended: {fields.get('termination_reason')}",
                       "metadata": meta}}


#: What the Inspect log's results say their means are over.
INSPECT_COUNTED = "(a τ²-bench task not judged has no reward)"


def inspect_metadata(outcome: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, Any]:
    """What a session adds to its Inspect sample's metadata beside its verdict: the task, whether
    it was judged, and for a task not judged why it has no score (``not_judged``)."""
    if outcome is None:
        return {}
    judged = _judged(outcome)
    return {"task_id": outcome.get("task_id"), "judged": judged, **({} if judged else {"not_judged": NOT_JUDGED})}


#: The viewer's timeline marks of the family's own kinds: kind -> (marker, its label) of an event.
MARKERS: dict[str, Callable[[dict[str, Any]], tuple[str, str]]] = {
    CUSTOMER_MESSAGE: lambda e: ("customer", f"the customer: {str(e.get('text'))[:200]}"),
    CONTROLLER_CALL: lambda e: ("controller", f"the workflow's controller called {str(e.get('tool'))[:200]}"),
    CONVERSATION_END: lambda e: ("conversation_end", f"the conversation ended: {str(e.get('reason'))[:200]}"),
}
