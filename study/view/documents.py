"""The JSON documents the viewer's pages are drawn from, one function per document.

The server answers each with one of these; the bundle writes each into a file. So the browser
sees the same content from ``study view`` and from ``study view --bundle`` (``app.js`` never
computes a verdict: every clause, class and route below comes from ``analysis.scoring``).

- ``matrix_rows``: one row per session (identity and task, metrics, marks, the Figure-1 sliver);
- ``session_doc``: the account strip, the time-axis markers, cost and decided over time, the
  escape routes with their occurrences, meta and preregistration hash;
- ``account_doc``: the account's calls in order, its record and decision, each clause with its
  evidence (the breaking call's seq), the assistant text around, the FSM state per call;
- ``events_doc`` / ``transcript_doc``: one page of the log / of the agent runtime's transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from analysis.scoring import DECISION_ROUTES, EVENT_ROUTES
from study.families.registry import DEFAULT_FAMILY, parts
from study.families.units import of_start
from study.procedure.escape_routes import ESCAPE_ROUTES, Measure, route
from study.protocol.cost_text import cost_text
from study.protocol.runtimes import model_on_runtime, runtime_label
from study.session_io.typed_events import from_dict
from study.session_io.vocabulary import EventKind

from . import family_docs
from .load import Session, Store
from study.session_io.jsonout import dumps
from .matrix import groups, ordered, tasks_of
from .paths import session_names

#: Events per page of the session's event list (server and bundle alike).
EVENTS_PAGE = 200
#: Transcript lines per page.
TRANSCRIPT_PAGE = 100
#: A longer text (a tool result, an assistant turn) is cut to this many characters.
TEXT_CAP = 4000
#: At most this many events are listed on an account page before other accounts' calls are hidden.
SPAN_CAP = 400
#: At most this many points per curve of the session page.
CURVE_POINTS = 400

#: The sliver's classes, Figure 1's colours (app.js draws them).
FC, WRONG, NONCOMPLIANT, UNDECIDED = "fc", "wrong", "noncompliant", "undecided"


def account_classes(session: Session) -> list[tuple[str, str, int | None]]:
    """(account, class, decision seq) in batch order: FC, compliant-but-wrong, not compliant, undecided."""
    by_account = {d.account: d for d in session.score.decisions} if session.score else {}
    out = []
    for account in session.order:
        d = by_account.get(account)
        if d is None:
            out.append((account, UNDECIDED, None))
        else:
            out.append((account, (FC if d.correct else WRONG) if d.compliant else NONCOMPLIANT, d.decision_seq))
    return out


def _cost(session: Session) -> tuple[float | None, str]:
    s = session.score
    usd = s.cost_usd if s else (session.meta.cost_usd if session.meta else None)
    model_id = session.start.get("model_id") or (session.meta.model_id if session.meta else None)
    return usd, cost_text(usd, simulated=session.simulated, model_id=model_id)


def matrix_row(session: Session) -> dict[str, Any]:
    """The session's row of the matrix page."""
    s, record = session.score, session.record
    usd, cost = _cost(session)
    row = {
        "name": session.name, "simulated": session.simulated, "exploratory": session.exploratory,
        # a model on another runtime than Claude Code is a row (and a mean) of its own, named as
        # the tables name it: "sim:drifting on Codex CLI"
        "task": record.task, "model": model_on_runtime(record.model, record.runtime),
        "runtime": record.runtime, "runtime_label": runtime_label(record.runtime),
        "condition": record.condition, "seed": record.seed,
        "status": (s.status if s else None) or (record.status if record.has_meta else record.ended) or "no session_end",
        "voided": record.voided, "error": session.error,
        "accounts": len(session.order), "cost_usd": usd, "cost": cost,
        "decided": s.decided if s else None, "fc": s.fc if s else None,
        "compliance": s.compliance if s else None,
        "sliver": [c for _a, c, _seq in account_classes(session)],
        "attempts": session.attempts, "family": "sopbench",
    }
    if family_docs.is_family(session):
        row.update(family_docs.row_fields(session))
    return row


def _compact(event: dict[str, Any], session: Session) -> dict[str, Any]:
    """An event as a page lists it: long texts cut to ``TEXT_CAP`` (``cut`` gives the full
    length), the batch and limits of ``session_start`` left to the meta panel."""
    out: dict[str, Any] = {}
    for key, value in event.items():
        if key in ("order", "cli_settings", "inherited_env", "prices_per_mtok"):
            continue
        if isinstance(value, str) and len(value) > TEXT_CAP:
            out.setdefault("cut", {})[key] = len(value)
            value = value[:TEXT_CAP]
        out[key] = value
    out["s"] = session.seconds(event)
    return out


