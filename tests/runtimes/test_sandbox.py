"""The OS sandbox of a workspace's commands, without a CLI (issue 46): Claude Code's sandbox
settings and the check that it can start here, what a sandbox that did not start looks like, a
Codex command's exit status from its rollout, how the runner's bridge logs a command and voids a
session whose sandbox stopped starting, the month-end inputs outside the workspace, and git run
on the agent's repository without running anything of its configuration."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
from pathlib import Path

import pytest

from study.runtimes.sandbox import claude_problem, claude_settings, looks_like_sandbox_failure
from study.transcripts.codex import RolloutFollower, command_exits, command_output

FAILING_BWRAP = "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"


def _bin(folder: Path, **tools: str) -> Path:
    """A folder of executables: each tool a script, or a link to the system's own (``"system"``)."""
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    for name, script in tools.items():
        if script == "system":
            (folder / name).symlink_to(shutil.which(name))
        else:
            (folder / name).write_text(script)
            (folder / name).chmod(0o755)
    return folder


# -- Claude Code's sandbox ---------------------------------------------------------------------


def test_claude_codes_sandbox_is_required_shut_to_the_network_and_writes_only_the_working_folder():
    sandbox = claude_settings()["sandbox"]
    assert sandbox["enabled"] and sandbox["failIfUnavailable"]          # never run the commands unconfined
    assert sandbox["allowUnsandboxedCommands"] is False                  # dangerouslyDisableSandbox ignored
    assert sandbox["network"] == {"allowedDomains": [], "strictAllowlist": True}
    assert sandbox["filesystem"] == {"allowWrite": []}
    assert claude_settings(writable=[Path("/r/out")])["sandbox"]["filesystem"] == {"allowWrite": ["/r/out"]}


def test_without_bubblewrap_or_socat_the_sandbox_problem_says_what_to_install(tmp_path):
    empty = _bin(tmp_path / "none")
    assert claude_problem({"PATH": str(empty)}) == ("Claude Code's sandbox needs bubblewrap and socat, and neither is "
                                                    "installed here: apt-get install bubblewrap socat")
    only_bwrap = _bin(tmp_path / "bwrap-only", bwrap="system")
    assert claude_problem({"PATH": str(only_bwrap)}).endswith("and socat is not installed here: apt-get install bubblewrap socat")


def test_a_bubblewrap_that_cannot_start_a_sandbox_is_a_problem_too(tmp_path):
    broken = _bin(tmp_path / "broken", bwrap=FAILING_BWRAP, socat="system")
    assert claude_problem({"PATH": str(broken)}) == ("bubblewrap cannot start a sandbox here, which Claude Code's sandbox "
                                                     "needs: bwrap: No permissions to create a new namespace")


@pytest.mark.parametrize("output, failed", [
    ("Exit code 1\nbwrap: No permissions to create a new namespace", True),       # Claude Code's Bash error
    ("bwrap: execvp codex-linux-sandbox: No such file or directory\n", True),     # Codex with its home under $TMPDIR
    ("Sandbox is required (sandbox.failIfUnavailable) and stopped being available in this session: x", True),
    ("Exit code 1\nTraceback (most recent call last):\nOSError: [Errno 30] Read-only file system: '../x'", False),
    ("Exit code 2\nusage: grep bwrap: ...", False),
    ("", False),
])
def test_a_sandbox_that_did_not_start_is_told_from_a_command_that_failed(output, failed):
    assert looks_like_sandbox_failure(output) is failed


# -- a Codex command's exit status ---------------------------------------------------------------

COMMAND = "Chunk ID: 29b471\nWall time: 0.0104 seconds\nProcess exited with code 3\nOriginal token count: 1\nOutput:\nhi\n"


def test_codexs_output_header_is_read_into_the_exit_status_and_the_output():
    parsed = command_output(COMMAND)
    assert (parsed.exit_code, parsed.wall_time_s, parsed.running, parsed.output) == (3, 0.0104, False, "hi\n")
    patch = command_output("Exit code: 0\nWall time: 0.2 seconds\nOutput:\nSuccess. Updated the following files:\nM a.py")
    assert (patch.exit_code, patch.output) == (0, "Success. Updated the following files:\nM a.py")
    running = command_output("Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 7\nOutput:\n")
    assert running.running and running.exit_code is None
    assert command_output("Wall time: 0.0029 seconds\nOutput:\n{}").exit_code is None          # an MCP tool's
    assert command_output("Command blocked by PreToolUse hook: no. Command: rm -rf x") is None


