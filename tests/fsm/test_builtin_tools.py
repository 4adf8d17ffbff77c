"""The CLIs' own tools in one vocabulary (study/fsm/builtin_tools.py): each runtime's hook input
mapped to shell/read/edit/write, the rules' command and path patterns, their validation with
lines, and the gate and the record under a workflow that uses them. The hook inputs are the
shapes the real CLIs send (Claude Code 2.1.332, Codex CLI 0.169.0; tests/fsm/test_workspace_e2e.py
runs both)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from fsm_helpers import GENERIC, MAIN
from study.cli import main
from study.fsm import FsmRuntime, Workflow, WorkflowError
from study.fsm import hooks
from study.fsm.builtin_tools import Action, actions_of, glob_regex, patch_files, shell_patch, simple_command

PATCH = ("*** Begin Patch\n*** Add File: notes/new.md\n+hello\n*** Update File: src/a.py\n@@\n-x = 1\n+x = 2\n"
         "*** Delete File: old.txt\n*** Update File: b.py\n*** Move to: lib/b.py\n@@\n-y\n+y\n*** End Patch\n")

WORKFLOW = """\
workflow: Tune
tools: [read, edit, write, shell, mcp_tool]
initial: S_work
exit: S_done
pause: [S_done]
states:
  S_work:
    allow:
      - {tool: read, path: "**"}
      - {tool: edit, path: config.py}
      - {tool: write, path: "notes/*.md"}
      - {tool: shell, command: "python3 train.py*"}
      - mcp_tool
    deny:
      - {tool: shell, command: "* /*", reason: "no absolute paths"}
  S_done: {}
transitions:
  - {from: S_work, to: S_done}
