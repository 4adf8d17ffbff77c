"""The end-of-run summary of ``study run-all``: what ran, what it cost, and which sessions need a
look: ended with accounts left, hit a limit, voided, or lost to a worker error; each named with
the command that shows it (``study score <folder>``). Skipped sessions are listed with why. Another
family's sessions say their units in its words (``study.families.units``: ``ended with periods
left``, ``2/6 periods done``; a session that decides nothing, its unit: ``1 conversation``)."""

from __future__ import annotations

import shlex
from pathlib import Path

from study.families.units import of_start
from study.protocol.cost_text import cost_text
from study.session_io.record import read_record
from study.session_io.vocabulary import SessionStatus, status_voids

from .status import task_counts


def _inspect(folder: Path) -> str:
    return f"study score {shlex.quote(str(folder))}"


def _label(folder: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return str(Path(folder).relative_to(root))
        except ValueError:
            pass
    return str(folder)


_LEFT, _LIMIT, _VOIDED, _UNKNOWN = ("ended with accounts left", "hit a limit",
                                    "voided (kept, never analysed; rerun with --rerun-voided)",
                                    "with a status this version does not know")
_HEADINGS = (_LEFT, _LIMIT, _VOIDED, _UNKNOWN)


def _why(status: str) -> str | None:
    """The heading a session with this status is listed under, or None when it needs no look."""
    if status_voids(status):
        return _VOIDED
    try:
        parsed = SessionStatus(status)
    except ValueError:
        return _UNKNOWN
    if parsed == SessionStatus.ENDED_WITH_ACCOUNTS_LEFT:
        return _LEFT
    if parsed.limit is not None:
        return _LIMIT
    return None


def _known(value: int | None) -> str:
    return "?" if value is None else str(value)


def format_summary(result, root: Path | None = None) -> str:
    """The summary of a ``matrix.MatrixResult`` (paths shown relative to ``root``)."""
    lines = []
    read = {d: read_record(d) for d, _ in result.ran}
    records = {d: record for d, (record, _) in read.items()}
    units = {d: of_start(session.log.start if session.log is not None and session.log.start else {"family": record.family})
             for d, (record, session) in read.items()}
    costs = [(float(r.cost_usd or 0.0), r.simulated, r.model_id) for r in records.values() if r.has_meta]
    counts = ", ".join(f"{n} {s}" for s, n in sorted(result.statuses().items())) or "none"
    real = sum(c for c, sim, _ in costs if not sim)
    simulated = [(c, mid) for c, sim, mid in costs if sim]
    spent = []
    if real or not simulated:
        spent.append(f"cost {cost_text(real, simulated=False)}")
    if simulated:
        ids = ", ".join(sorted({mid or "" for _, mid in simulated}))
        spent.append(f"cost {cost_text(sum(c for c, _ in simulated), simulated=True, model_id=ids)}")
    lines.append(f"ran {len(result.ran)} session(s): {counts}; " + "; ".join(spent))
    by_task = task_counts([r.task for r in records.values() if r.has_meta or r.has_start])
    if by_task:
        lines.append(by_task)
    groups: dict[str, list[str]] = {why: [] for why in _HEADINGS}    # in this order, each sorted by folder
    for folder, status in sorted(result.ran, key=lambda ran: str(ran[0])):
        why = _why(status)
        if why is None:
            continue
        record, words = records[folder], units[folder]
        decided = ("no meta.json" if not record.has_meta else f"{_known(record.decisions)}/{_known(record.accounts)} decided"
                   if words.main else words.count(record.decisions, record.accounts) or words.size(record.accounts))
        reason = record.void_reason.splitlines()[0] if record.void_reason else ""
        detail = f"{status}, {decided}" + (f", {reason}" if reason else "")
        groups.setdefault(why, []).append(f"  {_label(folder, root)}  ({detail})\n      inspect: {_inspect(folder)}")
    left = {w.many for w in units.values() if not w.main}    # another family's: its units left
    for why, entries in groups.items():
        if not entries:
            continue
        if why == _LEFT and len(left) == 1 and not any(w.main for w in units.values()):
            why = f"ended with {left.pop()} left"
        lines.append(f"{len(entries)} {why}:")
        lines += entries
    if result.errors:
        lines.append(f"{len(result.errors)} worker error(s) (the sessions show as unfinished; rerun with --rerun-voided):")
        lines += [f"  {_label(d, root)}: {e}\n      inspect: {_inspect(d)}" for d, e in result.errors]
    if result.skipped:
        lines.append(f"skipped {len(result.skipped)} session(s) this run did not start (the reason follows each):")
        lines += [f"  {_label(d, root)}: {w}" for d, w in result.skipped]
    return "\n".join(lines)
