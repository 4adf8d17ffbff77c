"""Every session's status under a sessions folder (``study status --sessions DIR``), with its size on disk.

Sessions are found by the one rule of ``study.session_io.folders`` (earlier attempts kept in a
session's ``attempt-<k>/`` subfolders are counted, not listed). The status is meta.json's, except
that a session whose runner is gone while it was running is ``unfinished``
(``claim.session_status``: the lock of its claim, wherever its runner ran).

A session that a runner is running is shown from meta.json, its log's ``session_start`` and its
progress (``LogProgress``: decisions and cost as they are streamed, the API errors retried); with
the status cache (``status_cache``, what the command passes) only the lines added to its log since
the last status are read. Its records are checked once it has ended: while it runs, only
meta.json's problems are listed. Every other session (ended, or its runner gone) is shown from its
record (``study.session_io.record``: its log and meta.json read and checked together), and with
the status cache that record's facts are read again only when its events.jsonl or meta.json has
changed, so a rerun over finished sessions reads no log and scales with the number of sessions.

The records are read in reporting mode: a session whose meta.json or events.jsonl is broken
(not UTF-8, not JSON, meta.json not an object, a field of the wrong type, a log that breaks a
rule of ``study.session_io.reader``) is listed with what is wrong, and every other session is
reported as usual. Nothing here raises on bad records.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import msgspec

from sopbench_tools.tool_definitions import DECISION_TOOL
from study.protocol.cost_text import cost_text, simulated_note
from study.session_io.folders import EVENTS_NAME, attempts, find_sessions, record_states
from study.session_io.meta import SessionMeta, read_meta
from study.session_io.issues import LogError
from study.session_io.reader import LogRead, SessionRead
from study.session_io.record import DEFAULT_TASK, MAIN_STUDY, SessionRecord, folder_size, read_record
from study.session_io.typed_events import UNSET
from study.session_io.vocabulary import EventKind, SessionStatus

from study.families.registry import DEFAULT_FAMILY
from study.families.units import GENERIC, Units

from .claim import session_status
from .progress import LogProgress, family_progress
from .status_cache import now_ns

if TYPE_CHECKING:
    from .status_cache import StatusCache


@dataclass
class SessionRow:
    path: str            # relative to the scanned folder
    model: str
    condition: str
    seed: int | None
    status: str
    decisions: int
    accounts: int | None
    cost_usd: float
    duration_s: float | None
    voided: bool
    simulated: bool
    exploratory: bool
    attempts: int        # earlier attempts kept in attempt-<k>/
    size_bytes: int = 0  # on disk: every regular file of the folder, attempts included, links not followed
    model_id: str | None = None   # the API model id (a simulated session is priced as this model)
    api_retries: int = 0          # transient API errors the CLI retried (api_retry events; void nothing)
    problems: list[str] = field(default_factory=list)   # what is wrong with its records (never analysed)
    task: str = DEFAULT_TASK      # session_start's (absent: the preregistered task); another study's: the study
    study: str | None = None      # another study than the main one (preregistration/studies/<study>/)
    family: str = DEFAULT_FAMILY  # its task family (study.families.registry)
    outcome: str | None = None    # another family's: its verdict, or where it is (``family_progress``)
    contexts: int | None = None   # a run of fresh contexts: how many began
    #: another family's: what its units are called (one, many, the word of a done one; None: it
    #: decides none), ``study.families.units``; absent from the JSON of a main-study row
    units: list[str | None] | None = None

    def as_dict(self) -> dict:
        found = asdict(self)
        if self.units is None:
            del found["units"]
        return found


def human_size(size: int) -> str:
    """1234567 -> '1.2 MB' (decimal units, as ``du --si``)."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


class LogFacts(NamedTuple):
    """What a row takes from a session's records (``SessionRecord``) and from its log's progress:
    all of it but the status of a running one, the earlier attempts and the size on disk, which
    are read every time (kept by ``status_cache`` for sessions no runner is running)."""

    model: str | None
    condition: str | None
    seed: int | None
    status: SessionStatus          # the record's (meta.json's, else the log's session_end)
    meta_running: bool             # meta.json says running: the claim decides (``claim.session_status``)
    accounts: int | None
    decisions: int | None          # meta.json's
    cost_usd: float | None         # session_end's, else meta.json's
    duration_s: float | None
    voided: bool
    simulated: bool
    exploratory: bool
    model_id: str | None
    problems: tuple[str, ...]
    task: str
    progress_decisions: int
    progress_accounts: int | None
    progress_cost_usd: float
    api_retries: int
    study: str | None = None
    family: str = DEFAULT_FAMILY
    outcome: str | None = None
    contexts: int | None = None
    units: tuple[str, str, str | None] | None = None