"""


def _runtime(tmp_path, text=WORKFLOW):
    wf = Workflow.from_text(text)
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    rt.enter(wf.name)
    return rt


def _pre(rt, name, tool_input, cwd):
    out = hooks.pre_tool_use(rt, {"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": tool_input, "cwd": str(cwd)})
    return hooks.refusal(out)


# -- the mapping ---------------------------------------------------------------------------------


def test_claude_codes_tools_map_to_the_vocabulary_with_paths_relative_to_the_workspace(tmp_path):
    root = str(tmp_path)
    assert actions_of("Bash", {"command": "ls -l", "description": "x"}, root) == [Action("shell", {"command": "ls -l"})]
    assert actions_of("Write", {"file_path": f"{root}/a/b.txt", "content": "x"}, root)[0].args == {"path": "a/b.txt"}
    assert [a.tool for a in (actions_of(t, {"file_path": f"{root}/x"}, root)[0] for t in ("Edit", "MultiEdit"))] == ["edit", "edit"]
    assert actions_of("NotebookEdit", {"notebook_path": f"{root}/n.ipynb"}, root)[0].args == {"path": "n.ipynb"}
    assert actions_of("Read", {"file_path": f"{root}/./a/../c.py"}, root)[0].args == {"path": "c.py"}
    assert actions_of("Grep", {"pattern": "x"}, root)[0] == Action("read", {"path": "."}, os.path.realpath(root))
    assert actions_of("Glob", {"pattern": "*.py", "path": f"{root}/src"}, root)[0].args == {"path": "src"}
    for other in ("TodoWrite", "WebFetch", "write_stdin", "mcp__sopbench__get_inputs"):
        assert actions_of(other, {}, root) is None


def test_paths_outside_the_workspace_are_outside_however_they_are_spelled(tmp_path):
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "link").symlink_to(tmp_path)   # a link out of the workspace
    for raw in ("/etc/passwd", "../x", "sub/../../x", "link/secret", "~/x"):
        (action,) = actions_of("Write", {"file_path": raw}, str(root / "sub") if raw.startswith("..") else str(root))
        assert action.args.get("outside") is True, raw
    (inside,) = actions_of("Write", {"file_path": "../y"}, str(root / "sub"), str(root))
    assert inside.args == {"path": "y"}   # relative to the call's folder, then to the root


def test_a_patch_is_one_action_per_file_it_names_whether_a_tool_or_a_shell_heredoc(tmp_path):
    assert patch_files(PATCH) == [("write", "notes/new.md"), ("edit", "src/a.py"), ("edit", "old.txt"),
                                  ("edit", "b.py"), ("write", "lib/b.py")]
    tool = actions_of("apply_patch", {"command": PATCH}, str(tmp_path))
    heredoc = actions_of("Bash", {"command": f"apply_patch <<'EOF'\n{PATCH}EOF"}, str(tmp_path))
    assert [(a.tool, a.args["path"]) for a in tool] == [(a.tool, a.args["path"]) for a in heredoc] == patch_files(PATCH)
    (cd,) = actions_of("Bash", {"command": "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.py\n"
                                           "@@\n-1\n+2\n*** End Patch\nEOF"}, str(tmp_path))
    assert cd.args == {"path": "src/a.py"}
    assert shell_patch(f"apply_patch '{PATCH}'")[0] == PATCH
    # anything after the heredoc makes it an ordinary command (Codex does not run it as a patch)
    assert actions_of("Bash", {"command": f"apply_patch <<'EOF'\n{PATCH}EOF\nrm -rf x"}, str(tmp_path))[0].tool == "shell"


@pytest.mark.parametrize("command,simple", [
    ("python3 train.py --lr 0.1", True), ("python3 -c 'import a; a.b()'", True), ('echo "a | b"', True),
    ("python3 train.py; rm x", False), ("a && b", False), ("a || b", False), ("a | b", False), ("a &", False),
    ("a > out", False), ("a < in", False), ("(a)", False), ("echo $(rm x)", False), ('echo "`rm x`"', False),
    ("a\nb", False), ("echo 'unclosed", False), ("diff <(a) b", False),
])
def test_a_simple_command_has_no_operator_redirection_or_substitution(command, simple):
    assert simple_command(command) is simple


@pytest.mark.parametrize("pattern,path,hit", [
    ("config.py", "config.py", True), ("config.py", "sub/config.py", False), ("*.py", "a.py", True),
    ("*.py", "src/a.py", False), ("**/*.py", "src/a.py", True), ("**/*.py", "a.py", True), ("src/**", "src/a/b.c", True),
    ("src/**", "srcx/a", False), ("notes/?.md", "notes/a.md", True), ("[ab].txt", "c.txt", False), ("[!ab].txt", "c.txt", True),
    ("**", ".", True),
])
def test_path_patterns_are_globs_whose_single_star_stays_in_one_folder(pattern, path, hit):
    assert bool(glob_regex(pattern).match(path)) is hit


# -- the gate and the record -----------------------------------------------------------------------


def test_a_state_admits_its_command_and_file_and_refuses_others_with_the_reason(tmp_path):
    rt, ws = _runtime(tmp_path), tmp_path / "ws"
    assert _pre(rt, "Bash", {"command": "python3  train.py --lr 0.1"}, ws) is None
    assert _pre(rt, "Edit", {"file_path": str(ws / "config.py"), "old_string": "a", "new_string": "b"}, ws) is None
    assert _pre(rt, "apply_patch", {"command": "*** Begin Patch\n*** Update File: config.py\n@@\n-a\n+b\n*** End Patch"}, ws) is None
    reason = _pre(rt, "Bash", {"command": "rm -rf config.py"}, ws)
    assert reason.startswith("shell is refused here: the command must match 'python3 train.py*' (got 'rm -rf config.py')")
    assert "In S_work you may call: read (path matches '**'), edit (path matches 'config.py'), write (path matches 'notes/*.md'), " \
           "shell (command matches 'python3 train.py*'), mcp_tool." in reason
    assert "chains commands" in _pre(rt, "Bash", {"command": "python3 train.py && rm -rf ."}, ws)
    assert _pre(rt, "Bash", {"command": "python3 train.py --out /tmp/x"}, ws).startswith("no absolute paths (state S_work")  # deny
    assert _pre(rt, "Bash", {"command": "ls; cat /etc/passwd"}, ws).startswith("no absolute paths")  # a deny rule reads any command
    assert "got train.py" in _pre(rt, "Edit", {"file_path": str(ws / "train.py")}, ws)
    assert "outside it" in _pre(rt, "Write", {"file_path": str(tmp_path / "elsewhere.md")}, ws)
    assert _pre(rt, "Write", {"file_path": str(ws / "notes" / "a.md")}, ws) is None
    # a patch is admitted only if every file is: one file outside the rules refuses all of it
    two = "*** Begin Patch\n*** Update File: config.py\n@@\n-a\n+b\n*** Update File: train.py\n@@\n-c\n+d\n*** End Patch"
    assert "got train.py" in _pre(rt, "apply_patch", {"command": two}, ws)
    # a built-in tool without an action is judged by its own name: not in tools, so refused
    assert "TodoWrite is not one of workflow 'Tune''s tools" in _pre(rt, "TodoWrite", {}, ws)
    assert _pre(rt, "mcp__x__mcp_tool", {}, ws) is not None and hooks.refusal(
        hooks.pre_tool_use(rt, {"tool_name": "mcp__x__mcp_tool", "tool_input": {}}, tool_prefix="mcp__x__")) is None


def test_the_fsms_own_frames_are_not_the_agents_to_edit(tmp_path):
    text = WORKFLOW.replace('{tool: write, path: "notes/*.md"}', '{tool: write, path: "**"}')
    wf = Workflow.from_text(text)
    rt = FsmRuntime(tmp_path / ".fsm", {wf.name: wf})
    rt.enter(wf.name)
    reason = _pre(rt, "Write", {"file_path": str(tmp_path / ".fsm" / "main.json"), "content": "{}"}, tmp_path)
    assert reason.startswith("write of .fsm/main.json is refused: it is the workflow's own record")
    assert _pre(rt, "Write", {"file_path": str(tmp_path / "other.json")}, tmp_path) is None


def test_the_record_holds_the_actions_and_a_patch_of_two_files_is_two_calls(tmp_path):
    rt, ws = _runtime(tmp_path), tmp_path / "ws"
    post = {"hook_event_name": "PostToolUse", "cwd": str(ws), "tool_response": "ok"}
    hooks.post_tool_use(rt, {**post, "tool_name": "Bash", "tool_input": {"command": "python3 train.py"}})
    hooks.post_tool_use(rt, {**post, "tool_name": "apply_patch", "tool_input": {"command": PATCH}})
    history = rt.frames()[0]["history"]
    assert history[0] == {"kind": "call", "tool": "shell", "args": {"command": "python3 train.py"}, "ok": True}
    assert [(e["tool"], e["args"]["path"]) for e in history[1:]] == patch_files(PATCH)


def test_a_workflow_without_the_vocabulary_judges_built_in_calls_by_their_names_as_before(tmp_path):
    # docs/fsm.md's BugFix workflow names Claude Code's tools with argument predicates
    text = GENERIC.replace("tools: [read_doc,", "tools: [Bash, Edit, read_doc,").replace(
        "allow: [read_*, write_note, list_docs]", "allow: [read_*, write_note, list_docs, {tool: Bash, args: {command: {matches: 'ls.*'}}}]")
    rt = _runtime(tmp_path, text)
    assert not rt.workflows["Review"].builtin_vocabulary
    assert _pre(rt, "Bash", {"command": "ls; rm x"}, tmp_path) is None   # the regex's meaning, unchanged
    assert _pre(rt, "Edit", {"file_path": "/x"}, tmp_path).startswith("Edit is not permitted in this state")
    hooks.post_tool_use(rt, {"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(tmp_path)})
    assert rt.frames()[0]["history"][-1]["tool"] == "Bash"


def test_the_preregistered_workflow_does_not_use_the_vocabulary():
    assert not Workflow.load(MAIN).builtin_vocabulary


# -- validation ----------------------------------------------------------------------------------


BAD = [
    ('{tool: edit, path: config.py}', '{tool: edit, command: "make"}', "'command' applies to the built-in tool shell, not 'edit'"),
    ('{tool: shell, command: "python3 train.py*"}', '{tool: shell, path: "x"}', "'path' applies to the built-in tools read, edit, write, not 'shell'"),
    ('{tool: edit, path: config.py}', '{tool: edit, path: /etc/config.py}', "'path' patterns are relative to the workspace"),
    ('{tool: edit, path: config.py}', '{tool: edit, path: ../config.py}', "remove the '..'"),
    ('{tool: edit, path: config.py}', '{tool: edit, path: ""}', "'path' must be a non-empty pattern"),
    ('{tool: shell, command: "python3 train.py*"}', '{tool: shell, command: "make", compound: yes please}', "'compound' must be true or false"),
    ('{tool: edit, path: config.py}', '{tool: edit, path: a, command: b}', "either 'command' (tool shell) or 'path'"),
    ('{tool: edit, path: config.py}', '{tool: edit, compound: true}', "'compound' goes with a 'command' pattern"),
    ('{tool: edit, path: config.py}', '{tool: edit, paths: config.py}', "unknown key 'paths'"),
]


@pytest.mark.parametrize("old,new,words", BAD, ids=[b[2][:30] for b in BAD])
def test_validation_names_the_line_and_the_fix(tmp_path, old, new, words):
    text = WORKFLOW.replace(old, new)
    line = next(i + 1 for i, l in enumerate(text.splitlines()) if new in l)
    with pytest.raises(WorkflowError) as err:
        Workflow.from_text(text, file="wf.yaml")
    assert f"wf.yaml:{line}:" in err.value.render() and words in err.value.render(), err.value.render()
    (tmp_path / "wf.yaml").write_text(text)
    result = CliRunner().invoke(main, ["fsm", "validate", str(tmp_path / "wf.yaml")])
    assert result.exit_code != 0 and f"wf.yaml:{line}:" in result.output


def test_the_hook_command_takes_the_workspace(tmp_path):
    (tmp_path / "wf.yaml").write_text(WORKFLOW)
    common = ["--frames", str(tmp_path / "frames"), "--workflow", str(tmp_path / "wf.yaml")]
    assert CliRunner().invoke(main, ["fsm", "enter", "Tune", *common]).exit_code == 0
    ws = tmp_path / "ws"
    payload = {"tool_name": "Write", "tool_input": {"file_path": str(ws / "notes" / "a.md")}, "cwd": str(ws / "notes")}
    for workspace, denied in ((ws, False), (ws / "notes", True)):   # notes/a.md, or a.md relative to notes/
        result = CliRunner().invoke(main, ["fsm", "hook", "pre-tool-use", *common, "--workspace", str(workspace)],
                                    input=json.dumps(payload))
        assert (json.loads(result.stdout) != {}) is denied, result.output