def _rollout_lines() -> list[dict]:
    item = {"type": "CommandExecution", "id": "call_1", "command": ["/bin/bash", "-c", "exit 4"], "status": "failed",
            "aggregated_output": "", "exit_code": 4}
    return [
        {"type": "response_item", "payload": {"type": "function_call", "name": "exec_command", "call_id": "call_1"}},
        {"type": "event_msg", "payload": {"type": "item_completed", "item": item}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "call_2", "output": COMMAND}},
        {"type": "token_usage_record", "payload": {"response_id": "r1", "usage": {"input_tokens": 5, "output_tokens": 1}}},
    ]


def test_the_rollout_gives_each_commands_exit_status_without_losing_a_usage_record(tmp_path):
    assert command_exits(_rollout_lines()) == {"call_1": 4, "call_2": 3}
    rollout = tmp_path / "rollout.jsonl"
    follower = RolloutFollower(rollout)
    assert follower.exit_code("call_1") is None                    # nothing written yet
    rollout.write_text("".join(json.dumps(line) + "\n" for line in _rollout_lines()))
    assert follower.exit_code("call_1") == 4 and follower.exit_code("call_2") == 3
    assert [r["response_id"] for r in follower.read_new()] == ["r1"]   # read by exit_code, still handed on once
    assert follower.read_new() == []


# -- the runner's bridge in a workspace ----------------------------------------------------------


class _Bridge:
    """A SessionBridge over a month-end run's workspace (no FSM), its log, and what it reports."""

    def __init__(self, tmp: Path):
        from study.families.workspace.family import WorkspaceWork
        from study.protocol.conditions import get_condition
        from study.runner.bridge import SessionBridge
        from study.session_io.writer import EventLog

        work = WorkspaceWork("month-end-close", tmp, seed=1, uses_fsm=False, turns=40, contexts=1, size=1)
        condition = dataclasses.replace(get_condition("Plain"), reminder=False)
        self.path = tmp / "events.jsonl"
        self.bridge = SessionBridge(EventLog(self.path), work, condition)
        self.ended: list[str] = []
        self.bridge.on_infrastructure = self.ended.append

    def post(self, command: str, call_id: str, **fields) -> dict:
        hook_input = {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": call_id,
                      "cwd": str(self.bridge.work.workspace), **fields}
        asyncio.run(self.bridge.post_tool_use(hook_input, None, None))
        return [json.loads(line) for line in self.path.read_text().splitlines()][-1]


def test_a_codex_command_is_logged_with_the_exit_status_its_rollout_records(tmp_path):
    rig = _Bridge(tmp_path)
    rig.bridge.command_exit = {"c1": 3, "c2": 0}.get        # what the Codex adapter reads from the rollout
    failed = rig.post("python3 x.py", "c1", hook_event_name="PostToolUse", tool_response="oops\n")
    assert (failed["ok"], failed["exit_code"], failed["error"]) == (False, 3, "oops\n")
    passed = rig.post("ls", "c2", hook_event_name="PostToolUse", tool_response="a\n")
    assert (passed["ok"], passed["exit_code"], passed["result"]) == (True, 0, "a\n")