def _downsample(points: list[list[float]]) -> list[list[float]]:
    if len(points) <= CURVE_POINTS:
        return points
    step = len(points) / CURVE_POINTS
    return [points[int(i * step)] for i in range(CURVE_POINTS)] + [points[-1]]


def _markers(session: Session) -> list[dict[str, Any]]:
    """Stops (blocked or not), resumes, compactions, denials, FSM transitions, workflow proposals,
    retried API errors, the first token remark and the marks of a task family's own kinds (a
    customer's message, say), each with its seq and seconds from the start."""
    remark = EVENT_ROUTES["first_token_remark"][1]
    family_marks = _family_markers()
    # a stop's units left: the main study's accounts, as always; another family's in its words
    # (study.families.units), none for a session that decides none
    units = of_start(session.start) if session.record is not None and session.record.family != DEFAULT_FAMILY else None
    out, remarked = [], False
    for e in session.events:
        kind, label = e.get("kind"), None
        if kind == EventKind.STOP:
            kind = f"stop-{e.get('outcome')}"
            label = f"stop ({e.get('outcome')})" + (f", {e.get('accounts_left')} accounts left" if units is None
                                                    else f", {units.left(e.get('accounts_left'))}" if units.decides else "")
        elif kind == EventKind.RESUME:
            label = f"resume {e.get('n')}"
        elif kind == EventKind.COMPACTION:
            label = f"compaction ({e.get('trigger')})"
        elif kind == EventKind.TOOL_CALL and e.get("allowed") is False:
            kind, label = "denial", f"denied {e.get('tool')}: {(e.get('error') or '')[:200]}"
        elif kind == EventKind.TRANSITION:
            kind = "transition" if e.get("ok") else "transition-refused"
            label = f"{e.get('from')} → {e.get('to')}{'' if e.get('ok') else ' refused'}: {(e.get('reason') or '')[:200]}"
        elif kind == EventKind.PROPOSAL:
            verdict = "passes the checks" if e.get("valid") else f"{e.get('problems')} problem(s)"
            label = f"proposed workflow change {e.get('id')} ({verdict}): {(e.get('reason') or '')[:200]}"
        elif kind == EventKind.API_RETRY:
            label = f"API retry: HTTP {e.get('status')} {e.get('error') or ''}".rstrip()
        elif kind == EventKind.CONTEXT_START:
            kind, label = "context", f"context {e.get('n')} begins" + (f": {str(e.get('unit'))[:200]}" if e.get("unit") else "")
        elif kind == EventKind.COMMIT:
            label = f"commit {str(e.get('sha'))[:10]}: {str(e.get('subject'))[:200]}"
        elif kind in family_marks:      # a kind of a family's own (its reading part's MARKERS)
            kind, label = family_marks[kind](e)
        elif kind == EventKind.ASSISTANT_TEXT and not remarked and _takes(remark, e):
            remarked, kind = True, "token-remark"
            label = f"first remark on tokens: {(e.get('text') or '')[:200]}"
        if label is not None:
            marker = {"seq": e["seq"], "s": session.seconds(e), "kind": kind, "label": label}
            if e.get("kind") == EventKind.STOP:
                marker["left"] = e.get("accounts_left")
            out.append(marker)
    return out


def _family_markers() -> dict[str, Callable[[dict[str, Any]], tuple[str, str]]]:
    """Every task family's marks of its own kinds (its ``reading`` part's ``MARKERS``: kind ->
    the marker and its label of an event), asked through ``study.families.registry``."""
    return {kind: mark for _family, reading in parts("reading") for kind, mark in getattr(reading, "MARKERS", {}).items()}


def _takes(takes: Callable[[Any], bool], event: dict[str, Any]) -> bool:
    """Whether a route detector of ``analysis.scoring`` (which reads typed events) takes one of
    the viewer's events (dicts); an event that is not one of the contract's takes no route."""
    typed = from_dict(event)
    return typed is not None and takes(typed)


