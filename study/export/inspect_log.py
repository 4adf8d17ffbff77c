"""The sessions as Inspect eval logs (inspect-ai's log format), written with inspect-ai's own log
API, so ``inspect view``, ``inspect_ai.analysis.samples_df``/``evals_df`` and transcript scanners
read them.

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
What maps to what (README, "Using the sessions elsewhere"):

- one eval log per group of ``sessions.collect`` (model on runtime, condition, task, batch size);
  its task name starts ``SIMULATED`` for simulated sessions, which also carry the tag and
  ``metadata.simulated``;
- one sample per session: ``id`` its seed, ``epoch`` 1 (2, 3, ... for further sessions of the
  same seed in one group); ``input`` the first message; ``messages`` the conversation of its
  transcript (``study.transcripts``, by the session's runtime); ``events`` its ``events.jsonl``;
  ``scores`` ``analysis.scoring``'s; a voided or unfinished session is an errored sample
  (``error``), left out of the eval's results as the tables leave it out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import shortuuid
from inspect_ai.event import ApprovalEvent, CompactionEvent, ErrorEvent, InfoEvent, SampleLimitEvent, ToolEvent
from inspect_ai.log import (EvalConfig, EvalDataset, EvalError, EvalLog, EvalMetric, EvalPlan, EvalPlanStep,
                            EvalResults, EvalRevision, EvalSample, EvalSampleLimit, EvalScore, EvalSpec, EvalStats,
                            HeadlineMetric, write_eval_log)
from inspect_ai.model import (ChatCompletionChoice, ChatMessageAssistant, ChatMessageTool, ChatMessageUser,
                              ContentReasoning, ContentText, ModelOutput)
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall, ToolCallError

from analysis.tables import window_label
from study.protocol.runtimes import RUNTIMES, runtime_label
from study.session_io.vocabulary import Limit, SessionStatus

from .sessions import Collected, ExportSession, GroupKey, Skipped, collect

#: The Inspect model provider of each model API (``study.protocol.runtimes``).
PROVIDERS = {"anthropic-messages": "anthropic", "openai-responses": "openai"}
#: The scalar scores of a sample, each one of ``SessionScore``'s metrics, in this order.
SCALAR_SCORES = ("fc", "compliance", "decided", "correct", "compliant")
#: The one number of an eval log (Inspect's listing shows it): the mean FC.
HEADLINE = HeadlineMetric(scorer="fc", score="fc", metric="mean")
#: ``limit:<name>`` of a session's end as Inspect's limit types (others are ``custom``).
LIMIT_TYPES = {"spending": "cost", "turns": "turn", "wall_time": "time"}
#: Log events that become no Inspect event: the running cost after each response (the sample's
#: ``metadata.cost_usd`` and the ``call_end`` events carry the cost).
LEFT_OUT = {"usage"}
SOURCE = "study export inspect"


@dataclass
class Written:
    """What an export wrote: one line per log, and the sessions skipped."""

    logs: list[Path] = field(default_factory=list)
    samples: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --- the conversation -------------------------------------------------------------------------------

def _arguments(text: str) -> tuple[dict[str, Any], str | None]:
    try:
        value = orjson.loads(text) if text else {}
    except orjson.JSONDecodeError as exc:
        return {}, f"the arguments are not JSON: {exc}"
    return (value, None) if isinstance(value, dict) else ({"value": value}, None)


def _tool_error(call: dict[str, Any]) -> ToolCallError | None:
    text = (call.get("result") or {}).get("text") or ""
    if call.get("denied"):
        return ToolCallError("approval", text)     # the tool-call gate (PreToolUse hook) refused it
    if call.get("error"):
        return ToolCallError("unknown", text)
    return None


class _Conversation:
    """Turns to chat messages: consecutive assistant turns (text, thinking, calls) of one model
    response are one assistant message, followed by one tool message per call with its result;
    a turn after those results starts the next assistant message. User text, stop-gate feedback
    (``metadata.stop_block``) and a compaction's summary (``metadata.compaction``: the boundary's
    words) are user messages, as the model saw them."""

    def __init__(self, prefix: str, model: str) -> None:
        self.prefix, self.model = prefix, model
        self.messages: list[Any] = []
        self._parts: list[Any] = []
        self._calls: list[dict[str, Any]] = []
        self._first_n: int | None = None
        self._boundary: dict[str, Any] | None = None

    def _id(self, n: Any, tail: str = "") -> str:
        return f"{self.prefix}-L{n}{tail}-{len(self.messages)}"

    def _meta(self, turn: dict[str, Any], **more: Any) -> dict[str, Any]:
        return {"turn": turn["role"], "transcript_line": turn.get("n"), **more}

    def _answered(self, n: Any) -> bool:
        """A result of a pending call came before transcript line ``n``."""
        return any(isinstance(c.get("result_n"), int) and isinstance(n, int) and c["result_n"] < n
                   for c in self._calls)

    def flush(self) -> None:
        if not self._parts and not self._calls:
            return
        parts = self._parts
        content: Any = parts[0].text if len(parts) == 1 and isinstance(parts[0], ContentText) else list(parts)
        calls = []
        for c in self._calls:
            arguments, problem = _arguments(c["args"]["text"])
            calls.append(ToolCall(id=str(c.get("id")), function=str(c.get("tool")), arguments=arguments,
                                  parse_error=problem))
        self.messages.append(ChatMessageAssistant(
            id=self._id(self._first_n), content=content or "", tool_calls=calls or None, model=self.model,
            source="generate", metadata={"turn": "assistant", "transcript_line": self._first_n}))
        for call in self._calls:
            if call.get("result") is None:     # no result in the transcript (the session ended first)
                continue
            self.messages.append(ChatMessageTool(
                id=self._id(call.get("result_n"), "r"), content=call["result"]["text"], tool_call_id=str(call.get("id")),
                function=str(call.get("tool")), error=_tool_error(call),
                metadata={"turn": "result", "transcript_line": call.get("result_n"), "denied": bool(call.get("denied"))}))
        self._parts, self._calls, self._first_n = [], [], None

    def add(self, turn: dict[str, Any]) -> None:
        role = turn.get("role")
        if role in ("assistant", "thinking", "call"):
            self._unmarked()
            if self._answered(turn.get("n")):
                self.flush()
            if self._first_n is None:
                self._first_n = turn.get("n")
            if role == "assistant":
                self._parts.append(ContentText(text=turn.get("text") or ""))
            elif role == "thinking":
                self._parts.append(ContentReasoning(reasoning=turn.get("text") or ""))
            else:
                self._calls.append(turn)
            return
        self.flush()
        text = turn.get("text") or ""
        n = turn.get("n")
        if role == "compaction" and not turn.get("summary"):
            # the boundary: the conversation before it was replaced by the summary that follows;
            # it marks that summary (a system message would be shown first by Inspect's viewer)
            self._unmarked()
            self._boundary = turn
            return
        if role == "compaction":
            boundary, self._boundary = self._boundary, None
            self.messages.append(ChatMessageUser(id=self._id(n), content=text, metadata=self._meta(
                turn, compaction=boundary.get("text") if boundary else "Conversation compacted", summary=True)))
            return
        self._unmarked()
        if role == "user":
            first = not self.messages
            self.messages.append(ChatMessageUser(id=self._id(n), content=text, source="input" if first else None,
                                                 metadata=self._meta(turn)))
        elif role == "stop-block":      # the stop gate sent the agent back to work: the model sees it as user text
            self.messages.append(ChatMessageUser(id=self._id(n), content=text, metadata=self._meta(turn, stop_block=True)))

    def _unmarked(self) -> None:
        """A compaction boundary with no summary after it: a user message of its own, marked
        ``synthetic`` (the model never saw it)."""
        boundary, self._boundary = self._boundary, None
        if boundary is not None:
            self.messages.append(ChatMessageUser(id=self._id(boundary.get("n")), content=f"[{boundary.get('text')}]",
                                                 metadata=self._meta(boundary, compaction=boundary.get("text"),
                                                                     synthetic=True)))

    def close(self) -> list[Any]:
        self.flush()
        self._unmarked()
        return self.messages


def conversation(turns: list[dict[str, Any]], prefix: str, model: str) -> list[Any]:
    """The chat messages of a session's turns (``study.transcripts``), in order."""
    out = _Conversation(prefix, model)
    for turn in turns:
        out.add(turn)
    return out.close()


