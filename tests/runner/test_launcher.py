"""The launcher between the runner and the CLI (study/runtimes/launcher.py), with a stand-in
program (``sleep``) instead of the CLI: its own process group, death with its parent, and the
stop of its group, also in its first milliseconds. The real CLI goes through the same launcher in
test_interruption_e2e.py and test_sdk_internals.py."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from study.runtimes.launcher import group_members, process_alive, stop_process_group, write_launcher

SLEEP = Path("/bin/sleep")


def _wait(condition, what: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def test_the_program_leads_its_own_group_and_the_group_is_stopped(tmp_path):
    proc = subprocess.Popen([str(write_launcher(tmp_path, SLEEP)), "60"])
    _wait(lambda: group_members(proc.pid) == [proc.pid], "the launcher made no process group of its own")
    _wait(lambda: os.readlink(f"/proc/{proc.pid}/exe") == os.path.realpath(SLEEP), "no exec")   # same pid
    took = asyncio.run(stop_process_group(proc.pid))
    assert proc.wait(timeout=5) == -signal.SIGTERM and took < 1.0


def test_a_stop_in_the_launcher_s_first_milliseconds_still_stops_it(tmp_path):
    launcher = write_launcher(tmp_path, SLEEP)
    for _ in range(5):
        proc = subprocess.Popen([str(launcher), "60"])
        asyncio.run(stop_process_group(proc.pid))   # at once: maybe before setpgid, maybe before exec
        assert proc.wait(timeout=5) < 0 and not group_members(proc.pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_the_program_dies_with_its_parent_even_on_sigkill(tmp_path):
    parent = subprocess.Popen([sys.executable, "-c", (   # the launcher is written by its parent, for its pid
        "import subprocess, sys, time\n"
        "from pathlib import Path\n"
        "from study.runtimes.launcher import write_launcher\n"
        f"p = subprocess.Popen([str(write_launcher(Path({str(tmp_path)!r}), Path({str(SLEEP)!r}))), '60'])\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    _wait(lambda: os.readlink(f"/proc/{child}/exe") == os.path.realpath(SLEEP), "the launcher did not exec")
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    _wait(lambda: not process_alive(child), "the program outlived its SIGKILLed parent", timeout_s=5)


def test_a_launcher_whose_parent_is_already_gone_does_not_start_the_program(tmp_path):
    launcher = write_launcher(tmp_path, SLEEP, parent_pid=1)   # "the runner" is not its parent
    result = subprocess.run([str(launcher), "60"], timeout=30)
    assert result.returncode == 71