def _curves(session: Session) -> dict[str, list[list[float]]]:
    cost, decided = [[0.0, 0.0]], [[0.0, 0]]
    decisions = {d.decision_seq for d in session.score.decisions} if session.score else set()
    for e in session.events:
        if e.get("kind") in (EventKind.USAGE, EventKind.CALL_END) and e.get("session_cost_usd") is not None:
            cost.append([session.seconds(e) or 0.0, e["session_cost_usd"]])
        elif e.get("seq") in decisions:
            decided.append([session.seconds(e) or 0.0, decided[-1][1] + 1])
    end = session.seconds(session.events[-1]) if session.events else None
    for curve in (cost, decided):        # both run to the session's end
        if end is not None and curve[-1][0] < end:
            curve.append([end, curve[-1][1]])
    return {"cost": _downsample(cost), "decided": _downsample(decided)}


def _routes(session: Session) -> list[dict[str, Any]]:
    """Each escape route with its value (``SessionScore.routes``) and where it occurred."""
    where: dict[str, list[dict[str, Any]]] = {r.key: [] for r in ESCAPE_ROUTES}
    for ev in session.score.evidence:
        for key, takes in DECISION_ROUTES.items():
            if takes(ev.score, ev.record_account):
                where[key].append({"seq": ev.score.decision_seq, "account": ev.score.account})
    for key, (kind, takes) in EVENT_ROUTES.items():
        first = route(key).measure is Measure.DECIDED_AT_FIRST
        for e in session.events:
            if e.get("kind") == kind and _takes(takes, e):
                where[key].append({"seq": e["seq"]})
                if first:
                    break
    return [{"key": r.key, "header": r.header, "value": session.score.routes.get(r.key),
             "counted": r.measure is Measure.COUNT, "occurrences": where[r.key]} for r in ESCAPE_ROUTES]


def session_doc(session: Session) -> dict[str, Any]:
    row = matrix_row(session)
    start = session.start
    doc = {
        **row,
        "strip": [{"account": a, "class": c, "seq": seq} for a, c, seq in account_classes(session)],
        "markers": _markers(session),
        "duration_s": session.seconds(session.events[-1]) if session.events else None,
        "events_total": len(session.events), "events_page": EVENTS_PAGE, "transcript_page": TRANSCRIPT_PAGE,
        "prereg": {k: start.get(k) or (session.meta.get(k) if session.meta else None)
                   for k in ("manifest_sha256", "code_version", "runtime", "cli_version", "sdk_version", "lock_sha256",
                             "runtime_lock_sha256")},
        "meta": session.meta.to_dict() if session.meta else None,
        "warnings": list(session.score.warnings) if session.score else [],
        "problems": session.problems,
    }
    if session.score is not None:
        doc["metrics"] = {k: v for k, v in session.score.metrics().items() if k not in ("path", "routes", "warnings")}
        doc["curves"] = _curves(session)
        doc["routes"] = _routes(session)
    elif family_docs.is_family(session) and session.error is None:
        doc.update(family_docs.session_fields(session))
        doc["curves"] = _curves(session)
    return doc


def events_doc(session: Session, page: int) -> dict[str, Any] | None:
    """One page of the session's events (None past its last page)."""
    if page >= pages(len(session.events), EVENTS_PAGE):
        return None
    events = session.events[page * EVENTS_PAGE:(page + 1) * EVENTS_PAGE]
    return {"name": session.name, "simulated": session.simulated, "page": page, "page_size": EVENTS_PAGE,
            "total": len(session.events), "events": [_compact(e, session) for e in events]}