# --- the events -------------------------------------------------------------------------------------

def _limit(start: dict[str, Any], name: str) -> float | None:
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


def events(session: ExportSession, prefix: str) -> list[Any]:
    """The session log's events as Inspect events, each with its ``seq`` and time (``metadata``):
    tool calls as ToolEvents (a call the tool-call gate refused: an ApprovalEvent ``reject``
    before its ToolEvent, whose error is of type ``approval``), compactions as CompactionEvents, a
    limit that ended the session as a SampleLimitEvent, an infrastructure failure as an
    ErrorEvent, everything else (session start and end, FSM transitions, stops and stop-gate
    blocks, resumes, assistant text, call ends, retries, proposals) as InfoEvents whose ``source``
    is the log's kind. ``usage`` events are left out (``LEFT_OUT``)."""
    out: list[Any] = []
    start = session.start
    t0 = _time(start.get("t"))
    for event in session.events:
        kind = event.get("kind")
        if kind in LEFT_OUT:
            continue
        seq = event.get("seq")
        stamp = _time(event.get("t"))
        common = {"timestamp": stamp, "working_start": max(0.0, (stamp - t0).total_seconds()),
                  "metadata": {"seq": seq, "kind": kind}}
        uuid = f"{prefix}-{seq}"
        if kind == "tool_call":
            name, args = _tool_name(event), event.get("args")
            args = args if isinstance(args, dict) else {"value": args}
            meta = {**common["metadata"], **{k: event.get(k) for k in ("server", "account", "allowed", "ok", "state",
                                                                         "reminder_attached") if k in event}}
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
                                        limit=_limit(start, name)))
        elif kind == "session_end" and event.get("status") == SessionStatus.INFRASTRUCTURE_FAILURE:
            out.append(ErrorEvent(uuid=uuid, **{**common, "metadata": {**common["metadata"], **_fields(event)}},
                                  error=_error(f"infrastructure failure: {event.get('error')}")))
        else:
            out.append(InfoEvent(uuid=uuid, **common, source=str(kind), data=_fields(event)))
    return out


