"""End to end: the FSM gating the CLIs' own tools in a scratch project, offline, on the real
Claude Code and the real Codex CLI against the simulator's workspace agents (study.sim.acting).

The project is docs/fsm.md's example (examples/fsm-workspace): a state that allows one command
(``python3 train.py*``, no absolute path) and the edit of one file (``config.py``). Claude Code is
wired as docs/fsm.md says (its ``.claude/settings.json`` block, ``study claude -p``), Codex CLI by
``study codex --workflow`` (the ``apply_patch`` tool: a model Codex has catalog metadata for). A
drifter edits ``train.py``, runs ``rm -f config.py`` and a command naming an absolute path, tries
to end its turn early, then does the allowed edit and command; the gate's reasons are read in the
simulator's requests. A workspace session's own Codex home (``write_workspace_home``, a model
without metadata, so its patches are shell heredocs) commits and has no network; SIGTERM
mid-command leaves no process on either CLI. Each session runs once per module (a few seconds).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from study.runtimes.codex import pin
from study.runtimes.codex.config import write_workspace_home
from study.runtimes.sandbox import CODEX_TMPDIR
from study.sim import SimServer
from study.sim.acting import Drifter, EditFile, Oracle, Shell, WorkspaceResponder, WriteFile, git_workspace

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "fsm-workspace"
DOC = (REPO / "docs" / "fsm.md").read_text()
PROMPT = "Set the learning rate to 0.01 and train once."
SET_LR = EditFile("config.py", "LEARNING_RATE = 0.1", "LEARNING_RATE = 0.01")
TRAIN = Shell("python3 train.py")
NO_CODEX = pytest.mark.skipif(pin.problem() is not None, reason=f"Codex CLI cannot run here: {pin.problem()}")


def _env(root: Path, **extra: str) -> dict[str, str]:
    """The user's environment, with ``study`` on PATH and a home of the test's own."""
    return {**os.environ, "HOME": str(root / "home"), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@example.invalid", "GIT_COMMITTER_NAME": "agent",
            "GIT_COMMITTER_EMAIL": "agent@example.invalid", **extra}


def _project(root: Path, workflow: str | None = None) -> Path:
    """The example project as a git repository, its workflow entered (docs/fsm.md's commands)."""
    files = {p: (EXAMPLE / p).read_text() for p in ("config.py", "train.py", "workflows/train.yaml")}
    if workflow is not None:
        files["workflows/train.yaml"] = workflow
    project = git_workspace(root / "project", files)
    name = re.search(r"^workflow: (\S+)", files["workflows/train.yaml"], re.MULTILINE).group(1)
    subprocess.run(["study", "fsm", "enter", name, "--frames", ".fsm", "--workflow", "workflows/train.yaml"], cwd=project,
                   env=_env(root), check=True, capture_output=True)
    return project


def _wire_claude(project: Path) -> None:
    """``.claude/settings.json`` exactly as docs/fsm.md's built-in tools example gives it."""
    settings = re.findall(r"```json\n(.*?)```", DOC, flags=re.DOTALL)[2]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(settings)


def _argv(runtime: str, sim: SimServer, model: str = "gpt-5.5") -> list[str]:
    if runtime == "claude-code":
        return ["study", "claude", "-p", PROMPT, "--allowedTools", "Read,Edit,Bash,Write"]
    return ["study", "codex", "--workflow", "workflows/train.yaml", "--frames", ".fsm", "--base-url", sim.base_url_for(),
            "--model", model, "--", "exec", PROMPT]


class Session:
    """One finished session: the project, what the simulator read of the agent's context, the
    FSM's frame, the CLI's exit code."""

    def __init__(self, root: Path, project: Path, responder: WorkspaceResponder, done: subprocess.CompletedProcess):
        self.root, self.project, self.responder, self.done = root, project, responder, done
        self.view = responder.last
        self.frame = json.loads((project / ".fsm" / "main.json").read_text())["stack"][-1]

    def outcome(self, action):
        return next(o for a, o in self.view.steps if a == action)


def _session(root: Path, runtime: str, policy) -> Session:
    project = _project(root)
    if runtime == "claude-code":
        _wire_claude(project)
    responder = WorkspaceResponder(policy)
    api = "anthropic-messages" if runtime == "claude-code" else "openai-responses"
    with SimServer(responder, 1, None, api=api) as sim:
        env = _env(root, OPENAI_API_KEY="sim", **(sim.cli_env() if runtime == "claude-code" else {}))
        done = subprocess.run(_argv(runtime, sim), cwd=project, env=env, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return Session(root, project, responder, done)


def _drifter(root: Path, runtime: str) -> Drifter:
    outside = root / "outside.txt"
    off_plan = [EditFile("train.py", "import sys", "import os, sys"), Shell("rm -f config.py"),
                Shell(f"python3 train.py --out {outside}")]
    if runtime == "claude-code":   # the file tools are the gate's to bound: a write outside
        off_plan.append(WriteFile(str(outside), "x\n"))
    # a command the gate admits that writes outside: the runtime's sandbox stops it (on Claude Code:
    # `study claude` turns it on, the workflow naming shell rules)
    return Drifter([SET_LR, Shell("python3 train.py --out ../outside.txt"), TRAIN], off_plan)


#: Each runtime's drifter session is shared by its tests: they run on one xdist worker (loadgroup).
ON_CLAUDE = pytest.mark.xdist_group("workspace-claude-code")
ON_CODEX = pytest.mark.xdist_group("workspace-codex")
RUNTIMES = [pytest.param("claude-code", marks=ON_CLAUDE), pytest.param("codex", marks=[NO_CODEX, ON_CODEX])]


@pytest.fixture(scope="module")
def drifted(tmp_path_factory):
    """The drifter's session on each runtime, run on first use."""
    done: dict[str, Session] = {}

    def get(runtime: str) -> Session:
        if runtime not in done:
            root = tmp_path_factory.mktemp(f"drift-{runtime}")
            done[runtime] = _session(root, runtime, _drifter(root, runtime))
        return done[runtime]
    return get


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_state_refuses_another_command_and_another_files_edit_and_the_reason_reaches_the_model(drifted, runtime):
    s = drifted(runtime)
    denials = dict(s.view.denials)
    assert set(denials) == set(_drifter(s.root, runtime).off_plan)
    assert "the path must match 'config.py' (got train.py)" in denials[EditFile("train.py", "import sys", "import os, sys")]
    assert "the command must match 'python3 train.py*' (got 'rm -f config.py')" in denials[Shell("rm -f config.py")]
    absolute = next(d for a, d in denials.items() if isinstance(a, Shell) and "--out" in a.command)
    assert absolute.startswith("Name no absolute path in a command")
    # as each CLI words a refusal for the model (read in the simulator's requests)
    shown = [o.text for a, o in s.view.calls if o.denied]
    prefix = "PreToolUse:Edit hook error: " if runtime == "claude-code" else ""
    assert shown[0].startswith(prefix + "edit is refused here")


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_allowed_edit_and_command_run_and_no_refused_one_reaches_the_workspace(drifted, runtime):
    s = drifted(runtime)
    assert s.outcome(SET_LR).ok and s.outcome(TRAIN).ok
    assert (s.project / "config.py").read_text() == "LEARNING_RATE = 0.01\n"
    assert (s.project / "result.txt").read_text() == "learning rate 0.01: loss 0.5000\n"
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=s.project, capture_output=True, text=True).stdout.split("\n")
    assert [line for line in changed if line and not line.endswith(("/", "result.txt"))] == [" M config.py"]   # train.py intact
    assert not (s.root / "outside.txt").exists()
    calls = [(e["tool"], e["args"]) for e in s.frame["history"] if e["kind"] == "call"]
    assert ("edit", {"path": "config.py"}) in calls and ("shell", {"command": "python3 train.py"}) in calls
    assert ("edit", {"path": "train.py"}) not in calls and ("shell", {"command": "rm -f config.py"}) not in calls


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_stop_gate_blocks_the_early_end_and_the_agent_finishes_in_the_pause_state(drifted, runtime):
    s = drifted(runtime)
    (block,) = s.view.continuations
    assert block.startswith("Workflow state S_work: the turn cannot end here. Next: ")
    assert block.endswith("result.txt is missing: run python3 train.py")
    # after the allowed calls the state is the pause state, so the final answer ends the turn
    assert s.frame["state"] == "S_done" and "The work is done." in s.done.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_the_sandbox_stops_a_command_the_gate_admits_from_writing_outside_the_workspace(drifted, runtime):
    s = drifted(runtime)
    outcome = s.outcome(Shell("python3 train.py --out ../outside.txt"))
    assert outcome.denied is None and not outcome.ok and "Read-only file system" in outcome.text
    assert not (s.project.parent / "outside.txt").exists()


@ON_CLAUDE
def test_on_claude_code_the_gate_refuses_writes_outside_the_workspace_when_the_workflow_says_so(drifted):
    s = drifted("claude-code")
    outside = s.root / "outside.txt"
    assert "is not one of workflow 'TrainOnce''s tools" in s.outcome(WriteFile(str(outside), "x\n")).denied
    assert s.outcome(Shell(f"python3 train.py --out {outside}")).denied.startswith("Name no absolute path")
    assert not outside.exists()


# -- a workspace session's own Codex home ------------------------------------------------------------

COMMIT_WORKFLOW = """\
workflow: TrainAndCommit
tools: [read, edit, shell]
initial: S_work
exit: S_done
pause: [S_done]
states:
  S_work:
    allow:
      - {tool: read, path: "**"}
      - {tool: edit, path: config.py}
      - {tool: shell, command: "python3 *"}
      - {tool: shell, command: "git commit *"}
  S_done: {}
transitions:
  - from: S_work
    to: S_done
    automatic: true
    guard: {hard: [{command: "git log -1 --format=%s | grep -q 'Lower the learning rate'"}]}
"""


@NO_CODEX
def test_a_workspace_sessions_codex_home_gates_patches_in_the_shell_commits_and_has_no_network(tmp_path):
    project = git_workspace(tmp_path / "workspace", {p: (EXAMPLE / p).read_text() for p in ("config.py", "train.py")})
    (tmp_path / "train.yaml").write_text(COMMIT_WORKFLOW)
    frames, workflow = tmp_path / "fsm", tmp_path / "train.yaml"   # outside the workspace, as in a session folder
    common = ["--frames", str(frames), "--workflow", str(workflow)]
    subprocess.run([sys.executable, "-m", "study.cli", "fsm", "enter", "TrainAndCommit", *common], check=True, capture_output=True)
    hook = lambda event: shlex.join([sys.executable, "-m", "study.cli", "fsm", "hook", event, *common, "--workspace", str(project)])  # noqa: E731
    commit = Shell("git commit -qam 'Lower the learning rate'")
    plan = Oracle([])
    responder = WorkspaceResponder(plan)
    with SimServer(responder, 1, None, api="openai-responses", request_log=tmp_path / "requests.jsonl") as sim:
        network = Shell(f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {sim.port}), 3)\"")   # the simulator
        plan.plan = [EditFile("train.py", "import sys", "import os, sys"), SET_LR, network, commit]
        home = tmp_path / "codex-home"
        write_workspace_home(home, hook_commands={"PreToolUse": hook("pre-tool-use"), "PostToolUse": hook("post-tool-use"),
                                                  "Stop": hook("stop")},
                             model="gpt-5.4-mini", base_url=sim.base_url_for(), env_key="SIM_KEY", workspace=project)
        (home / CODEX_TMPDIR).mkdir()    # Codex's TMPDIR out of its home's way, as a session's (home under /tmp)
        env = {**_env(tmp_path), "CODEX_HOME": str(home), "TMPDIR": str(home / CODEX_TMPDIR), "SIM_KEY": "sim",
               **pin.binary_env()}
        done = subprocess.run([str(pin.binary_path()), "exec", "--json", "--dangerously-bypass-hook-trust", "--strict-config", PROMPT],
                              cwd=project, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    steps = {a: o for a, o in responder.last.calls}
    # no apply_patch tool for a model without Codex metadata: the patches went as shell heredocs, gated alike
    first = json.loads((tmp_path / "requests.jsonl").read_text().split("\n")[0])["body"]
    assert "apply_patch" not in {t.get("name") for t in first["tools"]}
    assert '"type":"file_change"' in done.stdout and "apply_patch <<'EOF'" in (tmp_path / "requests.jsonl").read_text()
    assert "got train.py" in steps[EditFile("train.py", "import sys", "import os, sys")].denied
    assert steps[SET_LR].ok and (project / "config.py").read_text() == "LEARNING_RATE = 0.01\n"
    assert not steps[network].ok and "Operation not permitted" in steps[network].text   # no network for commands
    assert steps[commit].ok   # the workspace's .git is writable
    log = subprocess.run(["git", "log", "--format=%s", "-2"], cwd=project, capture_output=True, text=True).stdout.split("\n")
    assert log[:2] == ["Lower the learning rate", "template"]
    assert json.loads((frames / "main.json").read_text())["stack"][-1]["state"] == "S_done"


# -- SIGTERM mid-command ---------------------------------------------------------------------------

SLEEPY = """\
workflow: Sleepy
tools: [shell]
initial: S_work
exit: S_done
pause: [S_done]
states:
  S_work:
    allow: [{tool: shell, command: "sh -c *"}]
  S_done: {}
transitions:
  - {from: S_work, to: S_done}
"""
#: The agent's command on each runtime: a length of its own, so that the other runtime's test, on
#: another worker at the same time, is never taken for a process this one left behind.
SLEEPS = {"claude-code": ["sleep", "37.25"], "codex": ["sleep", "37.75"]}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_sigterm_mid_command_leaves_no_process_the_agents_shell_children_included(tmp_path, runtime):
    project, SLEEP = _project(tmp_path, SLEEPY), SLEEPS[runtime]
    if runtime == "claude-code":
        _wire_claude(project)
    responder = WorkspaceResponder(Oracle([Shell(f"sh -c '{shlex.join(SLEEP)}'")]))   # not a bare sleep: Claude Code refuses those
    api = "anthropic-messages" if runtime == "claude-code" else "openai-responses"
    with SimServer(responder, 1, None, api=api) as sim:
        env = _env(tmp_path, OPENAI_API_KEY="sim", **(sim.cli_env() if runtime == "claude-code" else {}))
        cli = subprocess.Popen(_argv(runtime, sim), cwd=project, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            top = psutil.Process(cli.pid)
            deadline, tree = time.monotonic() + 60, []
            while time.monotonic() < deadline:
                tree = top.children(recursive=True)
                if any(_cmdline(p)[:2] == SLEEP for p in tree):
                    break
                time.sleep(0.1)
            assert any(_cmdline(p)[:2] == SLEEP for p in tree), "the agent's command never started"
            cli.send_signal(signal.SIGTERM)
            cli.wait(30)
            gone, alive = psutil.wait_procs(tree, timeout=10)
            assert alive == [], [(p.pid, _cmdline(p)) for p in alive]
            assert not [p for p in psutil.process_iter() if _cmdline(p)[:2] == SLEEP]
        finally:
            if cli.poll() is None:
                cli.kill()


def _cmdline(process: psutil.Process) -> list[str]:
    try:
        return process.cmdline()
    except psutil.Error:
        return []