def _facts(record: SessionRecord, meta: SessionMeta | None, progress: LogProgress, folder: Path) -> LogFacts:
    return LogFacts(
        model=record.model, condition=record.condition, seed=record.seed, status=record.status,
        meta_running=meta is not None and meta.status == SessionStatus.RUNNING, accounts=record.accounts,
        decisions=record.decisions, cost_usd=record.cost_usd, duration_s=record.duration_s, voided=record.voided,
        simulated=record.simulated, exploratory=record.exploratory, model_id=record.model_id,
        problems=tuple(i.describe(folder) for i in record.issues), task=record.task,
        progress_decisions=progress.decisions, progress_accounts=progress.accounts,
        progress_cost_usd=progress.cost_usd, api_retries=progress.api_retries,
        **_family_facts(record, progress))


def _family_facts(record: SessionRecord, progress: LogProgress) -> dict:
    """Another study's session: its study, family, contexts and where it is or what it came to."""
    if record.study == MAIN_STUDY and record.family == DEFAULT_FAMILY:
        return {}
    # a session whose records break a rule (its outcome not what its evidence re-derives among them)
    # never shows that outcome as its verdict
    outcome = "invalid records" if record.issues else family_progress(record.family, progress)
    return {"study": record.study, "family": record.family, "outcome": outcome, "contexts": progress.contexts or None,
            "units": progress.units.words()}


def status_row(root: Path, folder: Path, cache: "StatusCache | None" = None) -> SessionRow:
    """One session's row (module docstring): a running session's from meta.json and its log's
    progress; any other from its record, or from ``cache`` while its files are unchanged."""
    facts = cache.get(folder) if cache is not None else None
    if facts is not None and not facts.meta_running:
        return _row(root, folder, facts.status, facts)
    meta = read_meta(folder)
    # a running session: the claim lock tells whether its runner is still there (claim.session_status)
    status = session_status(folder, meta) if meta is not None and meta.status is not None else None
    if status == SessionStatus.RUNNING:
        return _running_row(root, folder, meta, cache)
    if facts is None:
        facts = _read_facts(root, folder, cache)
    return _row(root, folder, status if status is not None else facts.status, facts)


def _read_facts(root: Path, folder: Path, cache: "StatusCache | None") -> LogFacts:
    """The facts of a session no runner is running, from its record (its log and meta.json read
    and checked together); kept in ``cache`` when its files were settled and did not change."""
    before, read_at = record_states(folder), now_ns()
    record, session = read_record(folder, root)
    facts = _facts(record, session.meta, log_progress(folder, session.log), folder)
    if cache is not None:
        cache.put(folder, before, read_at, facts)
    return facts


#: The kinds whose events move a row's counters (``LogFacts``: decisions, cost, accounts, API
#: errors retried), besides the session_start and session_end.
_COUNTED = frozenset({EventKind.CALL_END, EventKind.USAGE, EventKind.API_RETRY})


def log_progress(folder: Path, log: LogRead | None) -> LogProgress:
    """The progress of a log read whole, for a row's counters (``LogFacts``). A log that breaks no
    rule feeds, as dicts of their fields and in file order, only the events that move those
    counters (its session_start and session_end as the file spells them, the decisions, the
    streamed costs and the API errors retried) from the structs the reader decoded, instead of
    every event parsed again as a dict (most of a status over finished sessions' logs); a log that
    breaks one feeds every event it could read."""
    progress = LogProgress(folder)
    if log is None:
        return progress
    try:
        # another family's log (small: one conversation, a run's contexts) is fed whole: its
        # outcome's fields are the family's, which the typed structs do not keep
        typed = log.typed if log.valid and log.start.get("family") in (None, DEFAULT_FAMILY) else None
    except LogError:            # an event of no kind of the contract (a log built in code)
        typed = None
    if typed is None:
        for event in log.events:
            progress.feed(event)
        return progress
    for event in typed:
        kind = event.kind
        if kind == EventKind.SESSION_START:
            progress.feed(log.start)
        elif kind == EventKind.SESSION_END:
            progress.feed(log.end)
        elif kind in _COUNTED or (kind == EventKind.TOOL_CALL and event.tool == DECISION_TOOL):
            progress.feed({"kind": kind, **{k: v for k, v in msgspec.structs.asdict(event).items() if v is not UNSET}})
    return progress


