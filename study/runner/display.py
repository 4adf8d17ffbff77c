"""The live display of ``study run-all`` and ``study run``, read from the session folders alone.

For each session: its status, decided/N with the rate so far and the time left at that rate (its
units in its family's words, ``study.families.units``: ``2/6 periods done``; a session that decides
nothing, one conversation, shows where it is or its verdict instead), the spend as streamed (the runner logs the running price after every model response) beside its
spending cap, the elapsed time, resumes, stop-gate blocks and gate denials; then the totals and
an estimate of the time left for the whole matrix. It reads only what the sessions write
(``progress.LogProgress``), so it shows the same whatever the worker processes are doing.

On a terminal it is a ``rich`` live table redrawn in place (rich.live); otherwise (a log file,
CI, a Slurm job's output) it prints one plain line per event instead: a session started,
reached another tenth of its batch, was resumed, blocked at the stop gate, compacted, ended;
and a line with the totals when a session ends, and otherwise at most every ``quiet_s``
seconds when they changed.
"""

from __future__ import annotations

import math
import re
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from rich.console import Console
from rich.live import Live
from rich.table import Table
from rich.text import Text

from study.families.units import Units, main_units
from study.families.registry import DEFAULT_FAMILY
from study.protocol.cost_text import cost_text, simulated_note
from study.session_io.meta import SessionMeta, read_meta
from study.session_io.vocabulary import SessionStatus, status_voids

from .progress import LogProgress, family_progress, wall_clock

#: The display's label of a session no worker has started yet (not a session status).
QUEUED = "queued"
#: ... of a session this run left to another runner (``skip``).
SKIPPED = "skipped"
#: The live table's columns (name, justification).
COLUMNS = (("session", "left"), ("status", "left"), ("decided", "right"), ("rate", "right"), ("ETA", "right"),
           ("spend / cap", "right"), ("elapsed", "right"), ("resumes", "right"), ("blocks", "right"),
           ("denied", "right"))
#: All sessions are listed up to this many; above it the running ones and the latest finished.
FULL_LIST = 20
LATEST_FINISHED = 8


def clock(seconds: float | None) -> str:
    """125 -> '2:05', 3725 -> '1:02:05', None -> '-'."""
    if seconds is None:
        return "-"
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def _spend(p: LogProgress) -> str:
    cap = f" / ${p.cap_usd:.2f}" if p.cap_usd is not None else ""
    if not p.priced and not p.cost_usd:   # no list prices: nothing is priced as it streams
        return f"no list price{cap}"
    return f"${p.cost_usd:.2f}{cap}"


def _denied(p: LogProgress) -> str:
    """Gate denials; with the exploratory ``gate_refusals`` limit, those since the last decision
    beside it (``12 (7/50)``)."""
    return f"{p.denied} ({p.refusals}/{p.refusal_cap})" if p.refusal_cap is not None else str(p.denied)


def _style(status: str) -> str:
    if status == SessionStatus.COMPLETED:
        return "green"
    if status == SessionStatus.RUNNING:
        return "cyan"
    if status_voids(status):
        return "bold red"
    return "yellow"


