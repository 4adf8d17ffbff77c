"""The viewer's documents for a session of another task family than SOP-Bench's (a conversation,
a run of fresh contexts): what replaces the SOP-Bench scores.

What only the family knows it is asked for, through ``study.families.registry``: its ``reading``
part (the verdict's words, the protocol an outcome reads under, whether its work is a run of fresh
contexts: ``CONTEXTS``) and its ``transcript`` part (the work from the log: one conversation, or
the contexts). The documents are then the same shapes for every family:

- ``row_fields``: a matrix row's family, study, the family's verdict (in place of FC) and its
  cells (in place of the Figure-1 sliver: one per unit of the work);
- ``session_fields``: the session page's outcome (every figure the family's evaluator gave:
  ``study.transcripts.outcomes``) and the index of its ``work`` pages (a conversation's counts of
  turns by who spoke; a run's contexts);
- ``work_doc``: one page of the work: ``WORK_PAGE`` entries at most of the conversation, or of one
  context;
- ``group_verdicts``: the matrix's summary of a group of such sessions, in the family's words;
- ``units_words``: what the session's units are called (``study.families.units``), which the pages
  say a stop's units left in (none for a session that decides none).

The entries come from the log, an untrusted record: every text is cut to ``TEXT_CAP``, every
argument object is shown as its JSON text cut alike, and every list is cut (``bounded``), so a
forged line holding a huge value makes no huge page.
"""

from __future__ import annotations

from typing import Any

from study.families.registry import DEFAULT_FAMILY, part_of
from study.families.units import of_start
from study.session_io.jsonout import dumps
from study.transcripts import outcomes

from .load import Session, transcript_path

MAIN_FAMILY = DEFAULT_FAMILY
#: Entries of the work per page (a conversation's turns; a context's items).
WORK_PAGE = 150
TEXT_CAP = 4000
#: At most this many elements of a list, keys of an object, levels of nesting are shown.
LIST_CAP, DEPTH_CAP = 50, 4


def is_family(session: Session) -> bool:
    """A session of another family than SOP-Bench's (its record's ``family``)."""
    return session.record is not None and session.record.family != MAIN_FAMILY


def outcome_of(session: Session) -> dict[str, Any] | None:
    """The log's ``outcome`` event (the family's verdict), or None: none written, or records that
    break a rule (an outcome its evidence does not re-derive among them: ``session.error`` names it),
    whose verdict is never shown as one."""
    if session.error is not None:
        return None
    return next((e for e in reversed(session.events) if e.get("kind") == "outcome"), None)


def bounded(value: Any, depth: int = 0) -> Any:
    """``value`` with its texts cut to ``TEXT_CAP``, its lists and objects to ``LIST_CAP``
    elements and its nesting to ``DEPTH_CAP`` levels (deeper: the JSON text, cut)."""
    if isinstance(value, str):
        return value[:TEXT_CAP]
    if isinstance(value, (dict, list)) and depth >= DEPTH_CAP:
        return dumps(value).decode()[:TEXT_CAP]
    if isinstance(value, dict):
        return {str(k)[:200]: bounded(v, depth + 1) for k, v in list(value.items())[:LIST_CAP]}
    if isinstance(value, list):
        return [bounded(v, depth + 1) for v in value[:LIST_CAP]]
    return value