def test_a_codex_command_the_rollout_records_only_in_its_output_is_logged_once_that_is_read(tmp_path):
    """Codex records no CommandExecution item for some commands (ones that fail at once): their
    status is in the output it writes after the hook. The command is logged when that is read
    (before any later call), or with no status when the call ends first."""
    rig = _Bridge(tmp_path)
    known: dict[str, int] = {}
    rig.bridge.command_exit = known.get
    before = rig.path.read_text()
    asyncio.run(rig.bridge.post_tool_use({"tool_name": "Bash", "tool_input": {"command": "git diff --output=../x"},
                                          "tool_use_id": "c1", "hook_event_name": "PostToolUse",
                                          "tool_response": "fatal: could not open '../x' for writing\n"}, None, None))
    assert rig.path.read_text() == before                      # not logged yet
    rig.bridge.builtin_output("c1", "Chunk ID: 1\nWall time: 0.0000 seconds\nProcess exited with code 128\nOutput:\nfatal: ...")
    logged = json.loads(rig.path.read_text().splitlines()[-1])
    assert (logged["args"]["command"], logged["ok"], logged["exit_code"]) == ("git diff --output=../x", False, 128)
    assert logged["error"] == "fatal: could not open '../x' for writing\n"
    # the next hook logs a waiting command whose status the rollout has by then; a call's end, any left
    rig.post("ls", "c2", hook_event_name="PostToolUse", tool_response="a\n")   # waits: no status yet
    known["c2"] = 0
    asyncio.run(rig.bridge.pre_tool_use({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "c3"},
                                        None, None))
    assert [e["call_id"] for e in map(json.loads, rig.path.read_text().splitlines()) if e["kind"] == "tool_call"] == ["c1", "c2"]
    rig.post("ls", "c3", hook_event_name="PostToolUse", tool_response="b\n")
    rig.bridge.flush_commands()
    last = json.loads(rig.path.read_text().splitlines()[-1])
    assert (last["call_id"], last["ok"], last["exit_code"]) == ("c3", True, None)


def test_a_claude_code_command_is_logged_with_the_exit_status_its_hook_says(tmp_path):
    rig = _Bridge(tmp_path)
    failed = rig.post("python3 x.py", "c1", hook_event_name="PostToolUseFailure", error="Exit code 2\nboom")
    assert (failed["ok"], failed["exit_code"]) == (False, 2)
    passed = rig.post("ls", "c2", hook_event_name="PostToolUse", tool_response={"stdout": "a", "stderr": ""})
    assert (passed["ok"], passed["exit_code"]) == (True, 0)


def test_a_command_the_sandbox_could_not_start_ends_the_session_once_the_probe_confirms_it(tmp_path):
    rig = _Bridge(tmp_path)
    probes: list[int] = []
    rig.bridge.sandbox_probe = lambda: probes.append(1) or "bwrap: execvp codex-linux-sandbox: No such file or directory"
    rig.post("ls", "c1", hook_event_name="PostToolUseFailure", error="Exit code 1\nls: cannot access 'x'")
    assert probes == [] and rig.ended == []                           # an ordinary failure: the agent's
    rig.post("ls", "c2", hook_event_name="PostToolUseFailure", error="Exit code 1\nbwrap: execvp codex-linux-sandbox: x")
    assert probes == [1]
    assert rig.ended == ["the sandbox of the agent's commands stopped starting: bwrap: execvp codex-linux-sandbox: No "
                         "such file or directory"]


def test_a_command_that_only_says_the_sandboxs_words_is_the_agents_when_the_sandbox_still_starts(tmp_path):
    rig = _Bridge(tmp_path)
    rig.bridge.sandbox_probe = lambda: None
    logged = rig.post("python3 -c 'print(1)'", "c1", hook_event_name="PostToolUseFailure", error="Exit code 1\nbwrap: lies")
    assert rig.ended == [] and logged["ok"] is False


# -- the month-end inputs, outside the workspace -------------------------------------------------


def test_the_month_end_inputs_live_beside_the_workspace_and_the_check_refuses_a_replaced_link(tmp_path):
    from study.families.workspace.month_end_close.workspace import build_run

    run = build_run(tmp_path, 1)
    period = run.release(1)
    link = run.workspace / "periods" / period / "inputs"
    assert link.is_symlink() and link.resolve() == (tmp_path / "inputs" / period).resolve()
    assert (run.workspace / "periods" / period / "close").is_dir() and run.released() == [period]

    def check() -> subprocess.CompletedProcess:
        return subprocess.run(["python3", "../checks/check_step.py", "1"], cwd=run.workspace, capture_output=True, text=True)

    assert "01_movements.csv is missing" in check().stdout      # reads the run's inputs, then the missing file
    link.unlink()                                              # the agent's own inputs in place of the link
    link.mkdir()
    for source in (tmp_path / "inputs" / period).iterdir():
        (link / source.name).write_text(source.read_text())
    done = check()
    assert done.returncode == 1
    assert f"periods/{period}/inputs is no longer the link to the period's inputs (../../../inputs/{period})" in done.stdout


