"""The CLI never outlives its runner: a tiny launcher between the runner and the Claude Code CLI,
and the stop of the CLI's process group.

The SDK starts the CLI as ``[cli_path, args...]`` (``ClaudeAgentOptions.cli_path``, public API)
and offers no hook into the child before it runs. So ``cli_path`` points at a two-line shell
script (``write_launcher``) that execs this file with Python (``-I -S``: no site, no user
environment; standard library only), which, in the CLI's own process before it becomes the CLI:

1. makes the process the leader of its own process group (``setpgid(0, 0)``): a Ctrl-C at the
   terminal or a SIGTERM to the runner's group reaches the runner only, which then stops the CLI
   itself, first (``stop_process_group``: SIGTERM to the whole group, SIGKILL after a short
   grace), before it writes ``session_end``; anything the CLI starts is stopped with it;
2. asks the kernel to SIGKILL it when its parent (the runner) dies (Linux
   ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through ctypes). This is what holds when the runner is
   SIGKILLed and can do nothing: the CLI dies with it instead of going on asking the model,
   billed and recorded nowhere. It then checks that its parent is still the runner (the runner
   may have died before the ``prctl``), and exits if not;
3. execs the bundled CLI (``sdk.bundled_cli_path()``): same pid, so the pid the SDK knows is the
   CLI's, and the process group id is that pid.

Why not a watchdog pipe (the CLI's helper reading a pipe whose other end only the runner holds):
the SDK closes every inherited descriptor when it starts the CLI (it cannot pass one), and a pipe
needs a process that stays alive beside the CLI to watch it; the death signal needs neither and
is delivered by the kernel. Limits: ``PR_SET_PDEATHSIG`` is Linux-only (elsewhere step 2 is
skipped, and only SIGINT/SIGTERM to the runner stop the CLI); it fires when the *thread* that
started the CLI exits, which for the runner is the thread running the session's event loop, and
it kills the CLI itself, not processes the CLI started (with built-in tools off and the MCP
servers in the runner's process it starts none).
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import time
from pathlib import Path

LAUNCHER_NAME = "claude-launcher"
#: Seconds between SIGTERM to the CLI's process group and SIGKILL.
GRACE_S = 2.0
_PR_SET_PDEATHSIG = 1


def write_launcher(folder: Path, cli: Path, parent_pid: int | None = None) -> Path:
    """Write the executable launcher script for ``cli`` into ``folder``; return its path (the
    ``cli_path`` to give the SDK). ``parent_pid`` is the runner's pid (default: this process)."""
    parent = os.getpid() if parent_pid is None else parent_pid
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / LAUNCHER_NAME
    command = " ".join(shlex.quote(str(x)) for x in (sys.executable, "-I", "-S", Path(__file__).resolve(), parent, cli))
    script.write_text(f"#!/bin/sh\nexec {command} \"$@\"\n", encoding="utf-8")
    script.chmod(0o755)
    return script


def arm_parent_death_signal(sig: int) -> int | None:
    """Ask the kernel to send ``sig`` to this process when its parent (the thread that started
    it) dies (Linux ``prctl(PR_SET_PDEATHSIG)`` through ctypes). Returns None when armed (or not
    on Linux, where there is nothing to arm), else the errno of the failed call. The caller then
    checks ``os.getppid()``: the parent may have died before the signal was armed."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) != 0:
        return ctypes.get_errno()
    return None


def _die_with_parent(parent: int) -> None:
    failed = arm_parent_death_signal(signal.SIGKILL)
    if failed is not None:
        sys.stderr.write(f"claude-launcher: prctl(PR_SET_PDEATHSIG) failed: errno {failed}\n")
        os._exit(70)
    if os.getppid() != parent:  # the runner died before the death signal was armed
        os._exit(71)


def main(argv: list[str]) -> None:
    """``launcher.py PARENT_PID CLI [ARGS...]``: own process group, die with the parent, exec CLI."""
    parent, cli, args = int(argv[0]), argv[1], argv[2:]
    os.setpgid(0, 0)
    _die_with_parent(parent)
    os.execv(cli, [cli, *args])


# ----- the runner's side --------------------------------------------------------------------------

def proc_stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (state, ppid, pgrp, ...), or
    None when there is no such process (or no /proc)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()


def process_alive(pid: int) -> bool:
    """The process exists and has not exited (a zombie has exited)."""
    if not Path("/proc/self/stat").exists():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    stat = proc_stat(pid)
    return stat is not None and stat[0] != "Z"


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid`` (Linux: from /proc)."""
    if not Path("/proc/self/stat").exists():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return []
        return [pgid]
    members = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (fields := proc_stat(int(entry.name))) is not None:
            if fields[0] != "Z" and int(fields[2]) == pgid:
                members.append(int(entry.name))
    return members


async def _wait_gone(pid: int, timeout_s: float) -> bool:
    import asyncio  # here, not at the top: the launcher itself stays a few imports long

    deadline = time.monotonic() + timeout_s
    while process_alive(pid) or group_members(pid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.02)
    return True


async def stop_process_group(pid: int, grace_s: float = GRACE_S) -> float:
    """Stop the CLI ``pid`` and every process of its group: SIGTERM, then SIGKILL after
    ``grace_s``; wait until none is left. Returns the seconds it took. (The pid is signalled too:
    in its first milliseconds the launcher has not made its own group yet.)"""
    started = time.monotonic()
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 5.0)):
        for send in (os.killpg, os.kill):
            try:
                send(pid, sig)
            except ProcessLookupError:
                pass
        if await _wait_gone(pid, wait_s):
            break
    return time.monotonic() - started


if __name__ == "__main__":
    main(sys.argv[1:])


def agent_path() -> str:
    """``PATH`` for an agent's shell in a workspace: the folder of the Python the runner runs on
    first (``python``, ``python3`` and the packages of this environment: a protocol's training
    script needs them), then the runner's own ``PATH``."""
    import sys

    here = str(Path(sys.executable).parent)
    rest = [p for p in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep) if p and p != here]
    return os.pathsep.join([here, *rest])
