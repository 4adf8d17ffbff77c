"""Codex CLI 0.169.0's tool outputs read right (issue 49, item 11): a command's exit status and
output, a patch's answer, an MCP tool's texts, a denial, in the forms the CLI writes them (each
output below is copied from a rollout of Codex CLI 0.169.0 run against the simulator), in the
conversation the viewer and the Inspect export show, and a file Codex adds with a patch in a
workspace run's log."""

from __future__ import annotations

import json

import pytest

from study.families.workspace import transcript as workspace_log
from study.transcripts.codex import command_result, turns

EXEC_OK = ("Chunk ID: 8c0a7a\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 12\n"
           "Output:\ntrial\tstage\taxis\tchange\tmetric\tdecision\tcommit\n")
EXEC_FAILED = ("Chunk ID: 19ddf8\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 16\n"
               "Output:\nbwrap: execvp codex-linux-sandbox: No such file or directory\n")
EXEC_RUNNING = "Chunk ID: 1f2e3d\nWall time: 10.0021 seconds\nProcess running with session ID 61201\nOriginal token count: 0\nOutput:\n"
#: a patch written as a shell heredoc, which Codex applies itself: its answer inside a second header
HEREDOC_PATCH = ("Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0.1 seconds\nOutput:\n"
                 "Success. Updated the following files:\nA ledger.tsv\n")
PATCH_OK = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM train.py\n"
PATCH_REFUSED = "apply_patch verification failed: Failed to find expected lines in train.py"
MCP_OK = [{"type": "input_text", "text": "Wall time: 0.0061 seconds\nOutput:"},
          {"type": "input_text", "text": '{"accounts": ["ACC100185"], "count": 1, "decided": 0}'}]
MCP_ERROR = [{"type": "input_text", "text": "Wall time: 0.0040 seconds\nOutput:"},
             {"type": "input_text", "text": "Error: unknown account ACC1. Use list_batch."}]
COMMAND_DENIED = "Command blocked by PreToolUse hook: not permitted in S_baseline. Command: rm -rf results"
ADD_LEDGER = ("apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ledger.tsv\n+trial\tstage\taxis\tchange\tmetric"
              "\tdecision\tcommit\n+1\tbaseline\tbaseline\ttemplate unchanged\t0.922222\tkeep\tffedb00\n*** End Patch\nEOF")
LEDGER = ("trial\tstage\taxis\tchange\tmetric\tdecision\tcommit\n"
          "1\tbaseline\tbaseline\ttemplate unchanged\t0.922222\tkeep\tffedb00\n")


@pytest.mark.parametrize("text, ran, code, running, output", [
    (EXEC_OK, True, 0, False, "trial\tstage\taxis\tchange\tmetric\tdecision\tcommit\n"),
    (EXEC_FAILED, True, 1, False, "bwrap: execvp codex-linux-sandbox: No such file or directory\n"),
    (EXEC_RUNNING, True, None, True, ""),
    (HEREDOC_PATCH, True, 0, False, "Success. Updated the following files:\nA ledger.tsv\n"),
    (PATCH_OK, True, 0, False, "Success. Updated the following files:\nM train.py\n"),
    (PATCH_REFUSED, False, None, False, PATCH_REFUSED),
    (MCP_OK[0]["text"], True, None, False, ""),
    (COMMAND_DENIED, False, None, False, COMMAND_DENIED),
    # a command's own output that reads like a header is its output, not a second header
    ("Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nExit code: 3\nOutput:\nx",
     True, 0, False, "Exit code: 3\nOutput:\nx"),
])
def test_command_result_reads_the_exit_status_and_the_output_codex_wrote(text, ran, code, running, output):
    result = command_result(text)
    assert (result.ran, result.exit_code, result.running, result.output) == (ran, code, running, output)
    assert result.ok == (ran and (code == 0 or running))


def _rollout(*items) -> list[bytes]:
    return [json.dumps({"timestamp": f"T{n}", "type": "response_item", "payload": item}).encode()
            for n, item in enumerate(items)]