# -- git on the agent's repository -----------------------------------------------------------------


def test_reading_the_agents_repository_runs_nothing_its_configuration_names(tmp_path):
    from study.families.workspace.autoresearch.stage_check import git, template_changed
    from study.runner.commits import head, new_commits

    work = tmp_path / "workspace"
    work.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@x"}
    for argv in (["git", "init", "-q", "-b", "main"], ["sh", "-c", "echo 1 > train.py"], ["git", "add", "train.py"],
                 ["git", "commit", "-qm", "one"]):
        subprocess.run(argv, cwd=work, check=True, env=env, capture_output=True)
    first = head(str(work))
    marker = tmp_path / "ran"
    for key, value in (("core.fsmonitor", f"touch {marker}; false"), ("log.showSignature", "true"),
                       ("gpg.program", f"touch {marker}"), ("core.pager", f"touch {marker}; cat")):
        subprocess.run(["git", "config", key, value], cwd=work, check=True)
    (work / "train.py").write_text("2\n")
    assert template_changed(work) is True
    assert git(work, "rev-parse", "HEAD") == (0, first + "\n")
    assert new_commits(str(work), first) == ([], first)
    assert not marker.exists()


# -- `study claude` in a project ------------------------------------------------------------------


def _project(tmp_path: Path, tools: str) -> Path:
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    (project / "workflows").mkdir()
    (project / "workflows" / "wf.yaml").write_text(f"workflow: W\ntools: [{tools}]\ninitial: S_a\nexit: S_b\n"
                                                   "states:\n  S_a: {allow: [read]}\n  S_b: {}\n"
                                                   "transitions:\n  - {from: S_a, to: S_b}\n")
    hook = ('study fsm hook pre-tool-use --frames "$CLAUDE_PROJECT_DIR/.fsm" '
            '--workflow "$CLAUDE_PROJECT_DIR/workflows/wf.yaml" --workspace "$CLAUDE_PROJECT_DIR"')
    settings = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": hook}]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return project


def test_study_claude_sandboxes_a_project_whose_workflow_names_shell_rules(tmp_path, monkeypatch):
    from study.cli.vocabulary import UsageError
    from study.runtimes.claude_code import command
    from study.runtimes import sandbox

    shell = _project(tmp_path / "a", "read, edit, shell")
    assert command.project_workflows(shell) == [shell / "workflows" / "wf.yaml"]
    assert not (shell / ".fsm").exists()
    flag, value = command.sandbox_arguments(shell)
    # the project writable but for the FSM's own files: its workflow, its frames (made now, to be
    # bound read-only before the first hook makes them) and the settings that wire its hooks
    protected = [shell / "workflows" / "wf.yaml", shell / ".fsm", shell / ".claude" / "settings.json"]
    assert flag == "--settings" and json.loads(value) == claude_settings(read_only=protected)
    assert json.loads(value)["sandbox"]["filesystem"] == {"allowWrite": [], "denyWrite": [str(p) for p in protected]}
    assert (shell / ".fsm").is_dir()
    assert claude_settings()["sandbox"]["filesystem"] == {"allowWrite": []}     # a workspace session's: unchanged
    assert command.sandbox_arguments(_project(tmp_path / "b", "read, edit")) == []     # no command runs
    assert command.sandbox_arguments(tmp_path) == []                                  # no workflow at all
    monkeypatch.setattr(sandbox.shutil, "which", lambda tool, path=None: None)
    with pytest.raises(UsageError) as refused:
        command.sandbox_arguments(shell)
    assert str(refused.value) == ("this project's workflow names shell rules, so the agent's commands run in Claude "
                                  "Code's sandbox, which cannot start here: Claude Code's sandbox needs bubblewrap and "
                                  "socat, and neither is installed here: apt-get install bubblewrap socat")
