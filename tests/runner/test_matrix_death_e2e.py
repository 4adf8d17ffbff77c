"""Killing ``run-all`` leaves nothing running (issue 23, item 2), with the real CLI against the
simulator.

run-all runs in its own process group with two workers; every process it starts (workers, the
CLIs, multiprocessing's helpers) inherits a marker variable, so the test finds them in /proc
however they were reparented. The test waits for both sessions to stream, then:

- SIGKILL of run-all: the kernel's parent-death signal stops both workers, whose sessions end
  as ``interrupted`` (``session_end``, final meta.json) saying their run-all died, with their
  CLIs stopped; nothing is left within a bounded time;
- SIGHUP (a closed terminal) to run-all: handled like SIGTERM, the signal that came recorded in
  each session's ``void_reason`` (SIGQUIT takes the same path: the one guard catches both,
  test_interruption_e2e.py, and run-all passes on whichever came; SIGTERM to run-all:
  test_matrix_interruption_e2e.py);
- SIGKILL of one worker: its CLI dies with it, ``status`` shows that session unfinished (the
  lock of its claim is free), the other session ends ``interrupted`` and run-all exits.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from study.runtimes.launcher import proc_stat
from study.runtimes.claude_code.sdk import bundled_cli_path
from study.runner.session import SessionSpec, prepare
from study.runner.status import scan
from study.session_io.reader import log_events, read_session

pytestmark = pytest.mark.e2e

EVENT_TIMEOUT_S = 300
#: Everything run-all started must be gone this long after the kill.
GONE_WITHIN_S = 30
ACCOUNTS = 12
MARKER = "STUDY_TEST_RUN_ALL_MARKER"

#: run-all as a user types it: the same matrix as the SIGTERM test of test_matrix_interruption_e2e.py.
RUN_ALL = ["-m", "study.cli", "run-all", "--models", "sim:oracle", "--conditions", "Plain,Remind,Sys", "--seeds", "2",
           "--accounts", str(ACCOUNTS), "--jobs", "2"]


def _marked(marker: str) -> list[int]:
    """Live (not zombie) processes whose environment carries the marker."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            environ = Path(entry.path, "environ").read_bytes()
        except OSError:
            continue
        stat = proc_stat(int(entry.name))
        if needle in environ.split(b"\0") and stat is not None and stat[0] != "Z":
            found.append(int(entry.name))
    return found


def _is_cli(pid: int) -> bool:
    try:
        return os.readlink(f"/proc/{pid}/exe") == str(bundled_cli_path())
    except OSError:
        return False


class RunAll:
    """``study run-all`` in its own process group (as a shell job), over a frozen project."""

    def __init__(self, root: Path, project: Path):
        self.root = root
        self.marker = uuid.uuid4().hex
        self.running = [prepare(SessionSpec(condition=c, seed=2, model="sim:oracle", accounts=ACCOUNTS,
                                            out_root=root)).session_dir for c in ("Plain", "Remind")]
        self.proc = subprocess.Popen([sys.executable, *RUN_ALL, "--sessions", str(root)], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, start_new_session=True,
                                     env={**os.environ, MARKER: self.marker, "STUDY_ROOT": str(project)})

    def wait_streaming(self) -> None:
        """Until both sessions have streamed a model response and each has its CLI."""
        deadline = time.monotonic() + EVENT_TIMEOUT_S
        while True:
            streamed = [d for d in self.running if (d / "events.jsonl").exists()
                        and any(e["kind"] == "usage" for e in log_events(d / "events.jsonl"))]
            if len(streamed) == 2 and len(self.clis()) == 2:
                return
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.proc.kill()
                pytest.fail(f"the two sessions did not both stream; stderr:\n{self.proc.stderr.read()[-3000:]}")
            time.sleep(0.02)

    def clis(self) -> list[int]:
        return [p for p in _marked(self.marker) if _is_cli(p)]

    def workers(self) -> list[int]:
        return [p for p in _marked(self.marker) if p != self.proc.pid and not _is_cli(p)
                and int(proc_stat(p)[1]) == self.proc.pid and b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]

    def assert_all_gone(self) -> float:
        started = time.monotonic()
        while left := _marked(self.marker):
            if time.monotonic() - started > GONE_WITHIN_S:
                details = {p: Path(f"/proc/{p}/cmdline").read_bytes()[:120] for p in left}
                pytest.fail(f"still running {GONE_WITHIN_S} s after the kill: {details}")
            time.sleep(0.05)
        return time.monotonic() - started


