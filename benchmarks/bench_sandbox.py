"""Benchmark: what the OS sandbox costs a workspace's commands, on each runtime (issue 46).

Run: ``python benchmarks/bench_sandbox.py`` (options: ``--commands N``, ``--runtime
claude-code|codex|both``, ``--direct N``). Offline, against the simulator: a scripted agent runs
``--commands`` shell commands (``python3 -c "print(1)"``, a short program as agents run them) in a
scratch git workspace, once with the runtime's sandbox as a workspace session sets it (Claude
Code: ``--settings`` with ``study.runtimes.sandbox.claude_settings`` and a private
``CLAUDE_CODE_TMPDIR``; Codex CLI: ``workspace-write`` with a ``TMPDIR`` of its own) and once
without (Claude Code's sandbox off; Codex ``danger-full-access``). A command's time is the time
between the simulator's request that asked for it and the next one (the CLI runs the command,
its permission check, and sends the result back): median and 90th percentile per mode, their
ratio, and the difference per command. ``--direct`` also times the same program started with and
without bubblewrap around it (what bubblewrap alone costs, without either CLI). The numbers are
measured in one run of this script on this machine; they vary with the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from study.runtimes.launcher import agent_path  # noqa: E402
from study.runtimes.sandbox import CODEX_TMPDIR, claude_settings  # noqa: E402
from study.sim import SimServer  # noqa: E402
from study.sim.acting import Oracle, Shell, WorkspaceResponder, git_workspace  # noqa: E402

COMMAND = 'python3 -c "print(1)"'


class Timed(WorkspaceResponder):
    """The responder, noting when each request came."""

    def __init__(self, policy):
        super().__init__(policy)
        self.times: list[float] = []

    def respond(self, api, body):
        self.times.append(time.monotonic())
        return super().respond(api, body)


def _intervals(responder: Timed, commands: int) -> list[float]:
    times = responder.times
    return [b - a for a, b in zip(times, times[1:])][:commands]


def claude(root: Path, commands: int, sandboxed: bool) -> list[float]:
    from study.runtimes.claude_code.pin import bundled_cli_path

    workspace = git_workspace(root / "workspace", {"README.md": "bench\n"})
    (root / "home").mkdir()
    (root / "tmp").mkdir()
    responder = Timed(Oracle([Shell(f"{COMMAND} # {k}") for k in range(commands)]))
    with SimServer(responder, 1, None, api="anthropic-messages") as sim:
        env = {**os.environ, **sim.cli_env(), "HOME": str(root / "home"), "CLAUDE_CONFIG_DIR": str(root / "home" / ".claude"),
               "CLAUDE_CODE_TMPDIR": str(root / "tmp"), "PATH": agent_path()}
        argv = [str(bundled_cli_path()), "-p", "Run the commands.", "--allowedTools", "Bash"]
        if sandboxed:
            argv += ["--settings", json.dumps(claude_settings())]
        done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=600)
    _check(done, responder, commands)
    return _intervals(responder, commands)


def codex(root: Path, commands: int, sandboxed: bool) -> list[float]:
    from study.runtimes.codex.config import workspace_config, write_home
    from study.runtimes.codex.pin import binary_env, binary_path

    workspace = git_workspace(root / "workspace", {"README.md": "bench\n"})
    home = root / "home" / ".codex"
    responder = Timed(Oracle([Shell(f"{COMMAND} # {k}") for k in range(commands)]))
    with SimServer(responder, 1, None, api="openai-responses") as sim:
        config = workspace_config(model="gpt-5.4-mini", base_url=sim.base_url_for(), env_key="BENCH_KEY",
                                  workspace=workspace, commits=False)
        if not sandboxed:
            config["sandbox_mode"] = "danger-full-access"
            del config["sandbox_workspace_write"]
        write_home(home, config, {"hooks": {}})
        (home / CODEX_TMPDIR).mkdir()
        env = {"HOME": str(root / "home"), "CODEX_HOME": str(home), "TMPDIR": str(home / CODEX_TMPDIR),
               "BENCH_KEY": "sim", "SHELL": "/bin/sh", "PATH": agent_path(), **binary_env()}
        argv = [str(binary_path()), "exec", "--json", "--skip-git-repo-check", "--strict-config", "Run the commands."]
        done = subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                              timeout=600)
    _check(done, responder, commands)
    return _intervals(responder, commands)


def _check(done: subprocess.CompletedProcess, responder: Timed, commands: int) -> None:
    steps = responder.last.calls if responder.last is not None else []
    if done.returncode != 0 or len(steps) < commands or not all(o.ok for _a, o in steps[:commands]):
        said = [o.text[:200] for _a, o in steps if not o.ok][:1]
        raise SystemExit(f"the CLI did not run the commands (exit {done.returncode}): {said or done.stderr[-500:]}")


def direct(runs: int) -> tuple[list[float], list[float]]:
    """The program alone, and inside bubblewrap (read-only root, /dev, /proc, no network)."""
    argv = ["python3", "-c", "print(1)"]
    wrapped = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--unshare-net", "--die-with-parent", "--", *argv]
    plain, boxed = [], []
    for _ in range(runs):
        for out, cmd in ((plain, argv), (boxed, wrapped)):
            start = time.perf_counter()
            subprocess.run(cmd, capture_output=True, check=True)
            out.append(time.perf_counter() - start)
    return plain, boxed


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(label: str, sandboxed: list[float], plain: list[float]) -> None:
    on, off = statistics.median(sandboxed), statistics.median(plain)
    print(f"{label:<12} sandboxed    median {1000 * on:7.1f} ms  p90 {_ms(sandboxed, 0.9):7.1f} ms  ({len(sandboxed)} commands)")
    print(f"{'':<12} unsandboxed  median {1000 * off:7.1f} ms  p90 {_ms(plain, 0.9):7.1f} ms")
    print(f"{'':<12} ratio {on / off:.2f} (sandboxed / unsandboxed, medians), {1000 * (on - off):+.1f} ms a command")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=20)
    parser.add_argument("--runtime", choices=["claude-code", "codex", "both"], default="both")
    parser.add_argument("--direct", type=int, default=20, help="runs of the program alone, with and without bubblewrap")
    args = parser.parse_args()
    print(f"each command: {COMMAND}; a command's time: from the request that asked for it to the next request")
    runtimes = ["claude-code", "codex"] if args.runtime == "both" else [args.runtime]
    for runtime in runtimes:
        if runtime == "codex":
            from study.runtimes.codex.pin import problem

            if problem() is not None:
                print(f"Codex CLI    skipped: {problem()}")
                continue
        run = claude if runtime == "claude-code" else codex
        results = {}
        for sandboxed in (True, False):
            with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp:
                results[sandboxed] = run(Path(tmp), args.commands, sandboxed)
        report("Claude Code" if runtime == "claude-code" else "Codex CLI", results[True], results[False])
    if args.direct and shutil.which("bwrap"):
        plain, boxed = direct(args.direct)
        report("bwrap alone", boxed, plain)


if __name__ == "__main__":
    main()