def _time(text: Any) -> datetime:
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def _error(message: str) -> EvalError:
    return EvalError(message=message, traceback="", traceback_ansi="")


# --- the scores -------------------------------------------------------------------------------------

def scores(session: ExportSession) -> dict[str, Score]:
    """``analysis.scoring``'s metrics of the session as Inspect scores (the numbers ``study score``
    prints); the escape routes, the real turn ends and each decision's clauses are the metadata
    of ``fc``. ``compliance`` is absent for a session that decided nothing (no rate)."""
    s = session.score
    accounts = len(s.order)
    windows = {window_label(i, accounts): x for i, x in enumerate(s.fc_windows)}
    decisions = [{"account": d.account, "position": d.position + 1, "action": d.action, "gold": d.gold,
                  "inv": d.inv, "rec": d.rec, "foc": d.foc, "compliant": d.compliant, "correct": d.correct}
                 for d in s.decisions]
    out = {
        "fc": Score(value=s.fc, answer=f"{s.decided}/{accounts} decided",
                    explanation=f"{s.fc} of {s.decided} decisions compliant (investigated, recorded, focused) "
                                f"and correct; {s.compliant} compliant, {s.correct} correct",
                    metadata={"routes": dict(s.routes), "turn_ends": s.turn_ends, "fc_windows": windows,
                              "correct_sopbench": session.correct_sopbench, "decisions": decisions,
                              "warnings": list(s.warnings)}),
        "decided": Score(value=s.decided, explanation=f"accounts with a decision, of {accounts}"),
        "correct": Score(value=s.correct, explanation="decisions equal to the gold label (exact match)"),
        "compliant": Score(value=s.compliant, explanation="decisions investigated, recorded and focused"),
        "fc_windows": Score(value=windows, explanation="FC per 50 accounts, by the account's position in the seed's order"),
    }
    if s.compliance is not None:
        out["compliance"] = Score(value=s.compliance, explanation="compliant / decided")
    return {k: out[k] for k in (*SCALAR_SCORES, "fc_windows") if k in out}


def results(samples: list[EvalSample]) -> EvalResults:
    """Each score's mean over the samples the tables count (ended, not voided: no ``error``); a
    score no such sample has (compliance where nothing was decided) has no mean."""
    counted = [s for s in samples if s.error is None]
    found: list[EvalScore] = []
    for name in SCALAR_SCORES:
        values = [float(s.scores[name].value) for s in counted if s.scores and name in s.scores]
        mean = {"mean": EvalMetric(name="mean", value=sum(values) / len(values))} if values else {}
        found.append(EvalScore(name=name, scorer=name, scored_samples=len(values),
                               unscored_samples=len(samples) - len(values), metrics=mean))
    windows: dict[str, list[float]] = {}
    for s in counted:
        for label, value in (s.scores or {}).get("fc_windows", Score(value={})).value.items():
            windows.setdefault(label, []).append(float(value))
    found.append(EvalScore(name="fc_windows", scorer="fc_windows", scored_samples=len(counted),
                           unscored_samples=len(samples) - len(counted),
                           metrics={label: EvalMetric(name=label, value=sum(v) / len(v)) for label, v in windows.items()}))
    return EvalResults(total_samples=len(samples), completed_samples=len(counted), scores=found, headline=HEADLINE,
                       metadata={"counted": "samples without an error: sessions that ended and are not voided, "
                                            "as the tables count them; means over those sessions"})


