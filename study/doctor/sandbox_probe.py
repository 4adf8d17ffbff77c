"""``study doctor``'s workspace command on a runtime: does the agent's shell run in its sandbox here?

A workspace session (``study.families.workspace``) runs the agent's commands in the runtime's OS
sandbox (``study.runtimes.sandbox``), and a sandbox that cannot start voids it. The probe runs
the installed CLI as such a session configures it, in a scratch git workspace under a temporary
folder (so also with Codex's home under /tmp), against the simulator, whose scripted agent runs
two commands: one that writes inside the workspace, which must succeed, and one that writes
beside it, which the sandbox must refuse. It says which of them happened and, when the sandbox
cannot start, why, in one line (bubblewrap's or Codex's own words), with what to do. Claude Code
is run with the sandbox settings of a session (``claude_settings``, a private
``CLAUDE_CODE_TMPDIR``), Codex CLI with a workspace session's home (``write_workspace_home``,
``TMPDIR`` of its own), each first through its own probe (``claude_problem``, ``codex_problem``).
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

from .probe import Finding

CHECK = "sandbox"
#: Seconds the CLI may take for the two commands.
TIMEOUT_S = 180
INSIDE = "echo sandboxed > inside.txt && cat inside.txt"
OUTSIDE = "echo escaped > ../outside.txt"


def run_sandbox_probe(runtime: str) -> Finding:
    """Run one workspace command (and one write outside) on ``runtime``; never raises."""
    try:
        with tempfile.TemporaryDirectory(prefix="study-doctor-sandbox-") as tmp:
            return _probe(runtime, Path(tmp))
    except Exception as exc:   # the doctor must report, not crash
        return Finding(CHECK, False, f"could not run: {type(exc).__name__}: {exc}", "")


def _probe(runtime: str, root: Path) -> Finding:
    from study.sim import SimServer
    from study.sim.acting import Oracle, Shell, WorkspaceResponder, git_workspace

    workspace = git_workspace(root / "workspace", {"README.md": "the doctor's scratch workspace\n"})
    home = root / "home"
    home.mkdir()
    responder = WorkspaceResponder(Oracle([Shell(INSIDE), Shell(OUTSIDE)]))
    if runtime == "claude-code":
        from study.runtimes.sandbox import INSTALL, claude_problem

        problem = claude_problem()
        if problem is not None:
            return Finding(CHECK, False, f"a workspace session would be refused: {problem}", INSTALL)
        with SimServer(responder, 1, None, api="anthropic-messages") as sim:
            done = _run_claude(sim, workspace, home, root)
    else:
        with SimServer(responder, 1, None, api="openai-responses") as sim:
            problem, done = _run_codex(sim, workspace, home)
        if problem is not None:
            return Finding(CHECK, False, f"a workspace session would be voided: {problem}",
                           "keep Codex's home out of its TMPDIR, or see docs/runtimes.md (\"In a workspace\")")
    view = responder.last
    steps = dict(view.calls) if view is not None else {}
    inside, outside = steps.get(Shell(INSIDE)), steps.get(Shell(OUTSIDE))
    if inside is None or outside is None:
        said = (done.stderr or done.stdout or "").strip().splitlines()
        return Finding(CHECK, False, f"the CLI ran no command (exit {done.returncode}): {said[-1] if said else 'no output'}",
                       "")
    if not inside.ok or "sandboxed" not in inside.text:
        first = next((line for line in inside.text.splitlines() if line.strip() and not line.startswith("Exit code")),
                     inside.text.strip())
        return Finding(CHECK, False, f"a command in the workspace failed: {first}", "")
    if outside.ok or (root / "outside.txt").exists():
        return Finding(CHECK, False, "a command wrote beside the workspace: the sandbox is not on", "")
    return Finding(CHECK, True, "a command ran in the workspace in the sandbox; its write beside the workspace was "
                                "refused (Read-only file system)" if "Read-only" in outside.text
                   else "a command ran in the workspace in the sandbox; its write beside the workspace was refused")


def _run_claude(sim, workspace: Path, home: Path, root: Path) -> subprocess.CompletedProcess:
    from study.runtimes.claude_code.pin import bundled_cli_path
    from study.runtimes.launcher import agent_path
    from study.runtimes.sandbox import claude_settings

    tmpdir = root / "tmp"
    tmpdir.mkdir()
    env = {**os.environ, **sim.cli_env(), "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
           "CLAUDE_CODE_TMPDIR": str(tmpdir), "PATH": agent_path()}
    argv = [str(bundled_cli_path()), "-p", "Run the two commands.", "--allowedTools", "Bash",
            "--settings", json.dumps(claude_settings())]
    return subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=TIMEOUT_S)


def _run_codex(sim, workspace: Path, home: Path) -> tuple[str | None, subprocess.CompletedProcess | None]:
    from study.runtimes.codex.config import write_workspace_home
    from study.runtimes.codex.pin import binary_env, binary_path
    from study.runtimes.launcher import agent_path
    from study.runtimes.sandbox import CODEX_TMPDIR, codex_problem

    codex_home = home / ".codex"
    write_workspace_home(codex_home, hook_commands={}, model="gpt-5.4-mini", base_url=sim.base_url_for(),
                         env_key="STUDY_DOCTOR_KEY", workspace=workspace, commits=False)
    (codex_home / CODEX_TMPDIR).mkdir()
    env = {"HOME": str(home), "CODEX_HOME": str(codex_home), "TMPDIR": str(codex_home / CODEX_TMPDIR),
           "STUDY_DOCTOR_KEY": "sim", "SHELL": "/bin/sh", "PATH": agent_path(), **binary_env()}
    binary = binary_path()
    problem = codex_problem(binary, env, workspace)
    if problem is not None:
        return problem, None
    argv = [str(binary), "exec", "--json", "--skip-git-repo-check", "--strict-config", "Run the two commands."]
    return None, subprocess.run(argv, cwd=workspace, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                                timeout=TIMEOUT_S)
