"""The sessions as Inspect eval logs (inspect-ai's log format), written with inspect-ai's own log
API, so ``inspect view``, inspect-ai's dataframes (``evals_df``, ``samples_df``, ``messages_df``,
``events_df``) and transcript scanners read them.

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
What maps to what (README, "Using the sessions elsewhere"):

- one eval log per group of ``sessions.collect`` (model on runtime, condition, task, batch size);
  its model is named as the package's tables name it, the runtime included (``model_name``:
  ``sim/oracle on Codex CLI``), and tagged with the runtime; its task name starts ``SIMULATED``
  for simulated sessions, which also carry the tag and ``metadata.simulated``; its stats hold
  the sessions' token usage;
- one sample per session (this module): ``id`` its seed, ``epoch`` 1 (2, 3, ... for further
  sessions of the same seed in one group); ``input`` the first message; ``messages`` the
  conversation of its transcript (``inspect_messages``); ``events`` its ``events.jsonl``
  (``inspect_events``) with one model event per model response, its input, output, usage, cost
  and time (``inspect_model``), so ``model_usage`` is the session's usage; ``scores``
  ``analysis.scoring``'s (``inspect_scores``); a voided or unfinished session is an errored
  sample (``error``), left out of the eval's results as the tables leave it out. Message and
  event ids are unique across logs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import shortuuid
from inspect_ai.log import (EvalConfig, EvalDataset, EvalLog, EvalPlan, EvalPlanStep, EvalRevision, EvalSample,
                            EvalSampleLimit, EvalSpec, EvalStats, write_eval_log)
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, ChatMessageUser, ModelOutput

from study.families.units import of_start
from study.protocol.runtimes import RUNTIMES, model_on_runtime, runtime_label

from . import inspect_family
from .inspect_events import LIMIT_TYPES, error_of, limit_value, log_events, time_of, with_model_events
from .inspect_messages import conversation
from .inspect_model import model_events, usage_of
from .inspect_scores import HEADLINE, results, scores
from .sessions import Collected, ExportSession, GroupKey, Skipped, collect

#: The Inspect model provider of each model API (``study.protocol.runtimes``).
PROVIDERS = {"anthropic-messages": "anthropic", "openai-responses": "openai"}
SOURCE = "study export inspect"


@dataclass
class Written:
    """What an export wrote: one line per log, and the sessions skipped."""

    logs: list[Path] = field(default_factory=list)
    samples: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --- samples and logs -------------------------------------------------------------------------------

def model_name(key: GroupKey, model_id: str | None) -> str:
    """The eval's model as Inspect names models (``provider/model``: ``sim/<policy>`` for the
    simulator, else the runtime API's provider and the model id), on its runtime as the package's
    tables name it (``study.protocol.runtimes.model_on_runtime``): ``sim/oracle`` on Claude Code,
    ``sim/oracle on Codex CLI`` on Codex CLI. Inspect's log list and samples grid show the model,
    so each runtime's sessions are told apart there."""
    if key.model.startswith("sim:"):
        name = "sim/" + key.model.split(":", 1)[1]
    else:
        api = RUNTIMES[key.runtime].api if key.runtime in RUNTIMES else ""
        name = f"{PROVIDERS.get(api, key.runtime)}/{model_id or key.model}"
    return model_on_runtime(name, key.runtime)


def _one_or_all(values: list[Any]) -> Any:
    """The one value all sessions share, else every distinct value (sorted)."""
    distinct = sorted({orjson.dumps(v, option=orjson.OPT_SORT_KEYS) for v in values})
    found = [orjson.loads(v) for v in distinct]
    return found[0] if len(found) == 1 else found


