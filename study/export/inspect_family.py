"""A session of another task family than SOP-Bench's in an Inspect eval log: its family's verdict
as its scores, a τ²-bench conversation as a conversation, a workspace run's contexts as spans.

- τ²-bench (``tau2``): the score ``reward`` is τ²-bench's reward, with every part of its evaluation
  (``parts``), the reward's basis, the task, how the conversation ended, whether it ended in a
  transfer, and the agent's and the harness's turns as its metadata; a task whose reward needs a
  judge that did not run has no ``reward`` score (no value: never passed nor failed), and the score
  ``judged`` (False) says so. Its messages are the conversation: each message the agent sent the
  customer (``send_message_to_customer``) is the agent's text (``metadata.to_customer``), each
  reply of the customer a user message (``metadata.customer``), the workflow's controller's fresh
  test an assistant message written by the harness (``metadata.controller``), the other tool calls
  and their results as they were (``study.transcripts.tau2_log.by_call``): the conversation as
  τ²-bench's own trajectory has it, which the model events' inputs and outputs show too (so
  ``messages_df`` reads it); the log's tool events keep every call as it was made.
- A workspace run (``workspace``): AutoResearch's ``valid_rows`` (valid rows / rows required, each
  row's verdict and rule in its metadata), ``complete`` and ``best_accuracy``; the month-end
  close's ``correct_periods`` (correct periods / periods, each period in its metadata). Its
  commands and edits are the tool calls of its messages and events (as the CLI made them), and
  each fresh context is a span of its events (``context <n>: <unit>``).

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.event import SpanBeginEvent, SpanEndEvent
from inspect_ai.log import EvalMetric, EvalResults, EvalSample, EvalScore, HeadlineMetric
from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser
from inspect_ai.scorer import Score

from study.transcripts import outcomes, tau2_log

from .inspect_messages import Conversation
from .sessions import ExportSession

#: Each protocol's scalar scores, the first its headline.
SCORES = {"tau2": ("reward", "judged"), "autoresearch": ("valid_rows", "complete", "best_accuracy"),
          "month-end-close": ("correct_periods",)}
NOT_JUDGED = ("not judged: the reward needs a judge of the task's natural-language assertions that did not run; "
              "never passed nor failed")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def protocol(session: ExportSession) -> str:
    """``tau2``, ``autoresearch``, ``month-end-close`` (another protocol: its name)."""
    found = outcomes.protocol_of(session.outcome or {})
    if found:
        return found
    return "tau2" if session.family == "tau2" else str(session.start.get("protocol") or session.family)


def scores(session: ExportSession) -> dict[str, Score]:
    """The family's verdict as Inspect scores (see the module docstring); none without an outcome."""
    outcome = session.outcome
    if outcome is None:
        return {}
    found = outcomes.details(outcome, session.events) or {}
    kind = protocol(session)
    fields = {k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")}
    if kind == "tau2":
        meta = {**{k: fields.get(k) for k in ("parts", "reward_basis", "judged", "task_id", "domain", "termination_reason",
                                              "agent_turns", "controller_turns", "scripted_turns",
                                              "customer_device_actions", "note")},
                "transferred": outcomes.transferred(session.events)}
        out = {}
        if found.get("judged"):
            reward = found["reward"]
            parts = ", ".join(f"{p['name']} {p['value']:g}" for p in found["parts"] if p["value"] is not None)
            out["reward"] = Score(value=reward, answer="passed" if reward >= 1.0 else "failed",
                                  explanation=f"τ²-bench's reward {reward:g} (its basis: {', '.join(found['basis']) or 'none'}; "
                                              f"parts: {parts or 'none'}); ended: {fields.get('termination_reason')}",
                                  metadata=meta)
            out["judged"] = Score(value=True, explanation="τ²-bench's evaluator judged the task")
        else:
            out["judged"] = Score(value=False, explanation=NOT_JUDGED, metadata=meta)
        return out
    if kind == "autoresearch":
        valid, required = _number(fields.get("valid_rows")), _number(fields.get("required_rows"))
        rows = fields.get("rows") if isinstance(fields.get("rows"), list) else []
        invalid = [r for r in rows if isinstance(r, dict) and r.get("valid") is not True]
        out = {"valid_rows": Score(
            value=valid / required if valid is not None and required else 0.0,
            answer=f"{valid:g}/{required:g}" if valid is not None and required is not None else None,
            explanation="valid ledger rows of the rows the protocol requires" + (
                "; invalid: " + "; ".join(f"trial {r.get('trial')} breaks rule {r.get('rule')}" for r in invalid[:20])
                if invalid else ""),
            metadata={k: fields.get(k) for k in ("rows", "valid_rows", "invalid_rows", "required_rows")}),
            "complete": Score(value=fields.get("complete") is True,
                              explanation="every row valid and the stages exactly the plan's"
                              + (f"; not complete: {fields.get('incomplete_because')}" if fields.get("incomplete_because") else ""))}
        if _number(fields.get("best_accuracy")) is not None:
            out["best_accuracy"] = Score(value=_number(fields["best_accuracy"]),
                                         explanation="the highest metric among the rows decided keep")
        return out
    if kind == "month-end-close":
        periods = fields.get("periods") if isinstance(fields.get("periods"), list) else []
        correct = _number(fields.get("correct_periods"))
        return {"correct_periods": Score(
            value=correct / len(periods) if correct is not None and periods else 0.0,
            answer=f"{correct:g}/{len(periods)}" if correct is not None else None,
            explanation="periods whose eleven report fields are all within tolerance, of the periods",
            metadata={"periods": periods, "correct_periods": fields.get("correct_periods"), "turn_cap": fields.get("turn_cap")})}
    return {}


def headline(kind: str, found: EvalResults | None = None) -> HeadlineMetric | None:
    """The log's one number (Inspect's listing shows it): the protocol's first score with a mean in
    ``found`` (a log of τ²-bench tasks none of which was judged: ``judged``, 0)."""
    names = [n for n in SCORES.get(kind, ()) if found is None or any(
        s.name == n and "mean" in s.metrics for s in found.scores)]
    return HeadlineMetric(scorer=names[0], score=names[0], metric="mean") if names else None


def results(samples: list[EvalSample], kind: str) -> EvalResults:
    """Each score's mean over the samples counted (ended, not voided: no ``error``) that have it (a
    task not judged has no reward)."""
    counted = [s for s in samples if s.error is None]
    found = []
    for name in SCORES.get(kind, ()):
        values = [float(s.scores[name].value) for s in counted if s.scores and name in s.scores]
        mean = {"mean": EvalMetric(name="mean", value=sum(values) / len(values))} if values else {}
        found.append(EvalScore(name=name, scorer=name, scored_samples=len(values),
                               unscored_samples=len(samples) - len(values), metrics=mean))
    words = ("samples without an error: sessions that ended and are not voided; means over those that have the "
             "score (a τ²-bench task not judged has no reward)")
    out = EvalResults(total_samples=len(samples), completed_samples=len(counted), scores=found, metadata={"counted": words})
    out.headline = headline(kind, out)
    return out


def sample_metadata(session: ExportSession) -> dict[str, Any]:
    """What a family session adds to its sample's metadata: its study, family, protocol, outcome
    (the log's, whole) and, for a workspace run, its contexts (n, unit, how each ended)."""
    outcome = session.outcome
    meta: dict[str, Any] = {"study": session.record.study, "family": session.family, "protocol": protocol(session),
                            "outcome": {k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")} if outcome else None,
                            "verdict": outcomes.verdict(outcome)["text"]}
    if session.family == "tau2" and outcome is not None:
        meta["task_id"] = outcome.get("task_id")
    if session.family == "workspace":
        ends = {e.get("n"): e.get("ended") for e in session.events if e.get("kind") == "context_end"}
        meta["contexts"] = [{"n": e.get("n"), "unit": e.get("unit"), "ended": ends.get(e.get("n"))}
                            for e in session.events if e.get("kind") == "context_start"]
    return meta


# --- a τ²-bench conversation --------------------------------------------------------------------------

def _text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else "\n".join(getattr(c, "text", "") or "" for c in content)


def tau2_conversation(talk: Conversation, events: list[dict[str, Any]]) -> Conversation:
    """A τ²-bench session's conversation (module docstring) from ``talk`` (its transcript's): each
    successful message to the customer as the agent's text, its result as the customer's words,
    the controller's fresh tests as turns of their own; where each model response's message and
    each context's start now are. ``talk`` is left as it is."""
    said = tau2_log.by_call(events)
    out: list[Any] = []
    moved: dict[int, int] = {}
    sends: set[str] = set()
    for i, message in enumerate(talk.messages):
        moved[i] = len(out)
        if isinstance(message, ChatMessageAssistant) and message.tool_calls:
            mine = [c for c in message.tool_calls if c.function == tau2_log.SEND and c.id in said]
            if mine:
                sends.update(c.id for c in mine)
                words = [str(c.arguments.get("message", "")) for c in mine]
                text = "\n\n".join(t for t in [_text(message), *words] if t)
                rest = [c for c in message.tool_calls if c not in mine] or None
                out.append(message.model_copy(update={"content": text, "tool_calls": rest, "metadata": {
                    **(message.metadata or {}), "to_customer": [c.id for c in mine]}}))
                continue
        if isinstance(message, ChatMessageTool) and message.tool_call_id in said:
            out += _answered(message, said[message.tool_call_id], message.tool_call_id in sends)
            continue
        out.append(message)
    return Conversation(messages=out, responses={rid: moved[i] for rid, i in talk.responses.items()},
                        starts=[moved[i] for i in talk.starts if i in moved])


def _answered(message: Any, found: dict[str, Any], sent: bool) -> list[Any]:
    """What stands for a tau2 call's result: the customer's reply to a message (user messages), or
    the tool's result; then the controller's request and the customer's answer to it."""
    base = {"tool_call_id": message.tool_call_id, "seq": found["seq"]}
    out: list[Any] = []
    if sent:
        out += [ChatMessageUser(id=f"{message.id}-c{i}", content=text, metadata={**base, "customer": True})
                for i, text in enumerate(found["reply"])]
    else:
        head = tau2_log.split_result(_text(message))[0]
        out.append(message.model_copy(update={"content": head}) if found["controller"] else message)
    if found["controller"] is not None:
        out.append(ChatMessageAssistant(id=f"{message.id}-k", content=found["controller"], metadata={
            **base, "controller": True, "written_by": "the workflow's controller (the harness), not the model"}))
        out += [ChatMessageUser(id=f"{message.id}-a{i}", content=text, metadata={**base, "customer": True,
                                                                                  "answers": "controller"})
                for i, text in enumerate(found["answer"])]
    if found["ended"] and out and isinstance(out[-1], ChatMessageUser):
        out[-1] = out[-1].model_copy(update={"metadata": {**(out[-1].metadata or {}), "conversation_end": found["ended"]}})
    return out


# --- a workspace run's contexts ------------------------------------------------------------------------

def with_context_spans(events: list[Any], prefix: str) -> list[Any]:
    """The sample's events with each fresh context as a span (``context <n>: <unit>``, the unit
    left out where it only repeats the number): a
    SpanBeginEvent before the context's ``context_start``, its events carrying its ``span_id``, a
    SpanEndEvent after its ``context_end`` (or at the end)."""
    out: list[Any] = []
    span: str | None = None
    for event in events:
        source = getattr(event, "source", None)
        if source == "context_start":
            if span is not None:
                out.append(SpanEndEvent(uuid=f"{span}-end", id=span, timestamp=event.timestamp,
                                        working_start=event.working_start))
            data = event.data if isinstance(event.data, dict) else {}
            span, n, unit = f"{prefix}-context-{data.get('n')}", data.get("n"), data.get("unit")
            named = f"context {n}" + (f": {unit}" if unit and unit != f"context {n}" else "")
            out.append(SpanBeginEvent(uuid=f"{span}-begin", id=span, name=named,
                                      type="context", timestamp=event.timestamp, working_start=event.working_start))
        if span is not None:
            event = event.model_copy(update={"span_id": span})
        out.append(event)
        if source == "context_end" and span is not None:
            out.append(SpanEndEvent(uuid=f"{span}-end", id=span, timestamp=event.timestamp,
                                    working_start=event.working_start))
            span = None
    if span is not None and out:
        out.append(SpanEndEvent(uuid=f"{span}-end", id=span, timestamp=out[-1].timestamp,
                                working_start=out[-1].working_start))
    return out
