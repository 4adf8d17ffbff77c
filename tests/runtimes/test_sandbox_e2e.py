"""A sandbox that cannot start is the runtime's failure, never the agent's (issue 46), through the
study's runner and the real CLIs against the simulator (a month-end period, Plain: four turns).

- Claude Code without bubblewrap and socat: the session is refused before it starts, in one line
  saying what to install; with a bubblewrap that stops working after the session began, the first
  command that fails for it voids the session (the runner's probe confirms it), in one line.
- Codex CLI whose temporary folder holds its home (``TMPDIR=/tmp`` with the session under /tmp,
  bubblewrap installed: Codex then cannot make the link its sandbox helper runs from, and every
  command fails ``bwrap: execvp codex-linux-sandbox``): voided before the first call when the
  probe sees it, or at the first command that fails so; never a session scored 0 for the agent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from study.runner.preflight import PreflightError
from study.runner.session import SessionSpec, run_session
from study.runtimes.codex import pin

pytestmark = pytest.mark.e2e
CODEX = pytest.mark.skipif(pin.problem() is not None, reason=f"Codex CLI cannot run here: {pin.problem()}")
NO_BWRAP = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
BROKEN_BWRAP = "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"


def _run(tmp_path: Path, runtime: str) -> Path:
    return run_session(SessionSpec(study="month-end-close", condition="Plain", model="sim:oracle", accounts=1, seed=1,
                                   runtime=runtime, out_root=tmp_path / "sessions"))


def _meta(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text())


def _calls(folder: Path) -> list[dict]:
    return [e for line in (folder / "events.jsonl").read_text().splitlines()
            if (e := json.loads(line))["kind"] == "tool_call" and e["tool"] == "Bash"]


def test_claude_code_without_bubblewrap_refuses_the_session_before_it_starts(tmp_path, monkeypatch):
    from study.runtimes import sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda tool, path=None: None if tool in ("bwrap", "socat") else "/bin/true")
    with pytest.raises(PreflightError) as refused:
        _run(tmp_path, "claude-code")
    assert str(refused.value) == ("study month-end-close's sessions run the agent's commands in Claude Code's sandbox, "
                                  "which cannot start here: Claude Code's sandbox needs bubblewrap and socat, and neither "
                                  "is installed here: apt-get install bubblewrap socat")
    assert not (tmp_path / "sessions").exists()           # nothing was made


@NO_BWRAP
def test_claude_code_voids_the_session_when_its_sandbox_stops_starting(tmp_path, monkeypatch):
    from study.runtimes import claude_code
    from study.runtimes.claude_code import adapter
    from study.runtimes.sandbox import claude_problem

    broken = tmp_path / "bin"
    broken.mkdir()
    (broken / "bwrap").write_text(BROKEN_BWRAP)
    (broken / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", f"{broken}:{os.environ['PATH']}")
    monkeypatch.setattr(claude_code.ClaudeCode, "sandbox_problem", lambda self: None)   # it worked when it began
    asked: list[int] = []

    def worked_once(env=None):
        asked.append(1)
        return None if len(asked) == 1 else claude_problem(env)

    monkeypatch.setattr(adapter, "claude_problem", worked_once)
    folder = _run(tmp_path, "claude-code")
    meta = _meta(folder)
    assert (meta["status"], meta["voided"], meta["void_kind"]) == ("infrastructure_failure", True, "infrastructure_failure")
    assert meta["void_reason"] == ("the sandbox of the agent's commands stopped starting: bubblewrap cannot start a "
                                   "sandbox here, which Claude Code's sandbox needs: bwrap: No permissions to create a "
                                   "new namespace")
    first = _calls(folder)[0]
    assert first["ok"] is False and "bwrap: No permissions" in first["error"]
    assert "outcome" not in (folder / "events.jsonl").read_text()       # a voided run is not scored


@CODEX
@NO_BWRAP
@pytest.mark.parametrize("when", ["before-the-first-call", "at-a-command"])
def test_codex_voids_the_session_when_its_sandbox_cannot_start(tmp_path, monkeypatch, when):
    from study.runtimes.codex import adapter

    init = adapter.CodexSession.__init__

    def system_tmpdir(self, setup):      # Codex's home under its temporary folder: how it failed before issue 46
        init(self, setup)
        self.env["TMPDIR"] = "/tmp"

    monkeypatch.setattr(adapter.CodexSession, "__init__", system_tmpdir)
    if when == "at-a-command":           # the probe before the first call passed; the commands then fail
        real, asked = adapter.codex_problem, []
        monkeypatch.setattr(adapter, "codex_problem",
                            lambda *a, **k: asked.append(1) or (None if len(asked) == 1 else real(*a, **k)))
    folder = _run(tmp_path, "codex")
    assert str(folder).startswith("/tmp/")
    meta = _meta(folder)
    assert (meta["status"], meta["voided"]) == ("infrastructure_failure", True)
    said = "could not start" if when == "before-the-first-call" else "stopped starting"
    assert meta["void_reason"] == (f"the sandbox of the agent's commands {said}: Codex CLI's sandbox cannot start "
                                   "here: bwrap: execvp codex-linux-sandbox: No such file or directory")
    calls = _calls(folder)
    if when == "before-the-first-call":
        assert calls == []
    else:   # the first command ended the session; its exit status as the rollout had it by its hook (if at all)
        first = calls[0]
        assert "bwrap: execvp codex-linux-sandbox" in (first.get("error") or first.get("result"))
        assert first["exit_code"] is None or (first["exit_code"], first["ok"]) == (1, False)
    assert "outcome" not in (folder / "events.jsonl").read_text()


@NO_BWRAP
def test_study_claude_s_sandbox_keeps_a_projects_fsm_files_from_the_agents_commands(tmp_path):
    """``study claude`` in a project whose workflow names shell rules: the bundled CLI, run with the
    sandbox settings ``study claude`` gives it, lets a command write in the project but not into
    the FSM's frames, its workflow or the settings that wire its hooks (the simulator's agent runs
    the commands; the project's hooks are left out here: only the sandbox is under test)."""
    from study.runtimes.claude_code import command
    from study.runtimes.claude_code.pin import bundled_cli_path
    from study.runtimes.launcher import agent_path
    from study.sim import SimServer
    from study.sim.acting import Oracle, Shell, WorkspaceResponder, git_workspace

    project = git_workspace(tmp_path / "project", {"README.md": "a project\n"})
    (project / "workflows").mkdir()
    (project / "workflows" / "wf.yaml").write_text("workflow: W\ntools: [read, shell]\ninitial: S_a\nexit: S_b\n"
                                                   "states:\n  S_a: {allow: [read]}\n  S_b: {}\n"
                                                   "transitions:\n  - {from: S_a, to: S_b}\n")
    hook = 'study fsm hook pre-tool-use --frames .fsm --workflow workflows/wf.yaml --workspace "$CLAUDE_PROJECT_DIR"'
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(
        {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": hook}]}]}}))
    settings = command.sandbox_arguments(project)          # before the hooks are left out below: it reads them
    (project / ".claude" / "settings.json").write_text("{}")      # the CLI runs no hook of this test
    (project / ".fsm" / "main.json").write_text('{"state": "S_a"}')
    attempts = {"inside": "echo ok > notes.txt && cat notes.txt",
                "frames": "echo '{}' > .fsm/main.json", "new frame": "echo '{}' > .fsm/other.json",
                "workflow": "echo 'states: {}' >> workflows/wf.yaml", "settings": "echo '{\"hooks\": {}}' > .claude/settings.json"}
    responder = WorkspaceResponder(Oracle([Shell(c) for c in attempts.values()]))
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir(), tmp.mkdir()
    with SimServer(responder, 1, None, api="anthropic-messages") as sim:
        env = {**os.environ, **sim.cli_env(), "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"),
               "CLAUDE_CODE_TMPDIR": str(tmp), "PATH": agent_path()}
        done = subprocess.run([str(bundled_cli_path()), "-p", "Run the commands.", "--allowedTools", "Bash", *settings],
                              cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=180)
    steps = dict(responder.last.calls) if responder.last is not None else {}
    said = {name: steps.get(Shell(c)) for name, c in attempts.items()}
    assert all(said.values()), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert said["inside"].ok and (project / "notes.txt").read_text() == "ok\n"
    for name in ("frames", "new frame", "workflow"):
        assert not said[name].ok and "Read-only file system" in said[name].text, (name, said[name].text)
    # the CLI's own permission rules refuse a command writing its settings before the sandbox would
    assert not said["settings"].ok and (project / ".claude" / "settings.json").read_text() == "{}"
    assert (project / ".fsm" / "main.json").read_text() == '{"state": "S_a"}'
    assert not (project / ".fsm" / "other.json").exists()
    assert "states: {}" not in (project / "workflows" / "wf.yaml").read_text()