def _shown(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as a page shows it: its arguments as their JSON text (cut), the rest bounded."""
    out = dict(entry)
    if "args" in out:
        text = dumps(out["args"]).decode()
        out["args"] = {"text": text[:TEXT_CAP], **({"cut": len(text)} if len(text) > TEXT_CAP else {})}
    return bounded(out)


def row_fields(session: Session) -> dict[str, Any]:
    """What a matrix row of a family session shows in place of SOP-Bench's scores."""
    found = outcomes.verdict(outcome_of(session))
    record = session.record
    if session.error is not None:
        found["text"] = "invalid records: never counted"
    elif found["text"] == "no outcome" and session.log is not None and session.log.end is None:
        found["text"] = _where(session)      # it runs (or its runner is gone): where it is
    reading = part_of(record.family, "reading")
    protocol = reading.protocol_of(session.start) if reading is not None else session.start.get("protocol")
    return {"family": record.family, "study": record.study, "task": record.study,
            "protocol": protocol if isinstance(protocol, str) else None, "verdict": found["text"], "verdict_class": found["class"], "cells": found["cells"][:1000],
            "fc": None, "compliance": None, "decided": None, "sliver": []}


def _in_contexts(session: Session) -> bool:
    """Whether the session's work is a run of fresh contexts (its family's reading says so; a
    family that does not say: yes, a run of one context or more)."""
    return getattr(part_of(session.record.family, "reading"), "CONTEXTS", True)


def _where(session: Session) -> str:
    """A session without an end: how far its log goes, in its family's words (``unfinished``),
    else the last context begun."""
    events = session.events
    unfinished = getattr(part_of(session.record.family, "reading"), "unfinished", None)
    if unfinished is not None:
        return unfinished(events)
    last = next((e for e in reversed(events) if e.get("kind") == "context_start"), None)
    return f"no end yet: context {last.get('n')}" if last is not None else "no end yet"


def _contexts(session: Session) -> list[dict[str, Any]]:
    """The run's contexts, as the family's transcript part reads them from the log."""
    cache = session.cache
    if "contexts" not in cache:
        transcript = part_of(session.record.family, "transcript")
        cache["contexts"] = transcript.contexts(session.events) if transcript is not None else []
    return cache["contexts"]


def _conversation(session: Session) -> list[dict[str, Any]]:
    """The conversation, as the family's transcript part reads it from the log."""
    cache = session.cache
    if "conversation" not in cache:
        transcript = part_of(session.record.family, "transcript")
        cache["conversation"] = transcript.conversation(session.events) if transcript is not None else []
    return cache["conversation"]


def _pages(session: Session) -> list[tuple[int | None, int, list[dict[str, Any]]]]:
    """The work's pages: (context index or None, part, entries)."""
    cache = session.cache
    if "pages" not in cache:
        pages: list[tuple[int | None, int, list[dict[str, Any]]]] = []
        if _in_contexts(session):
            for i, context in enumerate(_contexts(session)):
                items = context["items"]
                for part in range(max(1, -(-len(items) // WORK_PAGE))):
                    pages.append((i, part, items[part * WORK_PAGE:(part + 1) * WORK_PAGE]))
        else:
            talk = _conversation(session)
            for part in range(max(1, -(-len(talk) // WORK_PAGE))):
                pages.append((None, part, talk[part * WORK_PAGE:(part + 1) * WORK_PAGE]))
        cache["pages"] = pages
    return cache["pages"]


def session_fields(session: Session) -> dict[str, Any]:
    """The session page's outcome and the index of its work pages (a conversation's counts of
    turns by who spoke; per context of a run: its unit, the state it began in, how it ended, its
    counts and its pages)."""
    fields: dict[str, Any] = {"outcome": bounded(outcomes.details(outcome_of(session), session.events)),
                              "work_pages": len(_pages(session)), "work_page": WORK_PAGE, "units": units_words(session)}
    if _in_contexts(session):
        index = []
        for i, context in enumerate(_contexts(session)):
            pages = [p for p, (c, _part, _items) in enumerate(_pages(session)) if c == i]
            index.append(bounded({"n": context["n"], "unit": context["unit"], "state": context["state"],
                                  "ended": context["ended"], "seq": context["seq"], "counts": context["counts"],
                                  "items": len(context["items"]), "pages": pages}))
        fields["contexts"] = index[:10_000]
        fields["context_transcripts"] = kept_contexts(session)[:10_000]
    else:
        transcript = part_of(session.record.family, "transcript")
        fields["turns"] = transcript.turns(_conversation(session)) if transcript is not None else {}
    return fields


def kept_contexts(session: Session) -> list[int]:
    """The ended contexts of a run whose transcripts the session keeps apart
    (``contexts/context-<n>.transcript.jsonl``: every context's but the last, whose transcript is
    the session's own); only numbers its log names, and only files that are there."""
    if not is_family(session) or not _in_contexts(session):
        return []
    numbers = [c["n"] for c in _contexts(session)[:-1] if isinstance(c["n"], int) and not isinstance(c["n"], bool)]
    return [n for n in numbers if transcript_path(session, n).exists()]


def work_doc(session: Session, page: int) -> dict[str, Any] | None:
    """One page of the session's work (None past its last page, or for a SOP-Bench session)."""
    if not is_family(session) or session.error is not None:
        return None
    pages = _pages(session)
    if page >= len(pages):
        return None
    context, part, entries = pages[page]
    doc: dict[str, Any] = {"name": session.name, "simulated": session.simulated, "page": page, "pages": len(pages),
                           "family": session.record.family, "part": part, "units": units_words(session),
                           "entries": [{**_shown(e), "s": session.seconds(_event_at(session, e.get("seq")))}
                                       for e in entries]}
    if context is not None:
        c = _contexts(session)[context]
        doc["context"] = bounded({"n": c["n"], "unit": c["unit"], "index": context})
    return doc


def units_words(session: Session) -> dict[str, str | None]:
    """What the session's units are called, in its family's words: ``one``, ``many`` and ``done``
    (the word of a done one; None: the session decides none)."""
    one, many, done = of_start(session.start).words()
    return {"one": one, "many": many, "done": done}


def _event_at(session: Session, seq: Any) -> dict[str, Any]:
    """The event of ``seq`` (a valid log's seq is its index), else none."""
    events = session.events
    if isinstance(seq, int) and 0 <= seq < len(events) and events[seq].get("seq") == seq:
        return events[seq]
    return {}


def group_verdicts(rows: list[dict[str, Any]]) -> str:
    """A group's family sessions in words: '2 passed, 1 failed, 1 not judged' (over the sessions
    that are not voided and have valid records), the words of the first one's family and protocol
    (its reading's ``group_words``)."""
    counted = [r for r in rows if not r.get("voided") and not r.get("error")]
    if not counted:
        return "–"
    group_words = getattr(part_of(counted[0].get("family"), "reading"), "group_words", None)
    words = (group_words(counted[0].get("protocol")) if group_words is not None else None) or ("pass", "fail", "none")
    counts = [sum(r.get("verdict_class") == c for r in counted) for c in (outcomes.PASS, outcomes.FAIL, outcomes.NONE)]
    return ", ".join(f"{n} {w}" for n, w in zip(counts, words) if n) or "–"
