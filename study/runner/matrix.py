"""The model x condition x seed matrix in parallel worker processes (``study run-all``).

Every session is planned and checked (condition, model and key, limits, texts) before anything
starts. Sessions whose folder already holds a finished session are skipped, so rerunning the same
command after a crash of the runner continues where it stopped and loses nothing finished.
Voided sessions (``infrastructure_failure``, ``interrupted``) and sessions left unfinished by a
killed runner are skipped too, unless ``rerun_voided``: then their files move to ``attempt-<k>/``
and the session runs again from scratch. Each session runs in its own worker process with its own
HOME, tool state, FSM frames and (for ``sim:`` models) its own simulator on its own port.

A session is planned once however often the specs name it (``--seeds 2,2`` runs seed 2 once),
and a worker claims the session folder (``claim.py``) before it looks at it, moves a voided
attempt aside or runs it, so no two workers or runners ever share a session. SIGINT, SIGTERM,
SIGHUP or SIGQUIT to ``run-all`` starts nothing more and passes it on to the workers (as SIGINT,
which idle workers ignore), whose running sessions end as ``interrupted`` (voided, recording the
signal run-all received;
``--rerun-voided`` reruns them); then ``MatrixInterrupted`` is raised. The workers die with
run-all (the parent-death signal, ``_init_worker``): a SIGKILLed run-all leaves no session
running, each ends as ``interrupted`` saying its run-all died.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from sopbench_tools.orders import order_for_seed
from study.paths import sessions_dir

from study.session_io.folders import holds_session
from study.session_io.meta import SessionMeta, effective_status, is_rerunnable, read_meta, write_meta
from study.session_io.vocabulary import SessionStatus, VoidReason

from .claim import SessionClaimed, SessionExists, claim_session, session_status
from .interrupt import SIGNALS, Interruption
from study.runtimes.launcher import arm_parent_death_signal
from .display import MatrixDisplay
from .session import SessionSpec, prepare, run_claimed
from .voiding import archive_attempt


class MatrixInterrupted(KeyboardInterrupt):
    """run-all was stopped by a signal; ``result`` holds what ran (interrupted sessions included)."""

    def __init__(self, result: "MatrixResult", signal_name: str):
        super().__init__(f"interrupted by {signal_name}")
        self.result = result


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
    """Decide for each spec whether to run it; raises on the first spec that cannot run. Specs
    naming a session already planned are dropped (one worker per session)."""
    planned = []
    seen: set[Path] = set()
    for spec in specs:
        session_dir = prepare(spec).session_dir
        if session_dir in seen:
            continue
        seen.add(session_dir)
        if not holds_session(session_dir):
            planned.append(Planned(spec, session_dir, None, "run"))
            continue
        status = session_status(session_dir, read_meta(session_dir))
        if is_rerunnable(status):
            planned.append(Planned(spec, session_dir, status, "rerun" if rerun_voided else "skip"))
        else:
            planned.append(Planned(spec, session_dir, status, "skip"))
    return planned


def _mark_unfinished(session_dir: Path) -> None:
    """Before an unfinished attempt is moved aside, record in its meta.json why it never ended."""
    meta = read_meta(session_dir) or SessionMeta()
    meta.status, meta.voided, meta.void_kind = SessionStatus.UNFINISHED, True, VoidReason.UNFINISHED
    meta.void_reason = "the runner stopped before the session ended (no session_end); rerun from scratch"
    write_meta(session_dir, meta)


_STOP: Any = None            # in a worker: the number of the signal that stopped run-all (0: none yet)
_PARENT: int | None = None   # in a worker: the pid of its run-all


def _idle_signal(signum: int, frame: Any) -> None:
    """A signal to an idle worker (no session running). SIGTERM ends it (as by default: the
    pool's own shutdown of a broken pool sends it); Ctrl-C, a hang-up or Ctrl-\\ are run-all's
    to handle, so they are ignored, unless run-all is gone: then the worker exits."""
    if signum == signal.SIGTERM or (_PARENT is not None and os.getppid() != _PARENT):
        os._exit(128 + signum)


def _relayed() -> str | None:
    """The signal run-all received, once it has passed it on to the workers (as SIGINT)."""
    number = _STOP.value if _STOP is not None else 0
    return signal.Signals(number).name if number else None


def _init_worker(stop: Any, parent: int) -> None:
    """Worker initializer. The worker dies with its run-all: the kernel sends it SIGTERM when
    run-all dies, however it dies (``launcher.arm_parent_death_signal``; SIGKILL, a crash), and
    a running session ends on it as ``interrupted`` with its CLI stopped, saying its run-all
    died. Ctrl-C, a closed terminal's hang-up or Ctrl-\\ reach every process of the terminal's
    group: an idle worker ignores them (``_idle_signal``), a running session handles them
    (``interrupt.Interruption``). ``stop`` holds the signal that stopped run-all (0 until then):
    the worker then starts no session it is handed, and a session ended by the SIGINT run-all
    passes on records that signal."""
    global _STOP, _PARENT
    _STOP, _PARENT = stop, parent
    for sig in SIGNALS:
        signal.signal(sig, _idle_signal)
    arm_parent_death_signal(signal.SIGTERM)
    if os.getppid() != parent:   # run-all died before the death signal was armed
        os._exit(1)


def _run_one(spec: SessionSpec, rerun: bool) -> tuple[str, str | None]:
    """Worker: claim the session folder, move a voided or unfinished attempt aside (the claim
    holder decides, so two workers never both do), run the session. Status None: not started."""
    prepared = prepare(spec)
    if _STOP is not None and _STOP.value:
        return str(prepared.session_dir), None
    session_dir = prepared.session_dir
    with Interruption(parent=_PARENT, relayed=_relayed) as interruption, claim_session(session_dir):
        if rerun and holds_session(session_dir):
            status = effective_status(read_meta(session_dir))
            if status == SessionStatus.RUNNING:
                status = SessionStatus.UNFINISHED  # we hold the claim: its runner is gone
            if is_rerunnable(status):
                if status == SessionStatus.UNFINISHED:
                    _mark_unfinished(session_dir)
                archive_attempt(session_dir)
        folder = run_claimed(prepared, interruption)
    if interruption.orphaned or (interruption.signal == "SIGTERM" and not interruption.to_parent):
        # run-all died, or this worker was sent SIGTERM itself (the pool sends it when another
        # worker died): the session has ended and is recorded; the worker ends as SIGTERM says,
        # instead of waiting for work that will never come (which would hang the pool's shutdown)
        os._exit(128 + signal.SIGTERM)
    return str(folder), str((read_meta(folder) or SessionMeta()).get("status", SessionStatus.UNFINISHED))


def _batch_size(spec: SessionSpec) -> int:
    """A session's whole batch: every item of its task (the referral study's seeded order)."""
    from sopbench_tools.tasks import PREREGISTERED_TASK, project_task_source, resolve_task

    if getattr(spec, "study", None) is not None:   # another study's session: its units (one task, one run)
        return 1
    if spec.task == PREREGISTERED_TASK or (spec.task is None and project_task_source() == PREREGISTERED_TASK):
        return len(order_for_seed(spec.seed))

    return len(resolve_task(spec.task).item_ids)


def _units(spec: SessionSpec) -> Any:
    """What the run's sessions call their units, in their study's family's words (one study a run;
    None: the main study's, as its sessions' logs say)."""
    if getattr(spec, "study", None) is None:
        return None
    from study.families.units import of_study
    from study.protocol.studies import load_study

    study = load_study(spec.study)
    return None if study.main else of_study(study)


def run_matrix(specs: list[SessionSpec], *, jobs: int = 1, rerun_voided: bool = False, root: Path | None = None,
               stream: TextIO | None = None, refresh_s: float = 1.0, console: Any = None,
               title: str = "study run-all") -> MatrixResult:
    """Run the planned sessions in ``jobs`` worker processes with a live display (``display.py``;
    ``console``: a rich Console to draw it on). Raises ``MatrixInterrupted`` (after the running
    sessions have ended) on SIGINT or SIGTERM."""
    planned = plan_matrix(specs, rerun_voided=rerun_voided)
    result = MatrixResult()
    why = {None: "", SessionStatus.RUNNING: "running in another runner",
           SessionStatus.INFRASTRUCTURE_FAILURE: "voided; rerun with --rerun-voided",
           SessionStatus.INTERRUPTED: "interrupted, voided; rerun with --rerun-voided",
           SessionStatus.UNFINISHED: "unfinished; rerun with --rerun-voided"}
    for p in planned:
        if p.action == "skip":
            result.skipped.append((p.session_dir, f"{p.existing}" + (f" ({why[p.existing]})" if why.get(p.existing) else "")))
    todo = [p for p in planned if p.action != "skip"]
    if not todo:
        return result
    root = Path(root) if root is not None else Path(todo[0].spec.out_root or sessions_dir())
    display = MatrixDisplay([p.session_dir for p in todo], root, jobs=jobs, stream=stream, console=console, title=title,
                            batch_sizes={p.session_dir: p.spec.accounts or _batch_size(p.spec) for p in todo},
                            ours=lambda: {child.pid for child in multiprocessing.active_children()},
                            units=_units(todo[0].spec))
    context = multiprocessing.get_context("spawn")
    forwarded = False
    stop = context.Value("i", 0)   # the signal that stopped run-all (_init_worker)
    with Interruption() as interruption, display, ProcessPoolExecutor(
            max_workers=max(1, jobs), mp_context=context, initializer=_init_worker, initargs=(stop, os.getpid())) as pool:
        futures: dict[Future, Planned] = {pool.submit(_run_one, p.spec, p.action == "rerun"): p for p in todo}
        pending = set(futures)
        while pending:
            if interruption.signal and not forwarded:
                forwarded = True
                stop.value = int(signal.Signals[interruption.signal])
                for future in pending:
                    future.cancel()  # not started yet: never started
                for child in multiprocessing.active_children():  # the workers: end their sessions
                    with contextlib.suppress(OSError):   # (SIGINT: idle ones ignore it; the session records `stop`)
                        os.kill(child.pid, signal.SIGINT)
                pending = {f for f in pending if not f.cancelled()}
            done, pending = wait(pending, timeout=refresh_s, return_when=FIRST_COMPLETED)
            for future in done:
                p = futures[future]
                try:
                    _folder, status = future.result()
                    if status is None:
                        result.skipped.append((p.session_dir, "not started: run-all was interrupted"))
                        continue
                    result.ran.append((p.session_dir, status))
                except SessionExists as exc:  # another runner holds it, or finished it meanwhile
                    result.skipped.append((p.session_dir, str(exc)))
                    display.skip(p.session_dir, exc.held_by if isinstance(exc, SessionClaimed)
                                 else "another runner has run it meanwhile")
                    continue
                except Exception as exc:  # the worker itself died or refused: nothing finished is lost
                    status = SessionStatus.UNFINISHED
                    result.errors.append((p.session_dir, f"{type(exc).__name__}: {exc}"))
                display.finished(p.session_dir, status)
            display.refresh(force=bool(done))
    if interruption.signal:
        raise MatrixInterrupted(result, interruption.signal)
    return result
