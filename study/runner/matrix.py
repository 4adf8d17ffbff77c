"""The model x condition x seed matrix in parallel worker processes (``study run-all``).

Every session is planned and checked (condition, model and key, limits, texts) before anything
starts. Sessions whose folder already holds a finished session are skipped, so rerunning the same
command after a crash of the runner continues where it stopped and loses nothing finished.
Voided sessions (``infrastructure_failure``) and sessions left unfinished by a killed runner are
skipped too, unless ``rerun_voided``: then their files move to ``attempt-<k>/`` and the session
runs again from scratch. Each session runs in its own worker process with its own HOME, tool
state, FSM frames and (for ``sim:`` models) its own simulator on its own port.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from study.paths import sessions_dir

from .meta import EVENTS_NAME, META_NAME, RUNNING, effective_status, is_rerunnable, read_meta, write_meta
from .progress import ProgressDisplay
from .session import SessionSpec, prepare, run_session
from .voiding import archive_attempt


@dataclass
class Planned:
    spec: SessionSpec
    session_dir: Path
    existing: str | None      # the status of what the folder already holds, or None
    action: str               # "run", "rerun" or "skip"


@dataclass
class MatrixResult:
    ran: list[tuple[Path, str]] = field(default_factory=list)        # (folder, status)
    skipped: list[tuple[Path, str]] = field(default_factory=list)    # (folder, why)
    errors: list[tuple[Path, str]] = field(default_factory=list)     # (folder, worker error)

    def statuses(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, status in self.ran:
            counts[status] = counts.get(status, 0) + 1
        return counts


def plan_matrix(specs: list[SessionSpec], *, rerun_voided: bool = False) -> list[Planned]:
    """Decide for each spec whether to run it; raises on the first spec that cannot run."""
    planned = []
    for spec in specs:
        session_dir = prepare(spec).session_dir
        started = (session_dir / EVENTS_NAME).exists() or (session_dir / META_NAME).exists()
        if not started:
            planned.append(Planned(spec, session_dir, None, "run"))
            continue
        status = effective_status(read_meta(session_dir))
        if is_rerunnable(status):
            planned.append(Planned(spec, session_dir, status, "rerun" if rerun_voided else "skip"))
        else:
            planned.append(Planned(spec, session_dir, status, "skip"))
    return planned


def _mark_unfinished(session_dir: Path) -> None:
    """Before an unfinished attempt is moved aside, record in its meta.json why it never ended."""
    meta = read_meta(session_dir) or {}
    meta.update(status="unfinished", voided=True,
                void_reason="the runner stopped before the session ended (no session_end); rerun from scratch")
    write_meta(session_dir, meta)


def _run_one(spec: SessionSpec, rerun: bool) -> tuple[str, str]:
    """Worker: run one session (after moving a voided or unfinished attempt aside)."""
    session_dir = prepare(spec).session_dir
    if rerun:
        if effective_status(read_meta(session_dir)) == "unfinished":
            _mark_unfinished(session_dir)
        archive_attempt(session_dir)
    folder = run_session(spec)
    return str(folder), (read_meta(folder) or {}).get("status", "unfinished")


def run_matrix(specs: list[SessionSpec], *, jobs: int = 1, rerun_voided: bool = False, root: Path | None = None,
               stream: TextIO | None = None, refresh_s: float = 1.0) -> MatrixResult:
    """Run the planned sessions in ``jobs`` worker processes with a live progress display."""
    planned = plan_matrix(specs, rerun_voided=rerun_voided)
    result = MatrixResult()
    why = {None: "", RUNNING: "running in another runner", "infrastructure_failure": "voided; rerun with --rerun-voided",
           "unfinished": "unfinished; rerun with --rerun-voided"}
    for p in planned:
        if p.action == "skip":
            result.skipped.append((p.session_dir, f"{p.existing}" + (f" ({why[p.existing]})" if why.get(p.existing) else "")))
    todo = [p for p in planned if p.action != "skip"]
    if not todo:
        return result
    root = Path(root) if root is not None else Path(todo[0].spec.out_root or sessions_dir())
    display = ProgressDisplay([p.session_dir for p in todo], root, stream=stream)
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=context) as pool:
        futures: dict[Future, Planned] = {pool.submit(_run_one, p.spec, p.action == "rerun"): p for p in todo}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=refresh_s, return_when=FIRST_COMPLETED)
            for future in done:
                p = futures[future]
                try:
                    _folder, status = future.result()
                    result.ran.append((p.session_dir, status))
                except Exception as exc:  # the worker itself died or refused: nothing finished is lost
                    status = "unfinished"
                    result.errors.append((p.session_dir, f"{type(exc).__name__}: {exc}"))
                display.finished(p.session_dir, status)
            display.refresh(force=bool(done))
    return result


def format_summary(result: MatrixResult) -> str:
    """The end-of-run summary: counts per status, cost, voided and failed sessions, skips."""
    lines = []
    cost = sum(float((read_meta(d) or {}).get("cost_usd", 0.0)) for d, _ in result.ran)
    counts = ", ".join(f"{n} {s}" for s, n in sorted(result.statuses().items())) or "none"
    lines.append(f"ran {len(result.ran)} session(s): {counts}; cost ${cost:.2f}")
    voided = [d for d, s in result.ran if s == "infrastructure_failure"]
    if voided:
        lines.append(f"{len(voided)} voided (kept; rerun with --rerun-voided):")
        lines += [f"  {d}" for d in voided]
    if result.errors:
        lines.append(f"{len(result.errors)} worker error(s) (the sessions show as unfinished):")
        lines += [f"  {d}: {e}" for d, e in result.errors]
    if result.skipped:
        lines.append(f"skipped {len(result.skipped)} session(s) already present:")
        lines += [f"  {d}: {w}" for d, w in result.skipped]
    return "\n".join(lines)
