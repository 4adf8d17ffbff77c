"""The live display of run/run-all: what each cell says (rich's recording console), the plain
line-per-event mode when the output is not a terminal, and a real pseudo-terminal."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from rich.console import Console

from study.runner import display as display_module
from study.runner.display import MatrixDisplay, clock
from study.runner.progress import LogProgress

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=timezone.utc)
ORDER = [f"A{i}" for i in range(10)]


def _t(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def write_events(folder: Path, events: list[tuple[float, str, dict]], *, append: bool = False) -> None:
    """Write log lines by hand, each at T0 + seconds (the display's rates and times are exact)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events.jsonl"
    seq = len(path.read_text().splitlines()) if append and path.exists() else 0
    with open(path, "a" if append else "w") as fh:
        for i, (at, kind, fields) in enumerate(events):
            fh.write(json.dumps({"seq": seq + i, "t": _t(at), "kind": kind, **fields}) + "\n")


def start(model_id: str = "claude-haiku-4-5") -> tuple[float, str, dict]:
    return (0, "session_start", {"order": ORDER, "limits": {"spending_usd": 25.0}, "simulated": True,
                                 "model_id": model_id, "model": "sim:oracle"})


def decide(at: float, account: str) -> tuple[float, str, dict]:
    return (at, "tool_call", {"tool": "submit_decision", "account": account, "ok": True, "allowed": True})


def matrix(root: Path) -> tuple[Path, Path, Path]:
    """A running FSM session (4/10 decided in 4 minutes, $1.50 streamed, 1 resume, 2 stop blocks,
    1 denied call), a finished Plain one (10/10 in 5 minutes) and a queued Sys one."""
    fsm, plain, queued = (root / "sim-oracle" / c / "seed-2" for c in ("FSM", "Plain", "Sys"))
    write_events(fsm, [start(), *(decide(30 * (i + 1), a) for i, a in enumerate(ORDER[:3])),
                       (100, "stop", {"outcome": "blocked", "accounts_left": 7}),
                       (101, "stop", {"outcome": "blocked", "accounts_left": 7}),
                       (110, "tool_call", {"tool": "investigate_account", "account": "A5", "ok": False, "allowed": False}),
                       (115, "resume", {"n": 1}), decide(120, ORDER[3]),
                       (121, "usage", {"session_cost_usd": 1.5})])
    write_events(plain, [start(), *(decide(30 * (i + 1), a) for i, a in enumerate(ORDER)),
                         (300, "session_end", {"status": "completed", "cost_usd": 0.75, "duration_s": 300.0})])
    return fsm, plain, queued


def frozen_now(monkeypatch, seconds: float) -> None:
    monkeypatch.setattr(display_module, "wall_clock", lambda: T0 + timedelta(seconds=seconds))


def cells(text: str, name: str) -> list[str]:
    line = next(line for line in text.splitlines() if name in line and ("│" in line or "┃" in line))
    return [c.strip() for c in re.split("[│┃]", line.strip().strip("│┃"))]


def test_each_session_shows_decided_rate_eta_spend_beside_the_cap_elapsed_resumes_and_blocks(tmp_path, monkeypatch):
    fsm, plain, queued = matrix(tmp_path)
    frozen_now(monkeypatch, 240)
    console = Console(record=True, width=200, file=io.StringIO(), force_terminal=True)
    shown = MatrixDisplay([fsm, plain, queued], tmp_path, jobs=2, console=console, batch_sizes={queued: 10})
    shown.finished(plain, "completed")
    shown.started = time.monotonic() - 245
    console.print(shown.table())
    text = console.export_text()
    header = cells(text, "session")
    assert header == ["session", "status", "decided", "rate", "ETA", "spend / cap", "elapsed", "resumes", "blocks",
                      "denied"]
    # 4 of 10 in 4 minutes: 1.0 a minute, 6 left: 6:00; $1.50 streamed of the $25 cap
    assert cells(text, "FSM") == ["* sim-oracle/FSM/seed-2", "running", "4/10", "1.0/min", "6:00", "$1.50 / $25.00",
                                  "4:00", "1", "2", "1"]
    assert cells(text, "Plain") == ["* sim-oracle/Plain/seed-2", "completed", "10/10", "2.0/min", "-",
                                    "$0.75 / $25.00", "5:00", "0", "0", "0"]
    assert cells(text, "Sys") == ["sim-oracle/Sys/seed-2", "queued", "-", "-", "-", "-", "-", "0", "0", "0"]
    # totals: the running session's 6:00 plus the queued one at the finished one's 5:00, over two
    # workers, is 5:30, but never less than the running session's own 6:00
    assert ("1/3 done, 1 running, 1 queued; decided 14/30; spend $2.25; elapsed 4:05; matrix ETA ~6:00"
            in " ".join(text.split()))
    assert "* simulated, priced as claude-haiku-4-5: never a real cost" in text


def test_the_matrix_eta_spreads_queued_sessions_over_the_workers(tmp_path, monkeypatch):
    fsm, plain, _ = matrix(tmp_path)
    queued = [tmp_path / "sim-oracle" / "Sys" / f"seed-{s}" for s in (2, 3, 4, 5)]
    frozen_now(monkeypatch, 240)
    shown = MatrixDisplay([fsm, plain, *queued], tmp_path, jobs=2, console=Console(file=io.StringIO()))
    shown._update()
    assert shown.matrix_eta_s() == (360 + 4 * 300) / 2      # 13:00
    early = MatrixDisplay([queued[0]], tmp_path, jobs=2, console=Console(file=io.StringIO()))
    assert early.matrix_eta_s() is None                     # nothing to estimate from yet
    # a session started but not yet deciding is taken at the finished ones' mean duration
    fresh = tmp_path / "sim-oracle" / "FSM" / "seed-3"
    write_events(fresh, [(200, "session_start", start()[2])])
    both = MatrixDisplay([plain, fresh], tmp_path, jobs=2, console=Console(file=io.StringIO()))
    both.finished(plain, "completed")
    both._update()
    assert both.matrix_eta_s() == 300 - 40                  # 5:00 less its 40 s so far
    both.finished(fresh, "completed")
    assert both.matrix_eta_s() == 0.0


def test_a_running_session_shows_its_spend_as_streamed_not_zero_until_the_call_returns(tmp_path, monkeypatch):
    folder = tmp_path / "s"
    write_events(folder, [start(), (5, "usage", {"session_cost_usd": 0.12})])
    progress = LogProgress(folder).update()
    assert progress.cost_usd == 0.12 and progress.cap_usd == 25.0
    write_events(folder, [(9, "usage", {"session_cost_usd": 0.31})], append=True)
    assert progress.update().cost_usd == 0.31


def test_a_model_without_list_prices_shows_no_price_instead_of_zero(tmp_path, monkeypatch):
    folder = tmp_path / "qwen3.8-flash" / "FSM" / "seed-2"
    write_events(folder, [(0, "session_start", {"order": ORDER, "limits": {"spending_usd": 25.0}, "simulated": False,
                                                "model_id": "qwen3.8-flash", "prices_per_mtok": None}),
                          decide(60, "A0"), (61, "usage", {"session_cost_usd": 0.0})])
    frozen_now(monkeypatch, 120)
    console = Console(record=True, width=200, file=io.StringIO())
    console.print(MatrixDisplay([folder], tmp_path, console=console).table())
    assert cells(console.export_text(), "qwen")[5] == "no list price / $25.00"


def test_plain_mode_prints_one_line_per_event(tmp_path, monkeypatch):
    folder = tmp_path / "sim-oracle" / "FSM" / "seed-2"
    write_events(folder, [start()])
    out = io.StringIO()
    with MatrixDisplay([folder], tmp_path, jobs=1, stream=out, quiet_s=3600) as shown:
        write_events(folder, [decide(60, "A0"), (61, "usage", {"session_cost_usd": 0.2})], append=True)
        shown.refresh()
        shown.refresh()          # nothing new: no line
        write_events(folder, [(70, "stop", {"outcome": "blocked", "accounts_left": 9}), (80, "resume", {"n": 1}),
                              (85, "compaction", {"trigger": "auto"})], append=True)
        shown.refresh()
        write_events(folder, [(90, "session_end", {"status": "limit:spending", "cost_usd": 25.01, "duration_s": 90.0})],
                     append=True)
        shown.finished(folder, "limit:spending")
    lines = [re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line) for line in out.getvalue().splitlines()]
    assert "\x1b" not in out.getvalue()
    label = "sim-oracle/FSM/seed-2"
    sim = "(simulated, priced as claude-haiku-4-5)"
    events = [line for line in lines if not line.startswith("matrix:")]
    assert events[0] == f"{label}: started, 10 accounts, cap $25.00"
    assert events[1].startswith(f"{label}: 1/10 decided, ") and f"$0.20 of $25.00 cap {sim}" in events[1]
    assert events[2].startswith(f"{label}: resumed (resume 1), 1/10 decided")
    assert events[3:5] == [f"{label}: stop blocked (1 block(s) so far)", f"{label}: context compacted (1 so far)"]
    assert events[5] == f"{label}: ended limit:spending: 1/10 decided, 0.7/min, $25.01 of $25.00 cap {sim}, elapsed 1:30"
    assert len(events) == 6
    totals = [line for line in lines if line.startswith("matrix:")]
    assert len(totals) == 2                  # at the start and at the end (quiet_s is an hour)
    assert totals[0] == "matrix: 0/1 done, 1 running, 0 queued; decided 0/10; spend $0.00; elapsed 0:00; ETA -; " \
                       "* simulated, priced as claude-haiku-4-5: never a real cost"
    assert totals[1] == lines[-1] and lines[-1].startswith("matrix: 1/1 done, 0 running, 0 queued; decided 1/10; spend $25.01")


