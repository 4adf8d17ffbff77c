"""The agent CLI on the host, its shell commands in the session container (docs/swebench.md, "How
the agent's commands run in the instance's environment"): the real Claude Code (the bundled CLI,
``CLAUDE_CODE_SHELL``) and the real Codex CLI (its login shell from a password database of the
session's own) run against the simulator's scripted agent; each command runs in the instance's
image (``/testbed`` is there, the image's pytest passes the repository's tests), without network,
its exit status reaching the model, and a commit made in the container is the workspace's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from study.families.swebench import container as c
from study.families.swebench import task_repo
from study.sim import SimServer
from study.sim.acting import Oracle, Shell, WorkspaceResponder

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("swebench-docker")]
CALENDAR = "studyfixtures__calendarkit-12"
INSIDE = Shell("test -d /testbed && echo IN-CONTAINER; python3 -m pytest -q 2>&1 | tail -1; exit 3")
OFFLINE = Shell("python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 80), timeout=3)' 2>&1 | tail -1")
COMMIT = Shell("echo notes > investigation.md && git add investigation.md && git -c user.name=a -c user.email=a@b.invalid "
               "commit -qm 'Investigation notes' && git log --format=%s -1")


def _workspace(tmp_path):
    instance = next(i for i in task_repo.instances() if i.instance_id == CALENDAR)
    workspace = tmp_path / "ws"
    task_repo.make_repository(instance, workspace)
    return workspace


def _check(responder, workspace):
    steps = dict(responder.last.calls)
    assert not steps[INSIDE].ok and "IN-CONTAINER" in steps[INSIDE].text and "7 passed" in steps[INSIDE].text
    assert "Network is unreachable" in steps[OFFLINE].text
    assert steps[COMMIT].ok and "Investigation notes" in steps[COMMIT].text
    log = subprocess.run(["git", "log", "--format=%s", "-1"], cwd=workspace, capture_output=True, text=True).stdout
    assert log == "Investigation notes\n", "the container's commit is the workspace's"


def test_claude_code_runs_its_bash_commands_in_the_session_container(instance_image, tmp_path):
    workspace, home, tmp = _workspace(tmp_path), tmp_path / "home", tmp_path / "tmp"
    responder = WorkspaceResponder(Oracle([INSIDE, OFFLINE, COMMIT]))
    with c.SessionContainer(instance_image, workspace, mounts=(home, tmp)) as box, \
            SimServer(responder, api="anthropic-messages") as sim:
        shell = c.write_shell(box, tmp_path / "bin")
        env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp), **sim.cli_env(), "CLAUDE_CODE_SHELL": str(shell),
               "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}"}
        done = subprocess.run(["study", "claude", "-p", "Run the commands.", "--allowedTools", "Bash"], cwd=workspace,
                              env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Exit code 3" in dict(responder.last.calls)[INSIDE].text, "the exit status reaches the model"
    _check(responder, workspace)


def test_codex_runs_its_commands_in_the_session_container(instance_image, tmp_path):
    from study.runtimes.codex import pin
    from study.runtimes.codex.config import write_workspace_home

    if pin.problem():
        pytest.skip(f"Codex CLI cannot run here: {pin.problem()}")
    if os.getuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("Codex's shell comes from the password database: a private one needs root and unshare")
    workspace, home, tmp = _workspace(tmp_path), tmp_path / "codex-home", tmp_path / "tmp"
    responder = WorkspaceResponder(Oracle([INSIDE, OFFLINE, COMMIT]))
    with c.SessionContainer(instance_image, workspace, mounts=(home, tmp)) as box, \
            SimServer(responder, 1, None, api="openai-responses") as sim:
        shell = c.write_shell(box, tmp_path / "bin")
        write_workspace_home(home, hook_commands={}, model="gpt-5.4-mini", base_url=sim.base_url_for(),
                             env_key="SIM_KEY", workspace=workspace)
        config = home / "config.toml"
        # the container is the sandbox: Codex's own would refuse the docker socket to the shell
        config.write_text(config.read_text().replace('sandbox_mode = "workspace-write"', 'sandbox_mode = "danger-full-access"'))
        env = {**os.environ, "HOME": str(tmp_path / "home"), "TMPDIR": str(tmp), "CODEX_HOME": str(home),
               "SIM_KEY": "sim", **pin.binary_env()}
        from study.runtimes.codex import login_shell

        prefix = login_shell.prefix(shell, tmp_path / "etc")
        done = subprocess.run([*prefix, str(pin.binary_path()), "exec", "--json", "--dangerously-bypass-hook-trust",
                               "Run the commands."], cwd=workspace, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    _check(responder, workspace)
