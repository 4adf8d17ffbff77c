"""A session log's events as Inspect events (``EvalSample.events``), with the model events of
its responses among them.

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from inspect_ai.event import ApprovalEvent, CompactionEvent, ErrorEvent, InfoEvent, SampleLimitEvent, ToolEvent
from inspect_ai.log import EvalError
from inspect_ai.tool import ToolCall, ToolCallError

from study.session_io.vocabulary import Limit, SessionStatus

from .inspect_info import info_text
from .sessions import ExportSession

#: ``limit:<name>`` of a session's end as Inspect's limit types (others are ``custom``).
LIMIT_TYPES = {"spending": "cost", "turns": "turn", "wall_time": "time"}
#: Log events that become no Inspect event: the running cost after each response (each response
#: is a model event with its usage and cost, ``inspect_model``; the ``call_end`` events and the
#: sample's ``metadata.cost_usd`` carry the cost too).
LEFT_OUT = {"usage"}


def time_of(text: Any) -> datetime:
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def error_of(message: str) -> EvalError:
    return EvalError(message=message, traceback="", traceback_ansi="")


def limit_value(start: dict[str, Any], name: str) -> float | None:
    """The value of limit ``name`` (``limit:<name>``) in the session's recorded limits."""
    try:
        key = Limit(name).field
    except ValueError:
        return None
    limits = start.get("limits") if isinstance(start.get("limits"), dict) else {}
    value = limits.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _tool_name(event: dict[str, Any]) -> str:
    """As the transcript's turns name it: ``fsm.status`` for the FSM's tools, the bare name else."""
    tool = str(event.get("tool"))
    return f"fsm.{tool}" if event.get("server") == "fsm" else tool


def _fields(event: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in ("seq", "t", "kind")}


def log_events(session: ExportSession, prefix: str) -> list[Any]:
    """The session log's events as Inspect events, each with its ``seq`` and time (``metadata``):
    tool calls as ToolEvents (a call the tool-call gate refused: an ApprovalEvent ``reject``
    before its ToolEvent, whose error is of type ``approval``; a call that failed otherwise, e.g.
    an FSM tool refusing a transition: error type ``unknown``), compactions as CompactionEvents,
    a limit that ended the session as a SampleLimitEvent, an infrastructure failure as an
    ErrorEvent, everything else (session start and end, FSM transitions, stops and stop-gate
    blocks, resumes, assistant text, call ends, retries, proposals) as InfoEvents whose ``source``
    is the log's kind, whose text says in words what happened and lists the record's fields
    (``inspect_info``: ``inspect view`` draws a text as Markdown, data as raw JSON) and whose
    ``metadata`` holds the record's fields as data. ``usage`` events are left out (``LEFT_OUT``)."""
    out: list[Any] = []
    start = session.start
    t0 = time_of(start.get("t"))
    for event in session.events:
        kind = event.get("kind")
        if kind in LEFT_OUT:
            continue
        seq = event.get("seq")
        stamp = time_of(event.get("t"))
        common = {"timestamp": stamp, "working_start": max(0.0, (stamp - t0).total_seconds()),
                  "metadata": {"seq": seq, "kind": kind}}
        uuid = f"{prefix}-{seq}"
        if kind == "tool_call":
            name, args = _tool_name(event), event.get("args")
            args = args if isinstance(args, dict) else {"value": args}
            meta = {**common["metadata"], **{k: event.get(k) for k in ("server", "account", "allowed", "ok", "state",
                                                                         "reminder_attached", "actions") if k in event}}
            error = None
            if event.get("allowed") is False:
                error = ToolCallError("approval", str(event.get("error") or ""))
                out.append(ApprovalEvent(uuid=uuid + "-gate", **{**common, "metadata": meta},
                                         message=str(event.get("error") or ""), approver="tool-call gate",
                                         decision="reject", explanation=str(event.get("error") or ""),
                                         call=ToolCall(id=str(event.get("call_id")), function=name, arguments=args)))
            elif not event.get("ok"):
                error = ToolCallError("unknown", str(event.get("error") or ""))
            out.append(ToolEvent(uuid=uuid, **{**common, "metadata": meta}, id=str(event.get("call_id")), function=name,
                                 arguments=args, result=str(event.get("result") or ""), error=error, completed=stamp))
        elif kind == "compaction":
            out.append(CompactionEvent(uuid=uuid, **common, type="summary", source=f"{session.runtime} ({event.get('trigger')})"))
        elif kind == "session_end" and str(event.get("status", "")).startswith("limit:"):
            name = str(event["status"]).split(":", 1)[1]
            out.append(SampleLimitEvent(uuid=uuid, **{**common, "metadata": {**common["metadata"], **_fields(event)}},
                                        type=LIMIT_TYPES.get(name, "custom"), message=str(event["status"]),
                                        limit=limit_value(start, name)))
        elif kind == "session_end" and event.get("status") == SessionStatus.INFRASTRUCTURE_FAILURE:
            out.append(ErrorEvent(uuid=uuid, **{**common, "metadata": {**common["metadata"], **_fields(event)}},
                                  error=error_of(f"infrastructure failure: {event.get('error')}")))
        else:
            fields = _fields(event)
            out.append(InfoEvent(uuid=uuid, **{**common, "metadata": {**common["metadata"], **fields}}, source=str(kind),
                                 data=info_text(str(kind), fields, session.family)))
    return out


def with_model_events(logged: list[Any], models: list[Any]) -> list[Any]:
    """The log's events and the model events in one list, in time order: each model event goes
    before the first logged event that is not earlier than it (so a response comes before the
    tool calls it made); the logged events keep their order."""
    out: list[Any] = []
    pending = list(models)
    for event in logged:
        while pending and pending[0].timestamp <= event.timestamp:
            out.append(pending.pop(0))
        out.append(event)
    return out + pending