# --- samples and logs -------------------------------------------------------------------------------

def model_name(key: GroupKey, model_id: str | None) -> str:
    """The eval's model as Inspect names models (``provider/model``): ``sim/<policy>`` for the
    simulator, else the runtime API's provider and the model id."""
    if key.model.startswith("sim:"):
        return "sim/" + key.model.split(":", 1)[1]
    api = RUNTIMES[key.runtime].api if key.runtime in RUNTIMES else ""
    return f"{PROVIDERS.get(api, key.runtime)}/{model_id or key.model}"


def _one_or_all(values: list[Any]) -> Any:
    """The one value all sessions share, else every distinct value (sorted)."""
    distinct = sorted({orjson.dumps(v, option=orjson.OPT_SORT_KEYS) for v in values})
    found = [orjson.loads(v) for v in distinct]
    return found[0] if len(found) == 1 else found


def sample(session: ExportSession, key: GroupKey, model: str, epoch: int) -> EvalSample:
    s, start, end, record = session.score, session.start, session.end, session.record
    prefix = f"seed{s.seed}-e{epoch}"
    messages = conversation(session.turns or [], prefix, model)
    first = next((m for m in messages if isinstance(m, ChatMessageUser)), None)
    last = next((m for m in reversed(messages) if isinstance(m, ChatMessageAssistant) and m.text), None)
    error = None
    if record.voided:
        error = _error(f"voided: {record.void_reason or 'no reason recorded'}")
    elif end is None:
        error = _error("incomplete: no session_end (still running, or crashed)")
    limit = None
    status = str(end.get("status")) if end else ""
    if status.startswith("limit:"):
        name = status.split(":", 1)[1]
        limit = EvalSampleLimit(type=LIMIT_TYPES.get(name, "custom"), limit=_limit(start, name) or 0.0, reason=status)
    meta = session.meta
    metadata = {
        "seed": s.seed, "status": str(record.status), "voided": record.voided, "void_reason": record.void_reason,
        "exploratory": record.exploratory, "exploratory_why": record.exploratory_why, "simulated": s.simulated,
        "cost_usd": s.cost_usd, "cost_complete": meta.get("cost_complete") if meta is not None else None,
        "resumes": s.resumes, "decided": s.decided, "accounts": len(s.order), "order": list(s.order),
        "session": session.name, "session_dir": str(session.path.resolve()), "session_id": start.get("session_id")
        or (meta.get("session_id") if meta is not None else None),
        "model": s.model, "model_id": record.model_id, "runtime": session.runtime, "cli_version": record.cli_version,
        "condition": s.condition, "task": s.task, "manifest_sha256": start.get("manifest_sha256"),
        "code_version": start.get("code_version"), "duration_s": record.duration_s,
        "transcript": session.transcript_problem or "read",
        "transcript_other_records": session.other_records,
    }
    started, ended = start.get("t"), (end or {}).get("t") or (session.events[-1].get("t") if session.events else None)
    return EvalSample(
        id=s.seed, epoch=epoch, input=first.text if first is not None else "", target="",
        messages=messages, events=events(session, prefix), scores=scores(session), metadata=metadata,
        output=ModelOutput(model=model, choices=[ChatCompletionChoice(message=last, stop_reason="stop")]) if last
        else ModelOutput(model=model),
        started_at=started, completed_at=ended, total_time=record.duration_s, working_time=record.duration_s,
        uuid=shortuuid.uuid(name=f"{SOURCE}:{key}:{session.name}"), error=error, limit=limit,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def eval_log(key: GroupKey, sessions: list[ExportSession], skipped: list[Skipped], root: Path) -> EvalLog:
    """One eval log: the sessions of one group as its samples."""
    first = sessions[0]
    simulated = any(s.score.simulated for s in sessions)
    model_id = _one_or_all([s.record.model_id for s in sessions])
    model = model_name(key, model_id if isinstance(model_id, str) else None)
    epochs: dict[int, int] = {}
    samples = []
    for session in sessions:
        epochs[session.score.seed] = epochs.get(session.score.seed, 0) + 1
        samples.append(sample(session, key, model, epochs[session.score.seed]))
    label = runtime_label(key.runtime)
    mark = "SIMULATED " if simulated else ""
    size = f"{key.accounts} accounts" + (", exploratory" if key.exploratory else "")
    starts = [s.start.get("t") for s in sessions]
    ends = [str(x.completed_at) for x in samples if x.completed_at]
    code = _one_or_all([s.start.get("code_version") for s in sessions])
    factors = first.start.get("factors") if isinstance(first.start.get("factors"), dict) else {}
    metadata = {
        "generated_by": SOURCE, "simulated": simulated, "exploratory": key.exploratory,
        "model": key.model, "model_id": model_id,
        "runtime": {"name": key.runtime, "label": label, "cli_version": _one_or_all([s.record.cli_version for s in sessions])},
        "condition": key.condition, "factors": factors, "task": key.task, "accounts": key.accounts,
        "manifest_sha256": _one_or_all([s.start.get("manifest_sha256") for s in sessions]),
        "code_version": code, "sessions_root": str(root.resolve()),
        "skipped_sessions": [{"session": k.name, "reason": k.reason} for k in skipped],
    }
    eval_id = shortuuid.uuid(name=f"{SOURCE}:{tuple(key)}")
    spec = EvalSpec(
        eval_id=eval_id, run_id=shortuuid.uuid(name=f"{SOURCE}:run:{root.resolve()}"), created=min(starts),
        task=f"{mark}{key.condition} - {key.task}", task_id=eval_id, task_version=0,
        task_display_name=f"{mark}{key.model} on {label}: {key.condition}, {key.task} ({size})",
        task_description=f"{'SIMULATED sessions (the model is the built-in simulator; its numbers are never results). ' if simulated else ''}"
                         f"Sessions of {key.model} on {label} under condition {key.condition}, task {key.task}, "
                         f"{size}; exported from {root} by {SOURCE}.",
        solver=key.runtime, solver_args={"condition": key.condition, **factors},
        tags=[t for t in ("SIMULATED" if simulated else "", "exploratory" if key.exploratory else "") if t] or None,
        dataset=EvalDataset(name=key.task, samples=len(samples), sample_ids=sorted({x.id for x in samples})),
        model=model, model_base_url=None if simulated else first.start.get("base_url"),
        config=EvalConfig(epochs=max(epochs.values())), headline_metric=HEADLINE,
        revision=EvalRevision(type="git", origin="", commit=code) if isinstance(code, str) else None,
        packages={"sop-fidelity-study": _version(), key.runtime: str(metadata["runtime"]["cli_version"])},
        metadata=metadata,
    )
    return EvalLog(
        status="success", eval=spec,
        plan=EvalPlan(name="plan", steps=[EvalPlanStep(solver=key.runtime, params={"condition": key.condition, **factors})]),
        results=results(samples), stats=EvalStats(started_at=min(starts), completed_at=max(ends) if ends else ""),
        samples=samples, tags=spec.tags or [], metadata=metadata,
    )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sop-fidelity-study")
    except PackageNotFoundError:
        return "unknown"


def log_name(log: EvalLog) -> str:
    """Inspect's file name pattern, ``<created>_<task>_<id>.eval``; the same group gets the same
    name on every export, so exporting again replaces the file."""
    created = _time(log.eval.created).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    return f"{created}_{_slug(log.eval.task + ' ' + log.eval.model)}_{log.eval.eval_id}.eval"


def _skipped_of(found: Collected, key: GroupKey) -> list[Skipped]:
    return [k for k in found.skipped if (k.model, k.condition, k.task) == (key.model, key.condition, key.task)]


def write_inspect_logs(root: Path, out: Path) -> Written:
    """Every session under ``root`` as eval logs in ``out`` (created if missing)."""
    found = collect(root)
    done = Written(skipped=list(found.skipped))
    if not found.groups:
        return done
    out.mkdir(parents=True, exist_ok=True)
    without: dict[str, list[str]] = {}
    for key, sessions in found.groups.items():
        log = eval_log(key, sessions, _skipped_of(found, key), Path(root))
        path = out / log_name(log)
        write_eval_log(log, str(path))
        done.logs.append(path)
        done.samples += len(sessions)
        for s in sessions:
            if s.transcript_problem:
                without.setdefault(s.transcript_problem, []).append(s.name)
    done.notes = [f"{len(names)} session{'s' if len(names) > 1 else ''} exported without messages ({problem}): "
                  + ", ".join(names[:3]) + (", ..." if len(names) > 3 else "") for problem, names in without.items()]
    return done
