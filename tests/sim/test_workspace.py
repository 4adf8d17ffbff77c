"""Scripted agents in a workspace (study/sim/acting): the actions as each CLI's own tool calls,
a request read back into the agent's context (shapes as the real CLIs send them: Claude Code
2.1.332, Codex CLI 0.169.0), the responder on both APIs, and the executor that runs a policy
without a CLI, gated by the FSM. tests/fsm/test_workspace_e2e.py runs the same policies through
the real CLIs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from study.fsm import FsmRuntime, Workflow
from study.fsm.builtin_tools import shell_patch
from study.sim import SimServer
from study.sim.acting import (ContextView, Drifter, EditFile, EndTurn, Executor, McpCall, Oracle, Outcome, Say, Shell,
                                 WorkspaceResponder, WriteFile, git_workspace)
from study.sim.acting.wire import action_of_patch, heredoc, patch_of, tool_use

from .test_server import post, sse_data

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "fsm-workspace"
ROOT = "/w/project"


def _claude(messages: list[dict], tools=("Bash", "Edit", "Read", "Write")) -> dict:
    env = {"role": "system", "content": [{"type": "text", "text": f"# Environment\n - Primary working directory: {ROOT}\n - Is a git repository: true"}]}
    return {"model": "m", "system": [{"type": "text", "text": "You are Claude Code."}], "tools": [{"name": t} for t in tools],
            "messages": [{"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                                      {"type": "text", "text": "Train once."}]}, env, *messages]}


def _use(id_: str, name: str, args: dict) -> dict:
    return {"role": "assistant", "content": [{"type": "tool_use", "id": id_, "name": name, "input": args}]}


def _result(id_: str, text: str, error: bool = False) -> dict:
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": id_, "content": text, "is_error": error}]}


def _codex(items: list[dict], patch_tool: bool = False) -> dict:
    tools = [{"type": "function", "name": "exec_command"}, {"type": "function", "name": "write_stdin"}]
    tools += [{"type": "custom", "name": "apply_patch"}] if patch_tool else []
    head = [{"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are a coding agent"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": f"<environment_context>\n  <cwd>{ROOT}</cwd>\n</environment_context>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Train once."}]}]
    return {"model": "gpt-5.4-mini", "tools": tools, "input": head + items}


# -- the wire forms ------------------------------------------------------------------------------


def test_writes_and_edits_are_patches_that_read_back_as_the_same_actions():
    write, edit = WriteFile("notes/a.md", "one\ntwo\n"), EditFile("config.py", "LR = 0.1", "LR = 0.01")
    assert patch_of(write) == "*** Begin Patch\n*** Add File: notes/a.md\n+one\n+two\n*** End Patch\n"
    assert patch_of(edit) == "*** Begin Patch\n*** Update File: config.py\n@@\n-LR = 0.1\n+LR = 0.01\n*** End Patch\n"
    assert action_of_patch(patch_of(write)) == write and action_of_patch(patch_of(edit)) == edit
    assert heredoc(patch_of(edit)) == "apply_patch <<'EOF'\n" + patch_of(edit) + "EOF"
    tricky = WriteFile("x.txt", "EOF\n")
    assert action_of_patch(shell_patch(heredoc(patch_of(tricky)))[0]) == tricky


def test_each_action_is_the_runtimes_own_tool_call():
    shell, edit = Shell("python3 train.py"), EditFile("config.py", "a", "b")
    assert tool_use("anthropic-messages", shell, ROOT, set()).input == {"command": "python3 train.py"}
    claude_edit = tool_use("anthropic-messages", edit, ROOT, set())
    assert (claude_edit.name, claude_edit.input["file_path"]) == ("Edit", f"{ROOT}/config.py")
    assert tool_use("openai-responses", shell, ROOT, set()).input == {"cmd": "python3 train.py"}
    patch = tool_use("openai-responses", edit, ROOT, {"apply_patch", "exec_command"})
    assert (patch.name, patch.freeform, patch.input["input"]) == ("apply_patch", True, patch_of(edit))
    fallback = tool_use("openai-responses", edit, ROOT, {"exec_command"})   # no apply_patch tool offered
    assert (fallback.name, fallback.input["cmd"]) == ("exec_command", heredoc(patch_of(edit)))
    mcp = tool_use("openai-responses", McpCall("fsm", "status", {}), ROOT, set())
    assert mcp.name == "mcp__fsm__status"


def test_a_custom_tool_call_goes_out_as_codex_reads_it():
    class Patcher:
        def respond(self, api, body):
            return WorkspaceResponder(Oracle([EditFile("config.py", "a", "b")])).respond(api, body)

    with SimServer(Patcher(), 1, None, api="openai-responses") as sim:
        status, _, text = post(sim, {**_codex([], patch_tool=True), "stream": True}, path="/v1/responses")
    assert status == 200
    done = [e["item"] for e in sse_data(text) if e.get("type") == "response.output_item.done"]
    assert [(i["type"], i["name"], i["input"]) for i in done] == [("custom_tool_call", "apply_patch", patch_of(EditFile("config.py", "a", "b")))]


# -- a request read back ---------------------------------------------------------------------------


def test_claude_codes_conversation_reads_back_with_denials_stop_blocks_and_its_own_reads():
    body = _claude([
        _use("t1", "Edit", {"file_path": f"{ROOT}/train.py", "old_string": "a", "new_string": "b", "replace_all": False}),
        _result("t1", "PreToolUse:Edit hook error: edit is refused here: the path must match 'config.py'", True),
        {"role": "assistant", "content": [{"type": "text", "text": "I stop."}]},
        {"role": "user", "content": "<system-reminder>\nStop hook feedback:\nWorkflow state S_work: the turn cannot end here.\n</system-reminder>"},
        _use("t2", "Read", {"file_path": f"{ROOT}/config.py"}), _result("t2", "1\tLR = 0.1"),
        _use("t3", "Bash", {"command": "exit 3"}), _result("t3", "Exit code 3", True),
    ])
    responder = WorkspaceResponder(Oracle([]))
    responder.respond("anthropic-messages", body)
    view = responder.last
    assert view.prompt == "Train once."
    assert view.steps == [
        (EditFile("train.py", "a", "b"), Outcome(False, "PreToolUse:Edit hook error: edit is refused here: the path must match 'config.py'",
                                                 "edit is refused here: the path must match 'config.py'")),
        (EndTurn("I stop."), Outcome(True, "")),
        (Shell("exit 3"), Outcome(False, "Exit code 3")),   # the Read is the responder's own, not a step
    ]
    assert view.continuations == ["Workflow state S_work: the turn cannot end here."] and view.continued_after == [2]
    assert view.denials == [(EditFile("train.py", "a", "b"), "edit is refused here: the path must match 'config.py'")]


def test_codexs_input_reads_back_for_both_forms_of_a_patch():
    patch = patch_of(EditFile("config.py", "a", "b"))
    body = _codex([
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "rm x"}), "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": "Command blocked by PreToolUse hook: shell is refused here. Command: rm x"},
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": heredoc(patch)}), "call_id": "c2"},
        {"type": "function_call_output", "call_id": "c2", "output": "Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0.1 seconds\n"
                                                                   "Output:\nSuccess. Updated the following files:\nM config.py\n"},
        {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "c3"},
        {"type": "custom_tool_call_output", "call_id": "c3", "output": "apply_patch verification failed: Failed to find expected lines"},
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "python3 train.py"}), "call_id": "c4"},
        {"type": "function_call_output", "call_id": "c4", "output": "Chunk ID: ab\nWall time: 0.1 seconds\nProcess exited with code 1\n"
                                                                   "Original token count: 3\nOutput:\nTraceback\n"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": '<hook_prompt hook_run_id="stop:1">Go on.</hook_prompt>'}]},
    ])
    responder = WorkspaceResponder(Oracle([]))
    responder.respond("openai-responses", body)
    view = responder.last
    assert view.prompt == "Train once."
    assert view.steps == [
        (Shell("rm x"), Outcome(False, "shell is refused here", "shell is refused here")),
        (EditFile("config.py", "a", "b"), Outcome(True, "Success. Updated the following files:\nM config.py\n")),
        (EditFile("config.py", "a", "b"), Outcome(False, "apply_patch verification failed: Failed to find expected lines")),
        (Shell("python3 train.py"), Outcome(False, "Traceback\n")),
        (EndTurn("Done."), Outcome(True, "")),
    ]
    assert view.continuations == ["Go on."]


# -- the responder --------------------------------------------------------------------------------


def test_says_gather_into_the_response_and_claude_code_reads_a_file_before_editing_it():
    class Talker:
        def next_action(self, context: ContextView):
            if not any(isinstance(a, Say) for a, _ in context.steps[-1:]) and not context.calls:
                return Say("First the config.")
            return EditFile("config.py", "a", "b") if not context.calls else EndTurn("done")

    responder = WorkspaceResponder(Talker())
    first = responder.respond("anthropic-messages", _claude([]))
    assert first.text == "First the config." and [(u.name, u.input) for u in first.tool_uses] == [("Read", {"file_path": f"{ROOT}/config.py"})]
    read = _claude([{"role": "assistant", "content": [{"type": "text", "text": "First the config."},
                                                      {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": f"{ROOT}/config.py"}}]},
                    _result("t1", "1\ta")])
    second = responder.respond("anthropic-messages", read)
    assert [u.name for u in second.tool_uses] == ["Edit"]
    # Codex needs no read; its workspace root comes from the environment context
    codex = responder.respond("openai-responses", _codex([]))
    assert codex.text == "First the config." and codex.tool_uses[0].input["cmd"].startswith("apply_patch <<'EOF'\n")
    assert responder.respond("anthropic-messages", {"model": "m", "messages": [{"role": "user", "content": "title?"}]}).text


# -- the executor ----------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path) -> tuple[Path, FsmRuntime]:
    ws = git_workspace(tmp_path / "project", {p: (EXAMPLE / p).read_text() for p in ("config.py", "train.py")})
    wf = Workflow.load(EXAMPLE / "workflows" / "train.yaml")
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf}, shell_cwd=ws)
    rt.enter(wf.name)
    return ws, rt


PLAN = [EditFile("config.py", "LEARNING_RATE = 0.1", "LEARNING_RATE = 0.01"), Shell("python3 train.py")]
OFF_PLAN = [EditFile("train.py", "import sys", "import os, sys"), Shell("rm -f config.py")]


def test_the_executor_runs_the_oracles_plan_in_the_folder_through_the_gate(project):
    ws, rt = project
    executor = Executor(ws, fsm=rt)
    view = executor.run(Oracle(PLAN), "Set the learning rate and train once.")
    assert [o.ok for _, o in view.calls] == [True, True] and view.denials == [] and view.continuations == []
    assert (ws / "config.py").read_text() == "LEARNING_RATE = 0.01\n"
    assert (ws / "result.txt").read_text() == "learning rate 0.01: loss 0.5000\n"
    assert rt.state == "S_done"
    assert "Now in workflow state S_done" in view.calls[-1][1].text   # the automatic transition's note


def test_the_drifter_is_denied_blocked_and_then_follows_the_plan(project):
    ws, rt = project
    before = (ws / "train.py").read_text()
    executor = Executor(ws, fsm=rt)
    view = executor.run(Drifter(PLAN, OFF_PLAN), "Set the learning rate and train once.")
    assert [a for a, _ in view.denials] == OFF_PLAN
    assert "the path must match 'config.py' (got train.py)" in view.denials[0][1]
    assert "the command must match 'python3 train.py*' (got 'rm -f config.py')" in view.denials[1][1]
    (block,) = view.continuations
    assert block.startswith("Workflow state S_work: the turn cannot end here. Next: guard command")
    assert block.endswith("failed (exit 1): result.txt is missing: run python3 train.py")
    assert (ws / "train.py").read_text() == before and (ws / "config.py").exists() and rt.state == "S_done"
    assert [entry["denied"] is not None for entry in executor.log] == [True, True, False, False]


def test_without_a_gate_the_drifter_does_what_it_likes_and_its_early_end_ends_the_context(project):
    ws, _ = project
    view = Executor(ws).run(Drifter(PLAN, OFF_PLAN), "go")
    assert view.denials == [] and not (ws / "config.py").exists() and isinstance(view.steps[-1][0], EndTurn)
    assert Executor(ws).perform(WriteFile("../outside.txt", "x")).text.startswith("../outside.txt is outside the workspace")


def test_after_a_compaction_the_agent_goes_on_where_it_was():
    """The responder answers the CLI's compaction request with its context; Claude Code's next
    request carries that summary and keeps a recent stretch, which is not counted twice."""
    done = [_use("t1", "Bash", {"command": "python3 a.py"}), _result("t1", "a"),
            _use("t2", "Bash", {"command": "python3 b.py"}), _result("t2", "b")]
    plan = [Shell("python3 a.py"), Shell("python3 b.py"), Shell("python3 c.py")]
    responder = WorkspaceResponder(Oracle(plan))
    compaction = _claude(done + [{"role": "user", "content": [
        {"type": "text", "text": "Your task is to create a detailed summary of the conversation so far"}]}])
    with SimServer(responder, 1, None) as sim:
        status, _, text = post(sim, compaction)
    summary = json.loads(text)["content"][0]["text"]
    assert status == 200 and "<workspace-context>" in summary and responder.contexts == []
    continued = _claude([])
    continued["messages"][0]["content"][1]["text"] = (
        "This session is being continued from a previous conversation that ran out of context. Summary:\n" + summary)
    continued["messages"] += done[2:]   # the kept stretch: call t2 again
    reply = responder.respond("anthropic-messages", continued)
    assert [s for s, _ in responder.last.steps] == plan[:2]
    assert reply.tool_uses[0].input == {"command": "python3 c.py"}


def test_after_codex_compacts_the_agent_goes_on_where_it_was():
    calls = [{"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "python3 a.py"}), "call_id": "c1"},
             {"type": "function_call_output", "call_id": "c1", "output": "Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\na\n"}]
    responder = WorkspaceResponder(Oracle([Shell("python3 a.py"), Shell("python3 b.py")]))
    compaction = {**_codex(calls), "tools": [], "stream": True}
    compaction["input"].append({"type": "message", "role": "user", "content": [
        {"type": "input_text", "text": "You are performing a CONTEXT CHECKPOINT COMPACTION."}]})
    with SimServer(responder, 1, None, api="openai-responses") as sim:
        status, _, text = post(sim, compaction, path="/v1/responses")
    (summary,) = [e["item"]["content"][0]["text"] for e in sse_data(text) if e.get("type") == "response.output_item.done"]
    continued = _codex([{"type": "message", "role": "user", "content": [{"type": "input_text", "text":
                         "Another language model started to solve this problem and produced a summary of its thinking process. "
                         "You also have access to the state of the tools that were used by that language model. Use this to build "
                         "on the work that has already been done and avoid duplicating work. Here is the summary produced by the "
                         "other language model, use the information in this summary to assist with your own analysis:\n" + summary}]}])
    reply = responder.respond("openai-responses", continued)
    assert status == 200 and reply.tool_uses[0].input == {"cmd": "python3 b.py"}