SCRIPT = """
import sys, time
from pathlib import Path
from study.runner.display import MatrixDisplay
root = Path(sys.argv[1])
dirs = sorted(p.parent for p in root.rglob("events.jsonl"))
with MatrixDisplay(dirs, root, jobs=2) as shown:
    shown.refresh()
    time.sleep(0.2)
    shown.refresh()
"""


def _run(root: Path, *, tty: bool) -> str:
    env = {**os.environ, "COLUMNS": "160", "LINES": "40", "TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    if not tty:
        return subprocess.run([sys.executable, "-c", SCRIPT, str(root)], capture_output=True, text=True, env=env,
                              check=True, timeout=60).stdout
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(root)], stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:      # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0, b"".join(chunks).decode(errors="replace")
    return b"".join(chunks).decode(errors="replace")


def test_on_a_terminal_it_is_a_live_table_redrawn_in_place_and_plain_lines_through_a_pipe(tmp_path):
    matrix(tmp_path)
    drawn = _run(tmp_path, tty=True)
    assert "\x1b[" in drawn                                   # cursor control: redrawn in place
    assert "\x1b[?25l" in drawn                               # rich hides the cursor while live
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)
    assert "spend / cap" in plain and "$1.50 / $25.00" in plain and "sim-oracle/FSM/seed-2" in plain
    piped = _run(tmp_path, tty=False)
    assert "\x1b" not in piped and "┃" not in piped
    assert re.search(r"^\[\d\d:\d\d:\d\d\] sim-oracle/FSM/seed-2: started, 10 accounts, cap \$25\.00$", piped, re.M)
    assert re.search(r"^\[\d\d:\d\d:\d\d\] sim-oracle/Plain/seed-2: ended completed: 10/10 decided", piped, re.M)