def sample(session: ExportSession, key: GroupKey, model: str, epoch: int) -> EvalSample:
    s, start, end, record = session.score, session.start, session.end, session.record
    uuid = shortuuid.uuid(name=f"{SOURCE}:{key}:{session.name}")
    prefix = uuid   # message and event ids are unique across logs (Inspect's dataframes key rows on them)
    talk = conversation(session.turns or [], prefix, model)
    talk = inspect_family.family_conversation(session, talk)     # its family's messages, where it has its own
    messages = talk.messages
    prices = start.get("prices_per_mtok") if isinstance(start.get("prices_per_mtok"), dict) else None
    generations = model_events(session.responses or [], talk, session.turns or [], model, prices,
                               time_of(start.get("t")), prefix)
    usage = usage_of(generations)
    first = next((m for m in messages if isinstance(m, ChatMessageUser)), None)
    last = next((m for m in reversed(messages) if isinstance(m, ChatMessageAssistant) and m.text), None)
    error = None
    if record.voided:
        error = error_of(f"voided: {record.void_reason or 'no reason recorded'}")
    elif end is None:
        error = error_of("incomplete: no session_end (still running, or crashed)")
    limit = None
    status = str(end.get("status")) if end else ""
    if status.startswith("limit:"):
        name = status.split(":", 1)[1]
        limit = EvalSampleLimit(type=LIMIT_TYPES.get(name, "custom"), limit=limit_value(start, name) or 0.0,
                                reason=status)
    meta = session.meta
    metadata = {
        "seed": session.seed, "status": str(record.status), "voided": record.voided, "void_reason": record.void_reason,
        "exploratory": record.exploratory, "exploratory_why": record.exploratory_why, "simulated": session.simulated,
        "cost_usd": s.cost_usd if s is not None else record.cost_usd,
        "cost_complete": meta.get("cost_complete") if meta is not None else None,
        "resumes": s.resumes if s is not None else (meta.resumes if meta is not None else None),
        "decided": s.decided if s is not None else None, "accounts": len(session.order), "order": session.order,
        "session": session.name, "session_dir": str(session.path.resolve()), "session_id": start.get("session_id")
        or (meta.get("session_id") if meta is not None else None),
        "model": record.model, "model_id": record.model_id, "runtime": session.runtime,
        "runtime_label": runtime_label(session.runtime), "cli_version": record.cli_version,
        "condition": record.condition, "task": key.task, "manifest_sha256": start.get("manifest_sha256"),
        "code_version": start.get("code_version"), "duration_s": record.duration_s,
        "transcript": session.transcript_problem or "read",
        "transcript_other_records": session.other_records, "family": session.family,
    }
    events = with_model_events(log_events(session, prefix), generations)
    if s is None:                # another family's session: its family's verdict, its contexts as spans
        metadata.update(inspect_family.sample_metadata(session))
        events = inspect_family.with_context_spans(events, prefix) if inspect_family.in_contexts(session.family) else events
    started, ended = start.get("t"), (end or {}).get("t") or (session.events[-1].get("t") if session.events else None)
    return EvalSample(
        id=session.seed, epoch=epoch, input=first.text if first is not None else "", target="",
        messages=messages, events=events, scores=scores(session) if s is not None else inspect_family.scores(session),
        metadata=metadata,
        output=ModelOutput(model=model, choices=[ChatCompletionChoice(message=last, stop_reason="stop")], usage=usage)
        if last else ModelOutput(model=model, usage=usage),
        model_usage={model: usage} if usage is not None else {}, turn_count=len(generations) or None,
        started_at=started, completed_at=ended, total_time=record.duration_s, working_time=record.duration_s,
        uuid=uuid, error=error, limit=limit,
    )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def eval_log(key: GroupKey, sessions: list[ExportSession], skipped: list[Skipped], root: Path) -> EvalLog:
    """One eval log: the sessions of one group as its samples."""
    first = sessions[0]
    simulated = any(s.simulated for s in sessions)
    kind = inspect_family.protocol(first) if first.score is None else None
    model_id = _one_or_all([s.record.model_id for s in sessions])
    model = model_name(key, model_id if isinstance(model_id, str) else None)
    epochs: dict[int, int] = {}
    samples = []
    for session in sessions:
        epochs[session.seed] = epochs.get(session.seed, 0) + 1
        samples.append(sample(session, key, model, epochs[session.seed]))
    found = results(samples) if kind is None else inspect_family.results(samples, first.family, kind)
    label = runtime_label(key.runtime)
    mark = "SIMULATED " if simulated else ""
    size = (f"{key.accounts} accounts" if kind is None else of_start(first.start).size(key.accounts)) \
        + (", exploratory" if key.exploratory else "")
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
    if kind is not None:
        metadata.update(study=first.record.study, family=first.family, protocol=kind)
    eval_id = shortuuid.uuid(name=f"{SOURCE}:{tuple(key)}")
    spec = EvalSpec(
        eval_id=eval_id, run_id=shortuuid.uuid(name=f"{SOURCE}:run:{root.resolve()}"), created=min(starts),
        task=f"{mark}{key.condition} - {key.task}", task_id=eval_id, task_version=0,
        task_display_name=f"{mark}{key.model} on {label}: {key.condition}, {key.task} ({size})",
        task_description=f"{'SIMULATED sessions (the model is the built-in simulator; its numbers are never results). ' if simulated else ''}"
                         f"Sessions of {key.model} on {label} under condition {key.condition}, task {key.task}, "
                         f"{size}; exported from {root} by {SOURCE}.",
        solver=key.runtime, solver_args={"condition": key.condition, **factors},
        tags=[t for t in ("SIMULATED" if simulated else "", label, "exploratory" if key.exploratory else "") if t],
        dataset=EvalDataset(name=key.task, samples=len(samples), sample_ids=sorted({x.id for x in samples})),
        model=model, model_base_url=None if simulated else first.start.get("base_url"),
        config=EvalConfig(epochs=max(epochs.values())),
        headline_metric=HEADLINE if kind is None else found.headline,
        revision=EvalRevision(type="git", origin="", commit=code) if isinstance(code, str) else None,
        packages={"sop-fidelity-study": _version(), key.runtime: str(metadata["runtime"]["cli_version"])},
        metadata=metadata,
    )
    return EvalLog(
        status="success", eval=spec,
        plan=EvalPlan(name="plan", steps=[EvalPlanStep(solver=key.runtime, params={"condition": key.condition, **factors})]),
        results=found, stats=EvalStats(started_at=min(starts), completed_at=max(ends) if ends else "",
                                                  model_usage=_usage_of(samples, model)),
        samples=samples, tags=spec.tags or [], metadata=metadata,
    )


def _usage_of(samples: list[EvalSample], model: str) -> dict[str, Any]:
    """The eval's token usage (Inspect's log list shows it): the sum of its samples'."""
    found = [x.model_usage[model] for x in samples if model in x.model_usage]
    total = None
    for usage in found:
        total = usage if total is None else total + usage
    return {model: total} if total is not None else {}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sop-fidelity-study")
    except PackageNotFoundError:
        return "unknown"


def log_name(log: EvalLog) -> str:
    """Inspect's file name pattern, ``<created>_<task>_<id>.eval``; the same group gets the same
    name on every export, so exporting again replaces the file."""
    created = time_of(log.eval.created).strftime("%Y-%m-%dT%H-%M-%S+00-00")
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