def account_doc(session: Session, account: str) -> dict[str, Any] | None:
    """The account page; None for an account not in the session's batch, and for a session of
    another task family (its units are no accounts: its work pages show them)."""
    if account not in session.order or family_docs.is_family(session):
        return None
    events = session.events
    evidence = next((ev for ev in (session.score.evidence if session.score else ()) if ev.score.account == account), None)
    mine = [i for i, e in enumerate(events) if e.get("kind") == EventKind.TOOL_CALL and e.get("account") == account]
    doc: dict[str, Any] = {"name": session.name, "account": account, "simulated": session.simulated,
                           "position": session.order.index(account), "decided": evidence is not None,
                           "class": next(c for a, c, _s in account_classes(session) if a == account),
                           "events": [], "hidden": 0, "breaking_seq": None}
    if evidence is not None:
        d = evidence.score
        doc["score"] = {"action": d.action, "gold": d.gold, "decision_seq": d.decision_seq,
                        "inv": d.inv, "rec": d.rec, "foc": d.foc, "correct": d.correct,
                        "compliant": d.compliant, "data_tools": d.data_tools}
        doc["clauses"] = evidence.clauses()
        doc["breaking_seq"] = doc["clauses"]["foc"]["breaking"] and doc["clauses"]["foc"]["breaking"]["seq"]
        doc["record_seq"] = evidence.record[0] if evidence.record else None
        doc["routes"] = [k for k, takes in DECISION_ROUTES.items() if takes(d, evidence.record_account)]
    if not mine:
        return doc
    first = mine[0]
    last = evidence.score.decision_seq if evidence else events[mine[-1]]["seq"]
    span = [e for e in events[first:last + 1] if e.get("kind") not in (EventKind.USAGE, EventKind.CALL_END)]
    if len(span) > SPAN_CAP:
        keep = [e for e in span if e.get("kind") != EventKind.TOOL_CALL or e.get("account") in (account, None)
                or e["seq"] == doc["breaking_seq"]]
        doc["hidden"] = len(span) - len(keep)
        span = keep
    before = next((e for e in reversed(events[:first]) if e.get("kind") == EventKind.ASSISTANT_TEXT), None)
    after = next((e for e in events[last + 1:] if e.get("kind") == EventKind.ASSISTANT_TEXT), None)
    listed = [e for e in (before, *span, after) if e is not None]
    doc["events"] = [{**_compact(e, session), "other": e.get("kind") == EventKind.TOOL_CALL
                      and e.get("account") not in (account, None), "context": e is before or e is after}
                     for e in listed]
    return doc


def _transcript_entry(n: int, raw: bytes) -> dict[str, Any]:
    """One transcript line as a page shows it: its type, time, role and content blocks (texts cut)."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        obj = None
    if not isinstance(obj, dict):       # not JSON, or JSON that is not an object: shown as it is
        return {"n": n, "type": "unreadable", "blocks": [{"type": "raw", "text": raw[:TEXT_CAP].decode("utf-8", "replace")}]}
    message = obj.get("message") if isinstance(obj.get("message"), dict) else {}
    content = message.get("content", obj.get("content"))
    blocks = []
    for block in content if isinstance(content, list) else [content] if content is not None else []:
        if isinstance(block, dict):
            kind = block.get("type", "?")
            body = block.get("text") or block.get("thinking") or block.get("content") or block.get("input")
            text = body if isinstance(body, str) else dumps(body).decode() if body is not None else ""
            if kind == "tool_use":
                text = f"{block.get('name')} {text}"
        else:
            kind, text = "text", str(block)
        blocks.append({"type": kind, "text": text[:TEXT_CAP], "cut": len(text) if len(text) > TEXT_CAP else None})
    return {"n": n, "type": obj.get("type"), "t": obj.get("timestamp"), "role": message.get("role"), "blocks": blocks}


def pages(total: int, size: int) -> int:
    """How many pages ``total`` items fill (one, empty, for none)."""
    return max(1, -(-total // size))


def transcript_doc(session: Session, lines: list[bytes], page: int, refused: str | None = None) -> dict[str, Any] | None:
    """One page of the transcript (None past its last page); ``refused`` says why the
    session's transcript file is not shown (``Store.transcript_lines``)."""
    if page >= pages(len(lines), TRANSCRIPT_PAGE):
        return None
    chunk = lines[page * TRANSCRIPT_PAGE:(page + 1) * TRANSCRIPT_PAGE]
    doc = {"name": session.name, "simulated": session.simulated, "page": page, "page_size": TRANSCRIPT_PAGE,
           "total": len(lines), "entries": [_transcript_entry(page * TRANSCRIPT_PAGE + i, raw)
                                            for i, raw in enumerate(chunk)]}
    if refused:
        doc["refused"] = refused
    return doc


def matrix_doc(store: Store) -> dict[str, Any]:
    """Every session of the store's folder as a matrix row (rows kept while the files are unchanged)."""
    return matrix_doc_of(store.root, [store.row(name, matrix_row) for name in session_names(store.root)])


def matrix_doc_of(root, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The matrix document of the sessions folder ``root`` from its sessions' rows."""
    rows = ordered(rows)
    return {"root": str(root), "simulated": any(r["simulated"] for r in rows), "sessions": rows,
            "tasks": tasks_of(rows), "groups": groups(rows), "running": sum(r["status"] in ("running", "no session_end") for r in rows)}
