"""SIGTERM to ``run-all`` (its main process alone): nothing more starts, the running sessions end
as ``interrupted`` with their CLIs stopped, and ``--rerun-voided`` plans to rerun the interrupted
sessions and run the one never started. Real CLI against the simulator; the test waits on events
in the sessions' logs, never on a time window. (The rerun itself, from scratch with the voided
attempt kept as attempt-1, is the same for every voided session: test_matrix_e2e.py reruns a
killed runner's.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from study.runner.matrix import plan_matrix
from study.runtimes.launcher import proc_stat, process_alive
from study.runtimes.claude_code.sdk import bundled_cli_path
from study.runner.session import SessionSpec, prepare
from study.session_io.reader import log_events, read_session

pytestmark = pytest.mark.e2e

EVENT_TIMEOUT_S = 300
ACCOUNTS = 12

MATRIX = f"""
import os, sys
from pathlib import Path
from study.runner.matrix import MatrixInterrupted, run_matrix
from study.runner.session import SessionSpec
specs = [SessionSpec(condition=c, seed=2, model="sim:oracle", accounts={ACCOUNTS}, out_root=Path(sys.argv[1]))
         for c in ("Plain", "Remind", "Sys")]
try:
    run_matrix(specs, jobs=2, stream=open(os.devnull, "w"), refresh_s=0.1)
except MatrixInterrupted as exc:
    print("interrupted", sorted(s for _, s in exc.result.ran), [w for _, w in exc.result.skipped], flush=True)
    sys.exit(130)
"""


def _spec(root: Path, condition: str) -> SessionSpec:
    return SessionSpec(condition=condition, seed=2, model="sim:oracle", accounts=ACCOUNTS, out_root=root)


def _clis() -> list[int]:
    cli = str(bundled_cli_path())
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.readlink(f"{entry.path}/exe") == cli:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(ended)"


def _descends_from(pid: int, ancestor: int) -> bool:
    while pid > 1:
        stat = proc_stat(pid)
        if stat is None:
            return False
        pid = int(stat[1])
        if pid == ancestor:
            return True
    return False


def test_sigterm_to_run_all_interrupts_the_running_sessions_and_starts_nothing_more(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", MATRIX, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    running = [prepare(_spec(tmp_path, c)).session_dir for c in ("Plain", "Remind")]
    deadline = time.monotonic() + EVENT_TIMEOUT_S
    while not all(any(e["kind"] == "usage" for e in log_events(d / "events.jsonl"))
                  for d in running if (d / "events.jsonl").exists()) or not all((d / "events.jsonl").exists() for d in running):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the two first sessions did not both stream a response; stderr:\n{proc.stderr.read()[-3000:]}")
        time.sleep(0.02)
    clis = [p for p in _clis() if _descends_from(p, proc.pid)]
    # one CLI per running session (the one streaming to the SDK); the binary may also run briefly
    # for something else (the SDK's version check, Claude Code's own ripgrep), not a session
    sessions_clis = [p for p in clis if "stream-json" in _cmdline(p)]
    assert len(sessions_clis) == 2, {p: _cmdline(p) for p in clis}
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=EVENT_TIMEOUT_S)
    assert proc.returncode == 130, err[-3000:]
    assert out.startswith("interrupted ['interrupted', 'interrupted'] ['not started: run-all was interrupted']"), out
    assert not any(process_alive(p) for p in clis)
    for folder in running:
        session = read_session(folder, strict=False)
        assert session.valid and session.log.end["status"] == "interrupted", [str(i) for i in session.issues]
        assert session.meta.void_kind == "interrupted"
    assert not (prepare(_spec(tmp_path, "Sys")).session_dir / "events.jsonl").exists()

    # --rerun-voided: the interrupted sessions are rerun, the one never started is run
    planned = plan_matrix([_spec(tmp_path, c) for c in ("Plain", "Remind", "Sys")], rerun_voided=True)
    assert [p.action for p in planned] == ["rerun", "rerun", "run"]
