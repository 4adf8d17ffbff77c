"""``study codex --workflow`` in an ordinary project (issue 49, item 7), offline: the real Codex CLI
against the simulator's scripted agent, in a scratch git repository with a package of its own and
a virtual environment activated (made from the Python running the tests: its ``python`` is not the
system's). The agent's commands run the project's Python, the venv's, even where the launcher of
``study`` put another Python ahead of it on PATH, as pyenv's shims do; they commit; and the sandbox
still refuses a write outside the project, in the git folder's hooks and config, in the FSM's
frames, and the network. Codex's sandbox runs its helper from its home, here under /tmp (the
test's folder). One session, a few seconds. Before the fix the commands ran in a login shell
(``python: command not found``: /etc/profile resets PATH) with ``.git`` read-only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from study.runtimes.codex import pin
from study.runtimes.codex.command import git_dirs, venv_first
from study.sim import SimServer
from study.sim.acting import Oracle, Shell, WorkspaceResponder, git_workspace

WORKFLOW = """\
workflow: Greet
tools: [read, shell]
initial: S_work
exit: S_done
pause: [S_done]
states:
  S_work:
    allow:
      - {tool: read, path: "**"}
      - {tool: shell, command: "python *"}
      - {tool: shell, command: "git *"}
  S_done: {}
transitions:
  - from: S_work
    to: S_done
    automatic: true
    guard: {hard: [{command: "git log -1 --format=%s | grep -q 'Add the greeting'"}]}
"""
FILES = {
    "greet/__init__.py": "",
    # the project's program: writes which Python ran it
    "greet/__main__.py": "import os, sys\nopen('greeting.txt', 'w').write(f'{sys.prefix} {os.environ.get(\"VIRTUAL_ENV\")}\\n')\n",
    "workflows/greet.yaml": WORKFLOW,
    ".gitignore": ".venv/\n.fsm/\n",
}
RUN = Shell("python -m greet")
ADD, COMMIT = Shell("git add greeting.txt"), Shell("git commit -qm 'Add the greeting'")
OUTSIDE = Shell("python -c \"open('../outside.txt', 'w').write('x')\"")
HOOK = Shell("python -c \"open('.git/hooks/pre-commit', 'w').write('#!/bin/sh')\"")
FRAMES = Shell("python -c \"open('.fsm/main.json', 'a').write(' ')\"")
NETWORK = Shell("python -c \"import socket; socket.socket()\"")


@pytest.mark.e2e
@pytest.mark.skipif(pin.problem() is not None, reason=f"Codex CLI cannot run here: {pin.problem()}")
def test_study_codex_runs_the_projects_python_and_commits_and_the_sandbox_still_holds(tmp_path):
    project = git_workspace(tmp_path / "project", FILES)
    venv = project / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    study_bin = str(Path(sys.executable).parent)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "sim", "VIRTUAL_ENV": str(venv),
           # the venv activated, then a launcher's Python put ahead of it (pyenv's shim for `study`)
           "PATH": os.pathsep.join([study_bin, str(venv / "bin"), os.environ.get("PATH", os.defpath)]),
           "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@example.invalid",
           "GIT_COMMITTER_NAME": "agent", "GIT_COMMITTER_EMAIL": "agent@example.invalid"}
    study = [sys.executable, "-m", "study.cli"]
    subprocess.run([*study, "fsm", "enter", "Greet", "--frames", ".fsm", "--workflow", "workflows/greet.yaml"],
                   cwd=project, env=env, check=True, capture_output=True)
    responder = WorkspaceResponder(Oracle([RUN, OUTSIDE, HOOK, FRAMES, NETWORK, ADD, COMMIT]))
    with SimServer(responder, 1, None, api="openai-responses") as sim:
        done = subprocess.run([*study, "codex", "--workflow", "workflows/greet.yaml", "--frames", ".fsm", "--base-url",
                               sim.base_url_for(), "--max-blocks", "1", "--", "exec", "Greet, then commit."],
                              cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    steps = dict(responder.last.steps)
    assert steps[RUN].ok, steps[RUN].text   # before: "python: command not found"
    prefix, active = (project / "greeting.txt").read_text().split()
    assert Path(prefix) == venv and Path(active) == venv   # the venv's Python, with VIRTUAL_ENV
    assert steps[ADD].ok and steps[COMMIT].ok, steps[COMMIT].text   # before: ".git/index.lock: Read-only file system"
    log = subprocess.run(["git", "log", "--format=%s", "--name-only", "-1"], cwd=project, capture_output=True, text=True)
    assert log.stdout.split() == ["Add", "the", "greeting", "greeting.txt"]
    for refused in (OUTSIDE, HOOK, FRAMES):   # admitted by the gate, refused by the sandbox
        assert steps[refused].denied is None and "Read-only file system" in steps[refused].text, steps[refused].text
    assert "Operation not permitted" in steps[NETWORK].text
    assert not (tmp_path / "outside.txt").exists() and not (project / ".git" / "hooks" / "pre-commit").exists()


def test_the_agents_python_is_the_activated_venvs(tmp_path):
    env = {"VIRTUAL_ENV": "/p/.venv", "PATH": os.pathsep.join(["/shim/bin", "/p/.venv/bin", "/usr/bin"])}
    assert venv_first(env) == os.pathsep.join(["/p/.venv/bin", "/shim/bin", "/usr/bin"])
    assert venv_first({"PATH": "/a:/b"}) == "/a:/b"   # no venv: the PATH as it is


def test_the_git_folders_the_agent_commits_to(tmp_path):
    tmp_path = tmp_path.resolve()
    repo = git_workspace(tmp_path / "repo", {"a.txt": "a\n", "sub/b.txt": "b\n"})
    assert git_dirs(repo) == git_dirs(repo / "sub") == [repo / ".git"]   # from a folder of the repository too
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "linked")], cwd=repo, check=True, capture_output=True)
    # a linked worktree: its own git folder and the repository's common one, where the objects are
    assert git_dirs(tmp_path / "linked") == [repo / ".git" / "worktrees" / "linked", repo / ".git"]
    (tmp_path / "plain").mkdir()
    assert git_dirs(tmp_path / "plain") == []
