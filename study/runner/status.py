"""Every session's status under a sessions folder (``study status [DIR]``).

A session is a folder holding ``events.jsonl`` or ``meta.json``; earlier attempts kept in its
``attempt-<k>/`` subfolders are counted, not listed. The status is meta.json's, except that a
session whose runner is gone while it was running is ``unfinished`` (see ``meta.py``). Decisions
and cost of a running session are read from its log as it grows.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from .meta import EVENTS_NAME, META_NAME, RUNNING, effective_status, read_meta


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

    def as_dict(self) -> dict:
        return asdict(self)


class LogProgress:
    """Decisions and cost so far of one session, read from its events.jsonl incrementally."""

    def __init__(self, session_dir: Path):
        self.path = Path(session_dir) / EVENTS_NAME
        self._offset = 0
        self.decided: set[str] = set()
        self.cost_usd = 0.0
        self.accounts: int | None = None
        self.ended: str | None = None

    def update(self) -> "LogProgress":
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return self
        complete = chunk[: chunk.rfind(b"\n") + 1]  # leave a line being written for next time
        self._offset += len(complete)
        for line in complete.splitlines():
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            kind = event.get("kind")
            if kind == "session_start":
                self.accounts = len(event.get("order", []))
            elif kind == "tool_call" and event.get("tool") == "submit_decision" and event.get("ok"):
                self.decided.add(event.get("account"))
            elif kind == "call_end":
                self.cost_usd = float(event.get("session_cost_usd", self.cost_usd))
            elif kind == "session_end":
                self.ended = event.get("status")
                self.cost_usd = float(event.get("cost_usd", self.cost_usd))
        return self

    @property
    def decisions(self) -> int:
        return len(self.decided)


def find_sessions(root: Path) -> list[Path]:
    """Session folders under ``root`` (not the attempt-<k> copies inside them), sorted."""
    root = Path(root)
    found = set()
    for name in (EVENTS_NAME, META_NAME):
        for path in root.rglob(name):
            folder = path.parent
            if not any(part.startswith("attempt-") for part in folder.relative_to(root).parts):
                found.add(folder)
    return sorted(found)


def session_row(root: Path, folder: Path) -> SessionRow:
    meta = read_meta(folder)
    status = effective_status(meta)
    meta = meta or {}
    progress = LogProgress(folder).update()
    final = status not in (RUNNING, "unfinished")
    return SessionRow(
        path=str(folder.relative_to(root)) if folder != root else ".",
        model=meta.get("model", "?"), condition=meta.get("condition", "?"), seed=meta.get("seed"),
        status=status,
        decisions=meta.get("decisions", progress.decisions) if final else progress.decisions,
        accounts=meta.get("accounts", progress.accounts),
        cost_usd=float(meta.get("cost_usd", 0.0)) if final else progress.cost_usd,
        duration_s=meta.get("duration_s") if final else None,
        voided=bool(meta.get("voided", False)), simulated=bool(meta.get("simulated", False)),
        exploratory=bool(meta.get("exploratory", False)),
        attempts=len([p for p in folder.glob("attempt-*") if p.is_dir()]),
    )


def scan(root: Path) -> list[SessionRow]:
    """Every session under ``root`` (a sessions folder or one session's folder)."""
    root = Path(root)
    return [session_row(root, folder) for folder in find_sessions(root)]


def format_table(rows: list[SessionRow]) -> str:
    """A plain-text table, one session a line, then the count per status."""
    if not rows:
        return "no sessions found"
    header = ("session", "status", "decided", "cost $", "time", "notes")
    lines = []
    for r in rows:
        notes = []
        if r.voided:
            notes.append("VOIDED")
        if r.status == "unfinished":
            notes.append("runner gone: rerun with study run-all --rerun-voided")
        if r.simulated:
            notes.append("simulated")
        if r.exploratory:
            notes.append("exploratory")
        if r.attempts:
            notes.append(f"{r.attempts} earlier attempt(s) kept")
        decided = f"{r.decisions}/{r.accounts}" if r.accounts is not None else str(r.decisions)
        duration = "-" if r.duration_s is None else f"{r.duration_s / 60:.1f} min"
        lines.append((r.path, r.status, decided, f"{r.cost_usd:.2f}", duration, ", ".join(notes)))
    widths = [max(len(str(x[i])) for x in [header, *lines]) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in [header, *lines]]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.status] = counts.get(r.status, 0) + 1
    out.append("")
    out.append(f"{len(rows)} session(s): " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return "\n".join(out)