def test_clock():
    assert [clock(x) for x in (None, 0, 59.6, 125, 3725)] == ["-", "0:00", "1:00", "2:05", "1:02:05"]


def test_a_large_matrix_lists_the_running_and_the_latest_finished_sessions(tmp_path, monkeypatch):
    folders = [tmp_path / "sim-oracle" / "Plain" / f"seed-{s}" for s in range(2, 32)]    # 30 sessions
    for folder in folders[:12]:
        write_events(folder, [start()])
    frozen_now(monkeypatch, 60)
    console = Console(record=True, width=200, file=io.StringIO())
    shown = MatrixDisplay(folders, tmp_path, jobs=2, console=console)
    for folder in folders[:10]:
        shown.finished(folder, "completed")
    console.print(shown.table())
    text = console.export_text()
    listed = [f"seed-{s}" for s in range(2, 32) if re.search(rf"Plain/seed-{s} ", text)]
    assert listed == [f"seed-{s}" for s in range(4, 14)]      # the last 8 finished, the 2 running
    assert "... 20 more (queued or finished earlier)" in text
    assert "10/30 done, 2 running, 18 queued" in " ".join(text.split())


def test_the_live_table_fits_a_160_column_terminal_with_every_header_whole(tmp_path, monkeypatch):
    """Issue 24: a long status and a long name made the table wider than the terminal, and rich
    cut every column (headers "denie", "resume"). Now only the session's name (cut at the front,
    keeping its simulated mark) and then a long status give way."""
    long_name = tmp_path / "exploratory" / "sim-wrong-account" / "FSM-bound" / "seed-2-first-10-and-more-words"
    write_events(long_name, [start(), (60, "session_end", {"status": "limit:resumes_without_decision",
                                                           "cost_usd": 0.5, "duration_s": 60.0})])
    frozen_now(monkeypatch, 120)
    for width, name_shown in ((160, True), (110, False)):
        console = Console(record=True, width=width, file=io.StringIO())
        shown = MatrixDisplay([long_name, tmp_path / "queued"], tmp_path, console=console)
        console.print(shown.table())
        text = console.export_text()
        assert max(len(line.rstrip()) for line in text.splitlines()) <= width, text
        assert cells(text, "session") == ["session", "status", "decided", "rate", "ETA", "spend / cap", "elapsed",
                                          "resumes", "blocks", "denied"]
        row = cells(text, "more-words")
        assert row[0].startswith("* …") and row[0].endswith("more-words")
        assert (row[1] == "limit:resumes_without_decision") is name_shown
        assert row[2:] == ["0/10", "-", "-", "$0.50 / $25.00", "1:00", "0", "0", "0"]