@pytest.fixture
def start(tmp_path, shared_frozen_project):
    """``start()``: run-all over ``tmp_path/sessions`` (of the frozen project shared by the tests that
    only read it: run-all writes nothing into it); whatever it left running is killed after the
    test (so a failing test leaves no session spending)."""
    started: list[RunAll] = []

    def make() -> RunAll:
        started.append(RunAll(tmp_path / "sessions", shared_frozen_project))
        return started[-1]

    yield make
    for run in started:
        for pid in _marked(run.marker):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def _ended_interrupted(folder: Path, words: str) -> None:
    session = read_session(folder, strict=False)
    assert session.valid, [str(i) for i in session.issues]
    assert session.log.end["status"] == "interrupted"
    assert session.meta.status == "interrupted" and session.meta.void_kind == "interrupted"
    assert words in session.meta.void_reason, session.meta.void_reason
    assert session.meta.cost_usd > 0


def test_sigkill_of_run_all_stops_its_workers_and_their_clis_and_ends_their_sessions(tmp_path, start):
    run = start()
    run.wait_streaming()
    workers = run.workers()
    assert len(workers) == 2, workers
    parent = run.proc.pid
    run.proc.kill()
    run.proc.wait(timeout=10)
    took = run.assert_all_gone()
    print(f"every worker and CLI gone {took:.2f} s after SIGKILL of run-all")
    for folder in run.running:
        _ended_interrupted(folder, f"SIGTERM: its run-all (pid {parent}) died")
    assert {r.status for r in scan(run.root)} == {"interrupted"}
    assert not (prepare(SessionSpec(condition="Sys", seed=2, model="sim:oracle", accounts=ACCOUNTS,
                                    out_root=run.root)).session_dir / "events.jsonl").exists()


@pytest.mark.parametrize("sig", [signal.SIGHUP], ids=["SIGHUP"])
def test_sighup_to_run_all_ends_its_sessions_like_sigterm(tmp_path, start, sig):
    run = start()
    run.wait_streaming()
    run.proc.send_signal(sig)
    out, err = run.proc.communicate(timeout=EVENT_TIMEOUT_S)
    assert run.proc.returncode == 3, err[-3000:]   # interrupted
    assert "ran 2 session(s): 2 interrupted" in out and f"interrupted by {sig.name}" in err, (out, err)
    run.assert_all_gone()
    for folder in run.running:
        _ended_interrupted(folder, f"{sig.name} to run-all (pid {run.proc.pid})")


def test_sigkill_of_a_worker_kills_its_cli_and_status_shows_its_session_unfinished(tmp_path, start):
    run = start()
    run.wait_streaming()
    victim_dir = run.running[0]
    victim = read_session(victim_dir, strict=False).meta.runner["pid"]
    assert victim in run.workers()
    os.kill(victim, signal.SIGKILL)
    out, err = run.proc.communicate(timeout=EVENT_TIMEOUT_S)
    run.assert_all_gone()
    rows = {r.path: r for r in scan(run.root)}
    row = rows[str(victim_dir.relative_to(run.root))]
    assert row.status == "unfinished" and row.cost_usd > 0, row
    other = read_session(run.running[1], strict=False)
    assert other.meta.status in ("interrupted", "completed"), (other.meta.status, err[-2000:])