def _running_row(root: Path, folder: Path, meta: SessionMeta, cache: "StatusCache | None") -> SessionRow:
    """A running session's row: its record made of meta.json and its log's session_start, and its
    progress read on from where the last status stopped (``cache``), else from the start."""
    progress = (cache.progress_of(folder) if cache is not None else None) or LogProgress(folder)
    progress.update()
    if cache is not None:
        cache.keep_progress(folder, progress)
    log = LogRead(folder / EVENTS_NAME, [], [], start=progress.start) if progress.start is not None else None
    record = SessionRecord.of(SessionRead(folder, meta, log, list(meta.problems)), root)
    return _row(root, folder, SessionStatus.RUNNING, _facts(record, meta, progress, folder))


def _row(root: Path, folder: Path, status: SessionStatus, f: LogFacts) -> SessionRow:
    final = status.final
    return SessionRow(
        path=str(folder.relative_to(root)) if folder != root else ".",
        model=f.model or "?", condition=f.condition or "?", seed=f.seed,
        status=status,
        decisions=_either(f.decisions, f.progress_decisions) if final else f.progress_decisions,
        accounts=f.accounts if f.accounts is not None else f.progress_accounts,
        cost_usd=float(_either(f.cost_usd, f.progress_cost_usd)) if final else f.progress_cost_usd,
        duration_s=f.duration_s if final else None,
        voided=f.voided, simulated=f.simulated, exploratory=f.exploratory,
        attempts=len(attempts(folder)), size_bytes=folder_size(folder), model_id=f.model_id,
        api_retries=f.api_retries, problems=list(f.problems), task=f.study or f.task,
        study=f.study, family=f.family, outcome=f.outcome, contexts=f.contexts,
        units=list(f.units) if f.units is not None else None,
    )


def _either(recorded, progressed):
    return progressed if recorded is None else recorded


def _unreadable(root: Path, folder: Path, exc: Exception) -> SessionRow:
    """The row of a session whose records could not be read at all (never a traceback)."""
    return SessionRow(path=str(folder.relative_to(root)) if folder != root else ".", model="?", condition="?",
                      seed=None, status=SessionStatus.UNFINISHED, decisions=0, accounts=None, cost_usd=0.0,
                      duration_s=None, voided=False, simulated=False, exploratory=False, attempts=0,
                      problems=[f"cannot be read: {type(exc).__name__}: {exc}"])


def scan(root: Path, cache: "StatusCache | bool" = False) -> list[SessionRow]:
    """Every session under ``root`` (a sessions folder or one session's folder); one broken
    session is listed with its problems and never stops the others. ``cache``: keep what was
    read for the next scan (``status_cache``; True: in the project's cache folder)."""
    root = Path(root)
    if cache is True:
        from .status_cache import StatusCache

        cache = StatusCache(root.resolve())
    kept = cache or None
    rows = []
    for folder in find_sessions(root):
        try:
            rows.append(status_row(root, folder, kept))
        except Exception as exc:  # a defect this module did not foresee: report it, go on
            rows.append(_unreadable(root, folder, exc))
    if kept is not None:
        kept.save()
    return rows


def task_order(tasks) -> list[str]:
    """The tasks of some sessions, each once: the preregistered task first, then by name."""
    return sorted(set(tasks), key=lambda t: (t != DEFAULT_TASK, t))


def task_counts(tasks: list[str]) -> str:
    """'by task: referral_abuse_detection_v2 3, dangerous_goods 2' (empty for a single task
    that is the preregistered one; 'task: T' for a single other task)."""
    order = task_order(tasks)
    if len(order) == 1:
        return "" if order[0] == DEFAULT_TASK else f"task: {order[0]}"
    return "by task: " + ", ".join(f"{t} {tasks.count(t)}" for t in order)