def _exec(call_id, cmd):
    return {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": cmd}), "call_id": call_id}


def _out(call_id, output, kind="function_call_output"):
    return {"type": kind, "call_id": call_id, "output": output}


def test_a_command_that_exited_0_is_no_error_and_its_output_is_what_it_printed():
    items, _ = turns(_rollout(
        _exec("c1", "cat ledger.tsv"), _out("c1", EXEC_OK),
        _exec("c2", "python train.py"), _out("c2", EXEC_FAILED),
        _exec("c3", "python train.py --long"), _out("c3", EXEC_RUNNING),
        _exec("c4", "rm -rf results"), _out("c4", COMMAND_DENIED)))
    calls = {t["id"]: t for t in items if t["role"] == "call"}
    assert {k: (c["tool"], c["error"], c["denied"]) for k, c in calls.items()} == {
        "c1": ("exec_command", False, False), "c2": ("exec_command", True, False),
        "c3": ("exec_command", False, False), "c4": ("exec_command", True, True)}
    assert calls["c1"]["result"]["text"] == "trial\tstage\taxis\tchange\tmetric\tdecision\tcommit\n"
    assert calls["c2"]["result"]["text"] == "bwrap: execvp codex-linux-sandbox: No such file or directory\n"
    assert calls["c4"]["result"]["text"] == "not permitted in S_baseline. Command: rm -rf results"


def test_a_patch_shows_its_answer_whether_a_shell_heredoc_or_codexs_apply_patch_tool():
    patch = "*** Begin Patch\n*** Update File: train.py\n@@\n-    \"alpha\": 0.0001,\n+    \"alpha\": 0.001,\n*** End Patch"
    items, _ = turns(_rollout(
        _exec("h1", ADD_LEDGER), _out("h1", HEREDOC_PATCH),
        {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "p1"},
        _out("p1", PATCH_OK, "custom_tool_call_output"),
        {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "p2"},
        _out("p2", PATCH_REFUSED, "custom_tool_call_output")))
    calls = {t["id"]: t for t in items if t["role"] == "call"}
    assert [(k, c["tool"], c["error"], c["result"]["text"]) for k, c in calls.items()] == [
        ("h1", "exec_command", False, "Success. Updated the following files:\nA ledger.tsv\n"),
        ("p1", "apply_patch", False, "Success. Updated the following files:\nM train.py\n"),
        ("p2", "apply_patch", True, PATCH_REFUSED)]
    assert calls["p1"]["args"]["text"] == patch


def test_an_mcp_tools_texts_follow_codexs_header_and_its_error_is_its_own_text():
    def mcp(call_id, name):
        return {"type": "function_call", "name": name, "namespace": "mcp__sopbench", "arguments": "{}", "call_id": call_id}

    items, _ = turns(_rollout(mcp("m1", "list_batch"), _out("m1", MCP_OK), mcp("m2", "investigate_account"),
                              _out("m2", MCP_ERROR)))
    ok, error = (t for t in items if t["role"] == "call")
    assert (ok["error"], ok["result"]["text"]) == (False, MCP_OK[1]["text"])
    assert (error["error"], error["result"]["text"]) == (True, MCP_ERROR[1]["text"])


def test_a_file_codex_adds_with_a_patch_shows_what_it_wrote():
    events = [{"seq": 1, "kind": "session_start", "workspace": "workspace"},
              {"seq": 2, "kind": "tool_call", "tool": "Bash", "args": {"command": ADD_LEDGER}, "allowed": True,
               "ok": True, "state": "S_baseline", "call_id": "h1", "result": HEREDOC_PATCH, "reported_by": "rollout",
               "actions": [{"tool": "write", "args": {"path": "ledger.tsv"}}]},
              {"seq": 3, "kind": "tool_call", "tool": "apply_patch", "allowed": True, "ok": True, "state": "S_baseline",
               "call_id": "p1", "result": PATCH_OK, "actions": [{"tool": "write", "args": {"path": "notes/plan.md"}}],
               "args": {"command": "*** Begin Patch\n*** Add File: /w/workspace/notes/plan.md\n+# Plan\n+\n"
                                   "+one trial a stage\n*** Add File: other.txt\n+x\n*** End Patch"}}]
    (context,) = workspace_log.contexts(events)
    written = [(i["kind"], i["path"], i["content"]["text"]) for i in context["items"]]
    assert written == [("write", "ledger.tsv", LEDGER), ("write", "notes/plan.md", "# Plan\n\none trial a stage\n")]
