"""A session of another task family than SOP-Bench's in an Inspect eval log: its family's verdict
as its scores, its work as its messages and spans.

What only the family knows it is asked for, through ``study.families.registry``:

- its ``reading`` part: the name the session reads under (``protocol``: a protocol's, or the
  family's own), its scores (``inspect_scores``: plain data, made Inspect ``Score`` objects here;
  a benchmark's reward with every part of its evaluation, a protocol's rows or periods), their
  names (``SCORES``, the headline first), what it adds to a sample's metadata
  (``inspect_metadata``), and whether its work is a run of fresh contexts (``CONTEXTS``: each
  context is then a span of its events, ``context <n>: <unit>``);
- its ``inspect`` part, where it has one: its messages as the benchmark has them (a
  conversation's turns in place of the calls that carried them: ``conversation``).

A session whose outcome or family no folder reads has no scores. This module imports inspect-ai
(an optional extra): only ``study export inspect`` imports it.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.event import SpanBeginEvent, SpanEndEvent
from inspect_ai.log import EvalMetric, EvalResults, EvalSample, EvalScore, HeadlineMetric
from inspect_ai.scorer import Score

from study.families.registry import part_of, parts
from study.families.units import of_start
from study.transcripts import outcomes

from .inspect_messages import Conversation
from .sessions import ExportSession

#: What the log's results say their means are over (each family may add why a sample lacks a score).
COUNTED = ("samples without an error: sessions that ended and are not voided; means over those that have the "
           "score")


def protocol(session: ExportSession) -> str:
    """The name the session reads under: its outcome's (``outcomes.protocol_of``), else its
    family's word for its session_start, else the protocol it names or its family."""
    found = outcomes.protocol_of(session.outcome or {})
    if found:
        return found
    reading = part_of(session.family, "reading")
    found = reading.protocol_of(session.start) if reading is not None else None
    return found or str(session.start.get("protocol") or session.family)


def scores(session: ExportSession) -> dict[str, Score]:
    """The family's verdict as Inspect scores (its reading's ``inspect_scores``); none without an
    outcome."""
    outcome = session.outcome
    reading = part_of(session.family, "reading")
    if outcome is None or reading is None:
        return {}
    return {name: Score(**fields) for name, fields in reading.inspect_scores(protocol(session), outcome,
                                                                             session.events).items()}


def score_names(family: str, kind: str) -> tuple[str, ...]:
    """The scores of ``kind``'s outcomes (``family``'s reading's ``SCORES``), the headline first."""
    reading = part_of(family, "reading")
    return tuple(reading.SCORES.get(kind, ())) if reading is not None else ()


def metric(name: str) -> str:
    """The name of score ``name``'s mean: its own (``mean_reward``, ``mean_valid_rows``), so
    ``inspect view``'s log list, whose metric columns pool the logs' metrics by name, never
    averages one family's score with another's (the main study's are ``mean``)."""
    return f"mean_{name}"


def headline(names: tuple[str, ...], found: EvalResults | None = None) -> HeadlineMetric | None:
    """The log's one number (Inspect's listing shows it): the mean of the first of ``names``, the
    family's headline; none where ``found`` has no mean of it (a log of tasks none of which was
    judged: the list shows no number, never 0)."""
    if not names or (found is not None and not any(s.name == names[0] and s.metrics for s in found.scores)):
        return None
    return HeadlineMetric(scorer=names[0], score=names[0], metric=metric(names[0]))


def results(samples: list[EvalSample], family: str, kind: str) -> EvalResults:
    """Each score's mean (``metric``) over the samples counted (ended, not voided: no ``error``)
    that have it (a task not judged has no reward)."""
    counted = [s for s in samples if s.error is None]
    names = score_names(family, kind)
    found = []
    for name in names:
        values = [float(s.scores[name].value) for s in counted if s.scores and name in s.scores]
        mean = {metric(name): EvalMetric(name=metric(name), value=sum(values) / len(values))} if values else {}
        found.append(EvalScore(name=name, scorer=name, scored_samples=len(values),
                               unscored_samples=len(samples) - len(values), metrics=mean))
    words = " ".join([COUNTED, *(r.INSPECT_COUNTED for _f, r in parts("reading") if hasattr(r, "INSPECT_COUNTED"))])
    out = EvalResults(total_samples=len(samples), completed_samples=len(counted), scores=found, metadata={"counted": words})
    out.headline = headline(names, out)
    return out


def sample_metadata(session: ExportSession) -> dict[str, Any]:
    """What a family session adds to its sample's metadata: its study, family, protocol, outcome
    (the log's, whole), its verdict, and what its family's reading adds (``inspect_metadata``)."""
    outcome = session.outcome
    units = of_start(session.start)      # its units in its family's words (study.families.units)
    meta: dict[str, Any] = {"study": session.record.study, "family": session.family, "protocol": protocol(session),
                            "outcome": {k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")} if outcome else None,
                            "verdict": outcomes.verdict(outcome)["text"],
                            "units": {"one": units.one, "many": units.many, "done_word": units.done,
                                      "of": len(session.order), "done": session.record.decisions if units.decides else None}}
    reading = part_of(session.family, "reading")
    if reading is not None:
        meta.update(reading.inspect_metadata(outcome, session.events))
    return meta


def in_contexts(family: str) -> bool:
    """Whether ``family``'s work is a run of fresh contexts (its reading's ``CONTEXTS``)."""
    return bool(getattr(part_of(family, "reading"), "CONTEXTS", False))


def family_conversation(session: ExportSession, talk: Conversation) -> Conversation:
    """``talk`` as the session's family carries it (its ``inspect`` part's ``conversation``), or
    as it is."""
    part = part_of(session.family, "inspect")
    return part.conversation(talk, session.events) if part is not None else talk


# --- a run of fresh contexts ---------------------------------------------------------------------------

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
            data = event.metadata or {}     # the record's fields (its data is their text: inspect_info)
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
