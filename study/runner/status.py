"""Every session's status under a sessions folder (``study status --sessions DIR``), with its size on disk.

Sessions are found by the one rule of ``study.session_io.folders`` (earlier attempts kept in a
session's ``attempt-<k>/`` subfolders are counted, not listed). The status is meta.json's, except
that a session whose runner is gone while it was running is ``unfinished``
(``claim.session_status``: the lock of its claim, wherever its runner ran). Decisions and cost of a running session are read
from its log as it grows (the cost from its ``usage``/``call_end`` events).

The records are read in reporting mode: a session whose meta.json or events.jsonl is broken
(not UTF-8, not JSON, meta.json not an object, a field of the wrong type, a log that breaks a
rule of ``study.session_io.reader``) is listed with what is wrong, and every other session is
reported as usual. Nothing here raises on bad records.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

from study.protocol.cost_text import cost_text, simulated_note
from study.session_io.folders import find_sessions
from study.session_io.record import DEFAULT_TASK, read_record
from study.session_io.vocabulary import SessionStatus

from .claim import session_status
from .progress import LogProgress


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
    task: str = DEFAULT_TASK      # session_start's (absent: the preregistered task)

    def as_dict(self) -> dict:
        return asdict(self)


def human_size(size: int) -> str:
    """1234567 -> '1.2 MB' (decimal units, as ``du --si``)."""
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def status_row(root: Path, folder: Path) -> SessionRow:
    """One session's row, from its record (``study.session_io.record``); a running session's
    decisions and cost are read from its log as it grows."""
    record, session = read_record(folder, root)
    progress = LogProgress(folder)
    for event in session.log.events if session.log else ():
        progress.feed(event)
    meta = session.meta
    # a running session: the claim lock tells whether its runner is still there (claim.session_status)
    status = session_status(folder, meta) if meta is not None and meta.status is not None else record.status
    final = status.final
    return SessionRow(
        path=str(folder.relative_to(root)) if folder != root else ".",
        model=record.model or "?", condition=record.condition or "?", seed=record.seed,
        status=status,
        decisions=_either(record.decisions, progress.decisions) if final else progress.decisions,
        accounts=record.accounts if record.accounts is not None else progress.accounts,
        cost_usd=float(_either(record.cost_usd, progress.cost_usd)) if final else progress.cost_usd,
        duration_s=record.duration_s if final else None,
        voided=record.voided, simulated=record.simulated, exploratory=record.exploratory,
        attempts=record.attempts, size_bytes=record.size_bytes, model_id=record.model_id,
        api_retries=progress.api_retries, problems=[i.describe(folder) for i in record.issues], task=record.task,
    )


def _either(recorded, progressed):
    return progressed if recorded is None else recorded


def _unreadable(root: Path, folder: Path, exc: Exception) -> SessionRow:
    """The row of a session whose records could not be read at all (never a traceback)."""
    return SessionRow(path=str(folder.relative_to(root)) if folder != root else ".", model="?", condition="?",
                      seed=None, status=SessionStatus.UNFINISHED, decisions=0, accounts=None, cost_usd=0.0,
                      duration_s=None, voided=False, simulated=False, exploratory=False, attempts=0,
                      problems=[f"cannot be read: {type(exc).__name__}: {exc}"])


def scan(root: Path) -> list[SessionRow]:
    """Every session under ``root`` (a sessions folder or one session's folder); one broken
    session is listed with its problems and never stops the others."""
    root = Path(root)
    rows = []
    for folder in find_sessions(root):
        try:
            rows.append(status_row(root, folder))
        except Exception as exc:  # a defect this module did not foresee: report it, go on
            rows.append(_unreadable(root, folder, exc))
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
    column, and counted per task."""
    if not rows:
        return "no sessions found"
    tasks = task_order(r.task for r in rows)
    several = len(tasks) > 1
    if several:
        rows = sorted(rows, key=lambda r: tasks.index(r.task))   # stable: each task's in scan order
    header = ("session",) + (("task",) if several else ()) + ("status", "decided", "cost $", "time", "size", "notes")
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
        duration = "-" if r.duration_s is None else f"{r.duration_s / 60:.1f} min"
        lines.append((r.path,) + ((r.task,) if several else ()) + (r.status, decided, f"{r.cost_usd:.2f}", duration,
                                                                    human_size(r.size_bytes), ", ".join(notes)))
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