def format_table(rows: list[SessionRow]) -> str:
    """A plain-text table, one session a line, then the count per status, the size on disk and
    the cost (a simulated session's cost is marked as priced as the model the simulator stands in for).
    Sessions of more than one task are grouped by task (the preregistered one first) in a task
    column, and counted per task; another study's sessions by study. A session of another task
    family than SOP-Bench's says, in an outcome column, its family's verdict (a reward, rows
    valid, periods correct: ``family_progress``) or where it is, and in the decided column its
    units done in its family's words (``2/6 periods done``, ``8/10 contexts used``:
    ``study.families.units``), or nothing for a family whose session decides none (one
    conversation, one task: its verdict says how it went); a table of such sessions only
    heads that column ``done``."""
    if not rows:
        return "no sessions found"
    tasks = task_order(r.task for r in rows)
    several = len(tasks) > 1
    if several:
        rows = sorted(rows, key=lambda r: tasks.index(r.task))   # stable: each task's in scan order
    families = any(r.family != DEFAULT_FAMILY for r in rows)
    done = "decided" if any(r.family == DEFAULT_FAMILY for r in rows) else "done"
    header = ("session",) + (("task",) if several else ()) + ("status", done) + (("outcome",) if families else ()) \
        + ("cost $", "time", "size", "notes")
    lines = []
    for r in rows:
        notes = []
        if r.problems:
            more = f" (+{len(r.problems) - 1} more)" if len(r.problems) > 1 else ""
            notes.append(f"BROKEN RECORDS, never analysed: {r.problems[0]}{more}")
        if r.voided:
            notes.append("VOIDED")
        if r.status == SessionStatus.UNFINISHED and not r.problems:
            notes.append("runner gone: rerun with study run-all --rerun-voided")
        if r.simulated:
            notes.append(simulated_note(r.model_id))
        if r.exploratory:
            notes.append("exploratory")
        if r.attempts:
            notes.append(f"{r.attempts} earlier attempt(s) kept")
        if r.api_retries:
            notes.append(f"{r.api_retries} API error(s) retried by the CLI")
        decided = f"{r.decisions}/{r.accounts}" if r.accounts is not None else str(r.decisions)
        if r.family != DEFAULT_FAMILY:     # its units done in its words; none decided: the verdict says how it went
            decided = (Units(*r.units) if r.units else GENERIC).count(r.decisions, r.accounts) or "-"
        duration = "-" if r.duration_s is None else f"{r.duration_s / 60:.1f} min"
        outcome = ((r.outcome or "-") if r.family != DEFAULT_FAMILY else "-",) if families else ()
        lines.append((r.path,) + ((r.task,) if several else ()) + (r.status, decided) + outcome
                     + (f"{r.cost_usd:.2f}", duration, human_size(r.size_bytes), ", ".join(notes)))
    widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header, *lines]]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    out.append("")
    out.append(f"{len(rows)} session(s): " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    by_task = task_counts([r.task for r in rows])
    if by_task:
        out.append(by_task)
    out.append(f"on disk: {human_size(sum(r.size_bytes for r in rows))}; " + _cost_line(rows))
    broken = sum(1 for r in rows if r.problems)
    if broken:
        out.append(f"{broken} session(s) with broken records (listed above): they are never analysed; "
                   "`study score <folder>` names the first broken rule")
    return "\n".join(out)


def _cost_line(rows: list[SessionRow]) -> str:
    real = [r for r in rows if not r.simulated]
    simulated = [r for r in rows if r.simulated]
    parts = []
    if real:
        parts.append(f"cost {cost_text(sum(r.cost_usd for r in real), simulated=False)}")
    if simulated:
        ids = sorted({r.model_id or "" for r in simulated})
        parts.append(f"cost of simulated sessions {cost_text(sum(r.cost_usd for r in simulated), simulated=True, model_id=', '.join(ids))}")
    return "; ".join(parts)


def format_not_started(missing: dict[str, str], *, most: int = 20) -> str:
    """The planned sessions (``matrix_plan.not_started``) that no runner has started yet."""
    if not missing:
        return ""
    plans = sorted(set(missing.values()))
    lines = [f"{len(missing)} session(s) planned by run-all ({', '.join(plans)}) not started yet:"]
    lines += [f"  {rel}" for rel in sorted(missing)[:most]]
    if len(missing) > most:
        lines.append(f"  ... and {len(missing) - most} more")
    return "\n".join(lines)