def _meta(folder: Path, pid: int, **fields) -> None:
    from study.session_io.meta import write_meta

    write_meta(folder, {"runner": {"host": "here", "pid": pid}, **fields})


def test_after_rerun_voided_the_display_shows_the_rerun_not_the_earlier_attempt(tmp_path, monkeypatch):
    """Issue 24: the rerun's log first printed the earlier attempt's "ended interrupted: 17/40",
    and a finished session's line could disagree with meta.json (39/40 against 40/40)."""
    frozen_now(monkeypatch, 600)
    folder = tmp_path / "sim-oracle" / "Plain" / "seed-2"
    write_events(folder, [start(), *(decide(10 * (i + 1), a) for i, a in enumerate(ORDER[:7])),
                          (100, "session_end", {"status": "interrupted", "cost_usd": 0.2, "duration_s": 100.0})])
    _meta(folder, 111, status="interrupted")                   # the earlier attempt's runner
    out = io.StringIO()
    shown = MatrixDisplay([folder], tmp_path, stream=out, ours=lambda: {222})
    shown.refresh(force=True)
    assert shown.status(folder) == "queued" and "ended" not in out.getvalue() and "7/10" not in out.getvalue()
    attempt = folder / "attempt-1"                             # the worker (pid 222) moves it aside, runs again
    attempt.mkdir()
    for name in ("events.jsonl", "meta.json"):
        (folder / name).rename(attempt / name)
    shown.refresh(force=True)
    _meta(folder, 222, status="running")
    write_events(folder, [start(), *(decide(300 + 10 * i, a) for i, a in enumerate(ORDER[:9]))])
    shown.refresh(force=True)
    assert shown.status(folder) == "running" and shown.progress[folder].decisions == 9
    write_events(folder, [(500, "session_end", {"status": "completed", "cost_usd": 0.5, "duration_s": 200.0})],
                 append=True)
    _meta(folder, 222, status="completed", decisions=10, cost_usd=0.5)   # the record status reads
    shown.finished(folder, "completed")
    shown.refresh(force=True)
    lines = out.getvalue().splitlines()
    assert [line for line in lines if "ended" in line] == [
        line for line in lines if "sim-oracle/Plain/seed-2: ended completed: 10/10 decided" in line]
    assert len([line for line in lines if "ended" in line]) == 1
    assert not any("interrupted" in line for line in lines)


def test_a_session_held_by_another_runner_is_skipped_and_left_out_of_the_totals(tmp_path, monkeypatch):
    frozen_now(monkeypatch, 120)
    mine = tmp_path / "sim-oracle" / "Plain" / "seed-2"
    theirs = tmp_path / "sim-oracle" / "Plain" / "seed-3"
    for folder, pid in ((mine, 222), (theirs, 333)):
        write_events(folder, [start(), *(decide(10 * (i + 1), a) for i, a in enumerate(ORDER[:4]))])
        _meta(folder, pid, status="running")
    out = io.StringIO()
    shown = MatrixDisplay([mine, theirs], tmp_path, stream=out, ours=lambda: {222}, batch_sizes={theirs: 10})
    shown.refresh(force=True)
    assert "seed-3: started" not in out.getvalue()              # another runner's log is not this run's
    shown.skip(theirs, "held by pid 333 on host node-2")
    shown.refresh(force=True)
    text = out.getvalue()
    assert "sim-oracle/Plain/seed-3: skipped: held by pid 333 on host node-2" in text
    assert "seed-3: ended" not in text
    assert "0/1 done, 1 running, 0 queued; 1 skipped; decided 4/10;" in shown.totals()


def test_a_session_of_another_task_is_started_with_that_tasks_items(tmp_path):
    folder = tmp_path / "tasks" / "dangerous_goods" / "exploratory" / "sim-oracle" / "FSM" / "seed-2"
    when, kind, fields = start()
    write_events(folder, [(when, kind, {**fields, "task": "dangerous_goods", "order": ORDER[:3]})])
    out = io.StringIO()
    with MatrixDisplay([folder], tmp_path, jobs=1, stream=out, quiet_s=3600) as shown:
        shown.refresh()
    assert re.search(r": started, 3 products, cap \$25\.00$", out.getvalue(), re.M), out.getvalue()


def test_run_all_counts_the_whole_batch_of_another_task_when_no_account_count_is_given():
    from sopbench_tools.tasks import load_task
    from study.runner.matrix import _batch_size
    from study.runner.session import SessionSpec

    spec = SessionSpec(model="sim:oracle", condition="FSM", seed=2, task="dangerous_goods")
    assert _batch_size(spec) == len(load_task("dangerous_goods").item_ids) == 274
    assert _batch_size(SessionSpec(model="sim:oracle", condition="FSM", seed=2)) == 200