class MatrixDisplay:
    """``with MatrixDisplay(dirs, root, jobs=2) as display: ... display.refresh()``.

    ``console``: draw the live table on this rich Console (tests pass a recording one);
    otherwise a live table when ``stream`` (default stdout) is a terminal, plain lines if not.
    """

    def __init__(self, session_dirs: list[Path], root: Path, *, jobs: int = 1, stream: TextIO | None = None,
                 console: Console | None = None, title: str = "study run-all", quiet_s: float = 60.0,
                 batch_sizes: dict[Path, int] | None = None, ours: Callable[[], set[int]] | None = None,
                 units: Units | None = None):
        self.dirs = list(session_dirs)
        self.root = Path(root)
        self.jobs = max(1, jobs)
        self.title = title
        self.stream = stream or sys.stdout
        self.live_mode = console is not None or self.stream.isatty()
        self.console = console or Console(file=self.stream)
        self.quiet_s = quiet_s
        self.done: dict[Path, str] = {}
        self.progress = {d: LogProgress(d) for d in self.dirs}
        self.batch_sizes = dict(batch_sizes or {})   # accounts of each session, known before it starts
        #: what the run's sessions call their units (its study's family's words), known before any
        #: starts; None: the first started session's (the main study's before one has)
        self.units = units
        #: The pids of this run's runners (run-all's workers); a log another runner writes (or an
        #: earlier attempt's, before it is moved aside) is not shown as this run's session.
        self.ours = ours
        self.skipped: dict[Path, str] = {}
        self._owned: dict[Path, bool] = {}
        self.started = time.monotonic()
        self._live: Live | None = None
        self._seen: dict[Path, tuple] = {}
        self._last_totals = ""
        self._last_totals_at = 0.0

    # ----- the model -----------------------------------------------------------------------------

    def label(self, d: Path) -> str:
        try:
            return str(d.relative_to(self.root))
        except ValueError:
            return str(d)

    def status(self, d: Path) -> str:
        """``queued``, ``running``, the status it ended with, or ``skipped``."""
        p = self.progress[d]
        if d in self.skipped:
            return SKIPPED
        if d in self.done:
            return self.done[d]
        if p.started is None or not self._is_ours(d):
            return QUEUED
        return p.ended if p.ended is not None else SessionStatus.RUNNING

    def run_units(self) -> Units:
        """The words of the run's units: the ones given, else the first started session's."""
        if self.units is not None:
            return self.units
        return next((p.units for p in self.progress.values() if p.start is not None), main_units())

    def _is_ours(self, d: Path) -> bool:
        return True if self.ours is None else self._owned.get(d, False)

    def finished(self, session_dir: Path, status: str) -> None:
        """The session has ended: from now on it shows what its meta.json says, as ``study status``."""
        self.progress[session_dir].update()
        self.progress[session_dir].settle(read_meta(session_dir))
        self.done[session_dir] = status

    def skip(self, session_dir: Path, why: str) -> None:
        """This run did not run the session (another runner holds it or has run it): it is left
        out of the totals, and its line says why."""
        self.skipped[session_dir] = why

    def _update(self) -> None:
        pids = self.ours() if self.ours is not None else None
        for d, p in self.progress.items():
            p.update()
            if pids is not None and p.started is not None and d not in self.done and not self._owned.get(d):
                runner = (read_meta(d) or SessionMeta()).runner or {}   # whose log it is: meta.json says
                self._owned[d] = runner.get("pid") in pids

    def matrix_eta_s(self) -> float | None:
        """Time left for the matrix: each running session's time left at its rate (before its first
        decision: the mean duration less its elapsed time), plus the queued sessions at the mean
        duration of the finished (else the projected running) ones, over the workers; never less
        than the longest running session's. 0 when nothing is left; None until an estimate exists."""
        now = wall_clock()
        statuses = {d: self.status(d) for d in self.dirs}
        running = [self.progress[d] for d, s in statuses.items() if s == SessionStatus.RUNNING]
        queued = sum(1 for s in statuses.values() if s == QUEUED)
        if not running and not queued:
            return 0.0
        finished = [self.progress[d].elapsed_s(now) for d, s in statuses.items()
                    if s not in (QUEUED, SKIPPED, SessionStatus.RUNNING)]
        projected = [(p.elapsed_s(now) or 0) + eta for p in running if (eta := p.eta_s(now)) is not None]
        durations = [x for x in finished if x] or projected
        mean = sum(durations) / len(durations) if durations else None
        left = []
        for p in running:
            eta = p.eta_s(now)
            if eta is None and mean is not None:
                eta = max(mean - (p.elapsed_s(now) or 0), 0.0)
            if eta is None:
                return None
            left.append(eta)
        if queued and mean is None:
            return None
        total = sum(left) + queued * (mean or 0.0)
        return max(total / self.jobs, max(left, default=0.0))

    # ----- the live table -----------------------------------------------------------------------

    def _rows(self) -> list[Path]:
        if len(self.dirs) <= FULL_LIST:
            return list(self.dirs)
        running = [d for d in self.dirs if self.status(d) == SessionStatus.RUNNING]
        finished = [d for d in self.done][-LATEST_FINISHED:]
        return finished + running

    def table(self) -> Table:
        """The live table (reads the logs first). It is never wider than the console: every column
        but the session's is as wide as its widest cell (headers whole), and the session's names
        are cut at the front (``…FSM/seed-2``) to the width left (then a long status ends in "…")."""
        self._update()
        now = wall_clock()
        units = self.run_units()
        rows = []
        for d in self._rows():
            p, status = self.progress[d], self.status(d)
            if status in (QUEUED, SKIPPED):
                rows.append((self.label(d), status, *("-",) * 5, "0", "0", "0"))
                continue
            rate = p.rate_per_min(now)
            total = p.accounts if p.accounts is not None else "?"
            running = status == SessionStatus.RUNNING
            done = f"{p.decisions}/{total}" if p.units.decides else p.done_words()   # else: where it is, its verdict
            rows.append((("* " if p.simulated else "") + self.label(d), status,
                         done if p.started else "-", f"{rate:.1f}/min" if rate else "-",
                         clock(p.eta_s(now)) if running else "-", _spend(p) if p.started else "-",
                         clock(p.elapsed_s(now)), str(p.resumes), str(p.blocks), _denied(p)))
        columns = [(units.label, justify) if name == "decided" else (name, justify) for name, justify in COLUMNS]
        widths = [max([len(name), *(len(r[i]) for r in rows)]) for i, (name, _) in enumerate(columns)]
        for column, floor in ((0, 24), (1, 14), (0, len("session")), (1, len("status"))):   # cut these first
            excess = sum(widths) + 3 * len(COLUMNS) - 1 - self.console.width
            if excess > 0:
                widths[column] = max(widths[column] - excess, min(floor, widths[column]))
        hidden = len(self.dirs) - len(rows)
        more = f"... {hidden} more (queued or finished earlier)\n" if hidden else ""
        table = Table(title=self._title(), title_justify="left", caption=more + self.totals(), caption_justify="left",
                      expand=False, pad_edge=False)
        for (name, justify), width in zip(columns, widths):
            table.add_column(name, justify=justify, no_wrap=True, overflow="ellipsis", width=width)
        for row in rows:
            label = row[0]
            if len(label) > widths[0]:   # keep the simulated mark, cut the front of the name
                mark = "* " if label.startswith("* ") else ""
                label = mark + "…" + label[len(label) - widths[0] + len(mark) + 1:]
            table.add_row(label, Text(row[1], style=_style(row[1])), *row[2:])
        return table

    def _title(self) -> str:
        if len(self.dirs) == 1:
            return self.title
        return f"{self.title}: {len(self.dirs)} session(s), {self.jobs} worker(s)"

    def totals(self) -> str:
        by_dir = {d: self.status(d) for d in self.dirs}
        statuses = [s for s in by_dir.values() if s != SKIPPED]      # a skipped session is not this run's
        running = statuses.count(SessionStatus.RUNNING)
        queued = statuses.count(QUEUED)
        done = len(statuses) - running - queued
        shown = [self.progress[d] for d, s in by_dir.items() if s not in (QUEUED, SKIPPED)]
        decided = sum(p.decisions for p in shown)
        accounts = sum(self.progress[d].accounts if s != QUEUED and self.progress[d].accounts is not None
                       else self.batch_sizes.get(d, 0) for d, s in by_dir.items() if s != SKIPPED)
        units = self.run_units()   # the run's units done (a run that decides nothing: its sessions done say it)
        counted = (f"; {units.label} {decided}" + (f"/{accounts}" if accounts else "")) if units.decides else ""
        spend = sum(p.cost_usd for p in shown)
        simulated = sorted({p.model_id or "" for p in shown if p.simulated})
        eta = self.matrix_eta_s()
        skipped = f"; {len(self.skipped)} skipped" if self.skipped else ""
        line = (f"{done}/{len(statuses)} done, {running} running, {queued} queued{skipped}{counted}"
                + f"; spend ${spend:.2f}; elapsed "
                + f"{clock(time.monotonic() - self.started)}; {'matrix ' if len(self.dirs) > 1 else ''}ETA "
                + ("done" if not running and not queued else "~" + clock(eta) if eta is not None else "-"))
        if simulated:
            line += f"\n* {simulated_note(', '.join(simulated))}: never a real cost"
        return line

    # ----- plain lines --------------------------------------------------------------------------

    def _events(self, d: Path) -> list[str]:
        """The plain lines for what happened in session ``d`` since the last call."""
        p, status = self.progress[d], self.status(d)
        if status == QUEUED:
            return []
        if status == SKIPPED:
            if self._seen.get(d) == SKIPPED:
                return []
            self._seen[d] = SKIPPED
            return [f"{self.label(d)}: skipped: {self.skipped[d]}"]
        step = max(1, math.ceil((p.accounts or 10) / 10))
        half = (p.refusal_cap is not None and p.refusals * 2 >= p.refusal_cap)
        now = (True, p.decisions // step, p.resumes, p.blocks, p.compactions, status, half)
        before = self._seen.get(d, (False, 0, 0, 0, 0, QUEUED, False))
        self._seen[d] = now
        label, lines = self.label(d), []
        cost = (f"${p.cost_usd:.2f}" if p.priced or p.cost_usd else "no list price") + (
            f" of ${p.cap_usd:.2f} cap" if p.cap_usd is not None else "")
        if p.simulated:
            cost += f" ({simulated_note(p.model_id)})"
        rate = p.rate_per_min()
        where = (p.done_words() + (f", {rate:.1f}/min" if rate else "") + f", {cost}, elapsed {clock(p.elapsed_s())}")
        if not before[0]:
            lines.append(f"{label}: started, {p.units.size(p.accounts)}" + (f", cap ${p.cap_usd:.2f}" if p.cap_usd else ""))
        resumed = now[2] > before[2]
        if resumed:
            lines.append(f"{label}: resumed (resume {p.resumes}), {where}")
        if now[3] > before[3]:
            lines.append(f"{label}: stop blocked ({p.blocks} block(s) so far)")
        if now[4] > before[4]:
            lines.append(f"{label}: context compacted ({p.compactions} so far)")
        if now[6] and not before[6]:
            lines.append(f"{label}: the gate refused {p.refusals} call(s) without a new decision "
                         f"(limit {p.refusal_cap}: then limit:gate_refusals)")
        if status not in (SessionStatus.RUNNING, QUEUED) and status != before[5]:
            lines.append(f"{label}: ended {status}: {where}")
        elif now[1] > before[1] and status == SessionStatus.RUNNING and not resumed:
            eta = p.eta_s()
            lines.append(f"{label}: {where}" + (f", ETA {clock(eta)}" if eta is not None else ""))
        return lines

    def _plain(self, force: bool) -> None:
        self._update()
        stamp = wall_clock().strftime("%H:%M:%S")
        lines = [line for d in self.dirs for line in self._events(d)]
        totals = self.totals().replace("\n", "; ")
        without_clock = re.sub(r"; elapsed [^;]*", "", totals)
        changed = without_clock != self._last_totals   # not just the clock
        due = time.monotonic() - self._last_totals_at >= self.quiet_s
        if changed and (force or due):
            lines.append(f"matrix: {totals}")
            self._last_totals, self._last_totals_at = without_clock, time.monotonic()
        for line in lines:
            self.stream.write(f"[{stamp}] {line}\n")
        self.stream.flush()

    # ----- driving it ---------------------------------------------------------------------------

    def refresh(self, force: bool = False) -> None:
        if self._live is not None:
            self._live.update(self.table(), refresh=True)
        elif not self.live_mode:
            self._plain(force)

    def __enter__(self) -> "MatrixDisplay":
        if self.live_mode:
            self._live = Live(self.table(), console=self.console, auto_refresh=False, transient=False)
            self._live.start(refresh=True)
        else:
            self._plain(force=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.update(self.table(), refresh=True)
            self._live.stop()
            self._live = None
        else:
            self._plain(force=True)



def session_line(folder: Path, meta: SessionMeta) -> str:
    """``study run``'s last line: how the session ended, its units done (another family's in its
    words, with its verdict: ``2/6 periods done, 1/2 periods correct``; a session that decides
    nothing, its unit: ``1 conversation, reward 1``), its cost, time and resumes."""
    cost = cost_text(meta.cost_usd or 0.0, simulated=bool(meta.simulated), model_id=meta.model_id)
    progress = LogProgress(folder).update()
    progress.settle(meta)
    if progress.family == DEFAULT_FAMILY:
        done = f"{meta.decisions}/{meta.accounts} decided"
    else:
        units = progress.units
        done = f"{units.count(meta.decisions, meta.accounts) or units.size(meta.accounts)}, " \
               f"{family_progress(progress.family, progress)}"
    return f"{meta.status}: {done}, {cost}, {(meta.duration_s or 0.0) / 60:.1f} min, {meta.resumes} resume(s)"


class Watch:
    """Refresh a display from a thread every ``interval_s`` seconds while the caller runs a session
    in this one (``study run``): ``with Watch(MatrixDisplay([folder], root, title="study run")): ...``."""

    def __init__(self, display: MatrixDisplay, interval_s: float = 1.0):
        import threading

        self.display = display
        self.interval_s = interval_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="study-display", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.display.refresh()

    def __enter__(self) -> "Watch":
        self.display.__enter__()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.display.__exit__(*exc)
