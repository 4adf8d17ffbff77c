"""The runtime on a generic workflow: gate, tokens, guards (named, shell, soft), stop gate, frames."""

from __future__ import annotations

import json

import pytest

from fsm_helpers import GENERIC, generic_workflow, move
from study.fsm import CheckResult, FsmRefusal, FsmRuntime, Workflow
from study.fsm.frames import FrameStore, FrameStoreError


@pytest.fixture
def rt(tmp_path):
    wf = generic_workflow()
    runtime = FsmRuntime(tmp_path / "frames", {wf.name: wf}, {"doc": "d1"})
    runtime.enter("Review")
    return runtime


def test_no_workflow_active_admits_everything_and_lets_the_turn_end(tmp_path):
    wf = generic_workflow()
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    assert rt.state is None
    assert rt.gate("anything", {}).allowed and rt.stop_gate().allowed
    rt.observe("anything", {}, True)  # nothing to record into
    assert rt.frames() == []
    with pytest.raises(FsmRefusal, match="nothing to exit"):
        rt.exit()
    with pytest.raises(FsmRefusal, match="unknown workflow 'Nope'; available: Review"):
        rt.enter("Nope")


def test_gate_globs_deny_rules_and_unknown_tools(rt):
    assert rt.gate("read_doc", {"doc": "d1"}).allowed
    assert rt.gate("read_index", {}).allowed  # read_* glob
    denied = rt.gate("read_doc", {"doc": "secret"})
    assert not denied.allowed and denied.reason.startswith("the secret document is off limits")
    refused = rt.gate("submit", {})
    assert not refused.allowed
    assert "submit is not permitted in this state (state S_read of workflow Review)" in refused.reason
    assert "In S_read you may call: read_doc, read_index, write_note, list_docs" in refused.reason
    assert "Transitions from S_read: S_submit, S_wait, S_done" in refused.reason
    unknown = rt.gate("Bash", {"command": "ls"})
    assert not unknown.allowed and "not one of workflow 'Review''s tools" in unknown.reason
    bad_args = rt.gate("read_doc", "not a dict")
    assert not bad_args.allowed and "must be a JSON object" in bad_args.reason


def test_enter_again_returns_status_and_exit_only_in_exit_state(rt):
    status = rt.enter("Review")
    assert status["state"] == "S_read" and status["depth"] == 1
    assert status["exit_conditions"] == ["You wrote a note."]
    assert status["permitted_tools"] == ["read_doc", "read_index", "write_note", "list_docs"]
    with pytest.raises(FsmRefusal, match="exit is admitted only in the exit state 'S_done'"):
        rt.exit()
    assert move(rt, "S_done").ok
    assert rt.exit() == {"active": False, "workflows": ["Review"]}


def test_tokens_missing_forged_reused_wrong_target_stale(rt):
    rt.observe("write_note", {}, True)
    assert not rt.transition("S_submit", None).ok
    assert "needs a token" in rt.transition("S_submit", "").reason
    forged = rt.transition("S_submit", "A" * 32)
    assert not forged.ok and "unknown token" in forged.reason and rt.state == "S_read"

    wrong = rt.self_check("S_wait")["token"]
    result = rt.transition("S_submit", wrong)
    assert not result.ok and "names target S_wait, not S_submit" in result.reason
    assert "already used" in rt.transition("S_wait", wrong).reason  # spent when presented

    stale = rt.self_check("S_wait")["token"]
    good = rt.self_check("S_submit")
    assert good["state"] == "S_read" and good["target"] == "S_submit" and good["exit_conditions"] == ["You wrote a note."]
    assert len(good["token"]) >= 32 and good["token"] != stale
    first = rt.transition("S_submit", good["token"])
    assert first.ok and (first.from_state, first.to_state) == ("S_read", "S_submit")
    again = rt.transition("S_submit", good["token"])
    assert not again.ok and "already used" in again.reason
    # a token issued before the state changed is no longer valid
    moved_on = rt.transition("S_wait", stale)
    assert not moved_on.ok and "before the workflow moved on" in moved_on.reason
    assert rt.state == "S_submit"


def test_self_check_and_transition_refuse_unknown_and_undeclared_targets(rt):
    with pytest.raises(FsmRefusal, match="'S_mars' is not a state of workflow 'Review'"):
        rt.self_check("S_mars")
    token = rt.self_check("S_wait")["token"]
    assert token.startswith("S_wait:")
    unknown = rt.transition("S_mars", token)
    assert not unknown.ok and "'S_mars' is not a state of workflow 'Review'" in unknown.reason
    assert move(rt, "S_wait").ok
    with pytest.raises(FsmRefusal, match="no transition from S_wait to S_done"):
        rt.self_check("S_done")


def test_refused_transition_changes_nothing_and_returns_the_checkers_message(rt):
    before = rt.frames()
    result = move(rt, "S_submit")
    assert not result.ok and result.reason == "write a note first (write_note)"
    assert rt.frames() == before
    rt.observe("write_note", {}, True)
    assert move(rt, "S_submit").ok
    frame = rt.frames()[-1]
    assert frame["state"] == "S_submit" and frame["commits"] == 1
    assert frame["history"][-1] == {"kind": "transition", "from": "S_read", "to": "S_submit"}


def test_stop_gate_names_the_state_and_its_transitions_and_admits_pause_states(rt):
    blocked = rt.stop_gate()
    assert not blocked.allowed
    assert "Workflow Review is in state S_read" in blocked.reason
    assert "S_submit, S_wait, S_done" in blocked.reason
    assert move(rt, "S_wait").ok
    assert rt.stop_gate().allowed


def test_a_restarted_runtime_carries_on_but_old_tokens_are_refused(tmp_path):
    wf = generic_workflow()
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    rt.enter("Review")
    rt.observe("write_note", {"text": "n"}, True)
    token = rt.self_check("S_submit")["token"]
    assert move(rt, "S_submit").ok is True
    pending = rt.self_check("S_read")["token"]

    again = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    assert again.state == "S_submit" and again.frames() == rt.frames()
    assert "unknown token" in again.transition("S_read", pending).reason
    assert "unknown token" in again.transition("S_submit", token).reason
    assert move(again, "S_read").ok


def test_frames_refuse_a_changed_workflow_or_a_torn_file(tmp_path):
    wf = generic_workflow()
    FsmRuntime(tmp_path / "frames", {wf.name: wf}).enter("Review")
    changed = Workflow.from_text(GENERIC.replace("Read the document", "Read it"), "generic.yaml")
    with pytest.raises(FrameStoreError, match="different version"):
        FsmRuntime(tmp_path / "frames", {changed.name: changed})
    with pytest.raises(FrameStoreError, match="was not given that workflow"):
        FsmRuntime(tmp_path / "frames", {})
    (tmp_path / "frames" / "main.json").write_text('{"schema": 1, "stack": [{"workflow"')
    with pytest.raises(FrameStoreError, match="cannot be read"):
        FsmRuntime(tmp_path / "frames", {wf.name: wf})


def test_frames_are_replaced_atomically_and_leave_no_temp_files(tmp_path):
    wf = generic_workflow()
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    rt.enter("Review")
    for i in range(5):
        rt.observe("read_doc", {"doc": f"d{i}"}, True)
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == ["main.json"]
    on_disk = json.loads((tmp_path / "frames" / "main.json").read_text())
    assert on_disk["stack"] == rt.frames() and len(on_disk["stack"][0]["history"]) == 5
    assert FrameStore(tmp_path / "frames").load()[0].history[-1]["args"] == {"doc": "d4"}


def test_nested_workflows_push_and_pop(tmp_path):
    outer = generic_workflow()
    inner = Workflow.from_text(GENERIC.replace("workflow: Review", "workflow: Inner"), "inner.yaml")
    rt = FsmRuntime(tmp_path / "frames", {outer.name: outer, inner.name: inner})
    rt.enter("Review")
    assert move(rt, "S_done").ok
    rt.enter("Inner")
    assert rt.status()["depth"] == 2 and rt.state == "S_read"
    assert move(rt, "S_done").ok
    rt.exit()
    assert rt.status()["workflow"] == "Review" and rt.state == "S_done"


SHELL = """\
workflow: Shell
tools: [work]
variables: {ticket: null}
initial: S_a
exit: S_b
states:
  S_a: {allow: [work]}
  S_b: {}
transitions:
  - from: S_a
    to: S_b
    guard:
      hard:
        - command: {command}
          timeout: {timeout}
"""


def _shell_runtime(tmp_path, command: str, timeout: float = 5) -> FsmRuntime:
    text = SHELL.replace("{command}", json.dumps(command)).replace("{timeout}", str(timeout))
    wf = Workflow.from_text(text, "shell.yaml")
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf}, {"ticket": "T-7"})
    rt.enter("Shell")
    return rt


def test_shell_check_reads_the_tool_log_and_variables(tmp_path):
    command = 'grep -q \'"tool": "work"\' "$FSM_TOOL_LOG" && grep -q T-7 "$FSM_VARIABLES" && test "$FSM_TARGET" = S_b || { echo "no work for ticket yet"; exit 3; }'
    rt = _shell_runtime(tmp_path, command)
    refused = move(rt, "S_b")
    assert not refused.ok and "failed (exit 3): no work for ticket yet" in refused.reason
    rt.observe("work", {"n": 1}, True)
    assert move(rt, "S_b").ok


def test_shell_check_missing_command_and_timeout_fail_the_guard_with_the_reason(tmp_path):
    missing = _shell_runtime(tmp_path / "m", "./no-such-checker.sh")
    result = move(missing, "S_b")
    assert not result.ok and "guard command not found" in result.reason and missing.state == "S_a"

    slow = _shell_runtime(tmp_path / "s", "sleep 30", timeout=0.3)
    result = move(slow, "S_b")
    assert not result.ok and "timed out after 0.3 s" in result.reason and "counts as a failed guard" in result.reason
    assert slow.state == "S_a"
    assert slow.gate("work", {}).allowed  # the runtime keeps working


class _Reviewer:
    def __init__(self, verdict: bool):
        self.verdict = verdict
        self.prompts = []

    def review(self, prompt, context):
        self.prompts.append((prompt, context.target, len(context.history)))
        return CheckResult(self.verdict, "the notes do not cover section 2" if not self.verdict else "fine")


def test_soft_check_runs_only_with_a_reviewer(tmp_path):
    text = GENERIC.replace("        - check: tests_notes_written\n", "        - check: tests_notes_written\n      soft: {prompt: 'Are the notes faithful?'}\n")
    wf = Workflow.from_text(text, "soft.yaml")
    off = FsmRuntime(tmp_path / "off", {wf.name: wf})
    off.enter("Review")
    off.observe("write_note", {}, True)
    assert move(off, "S_submit").ok  # soft checks are off by default

    reviewer = _Reviewer(False)
    on = FsmRuntime(tmp_path / "on", {wf.name: wf}, reviewer=reviewer)
    on.enter("Review")
    on.observe("write_note", {}, True)
    result = move(on, "S_submit")
    assert not result.ok and result.reason == "review refused the transition: the notes do not cover section 2"
    assert reviewer.prompts == [("Are the notes faithful?", "S_submit", 1)]
    reviewer.verdict = True
    assert move(on, "S_submit").ok


def test_a_check_that_raises_is_a_refusal_not_a_crash(tmp_path):
    from study.fsm import register_check

    @register_check("tests_explodes")
    def explodes(ctx):
        raise KeyError("boom")

    wf = Workflow.from_text(GENERIC.replace("tests_notes_written", "tests_explodes"), "x.yaml")
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    rt.enter("Review")
    result = move(rt, "S_submit")
    assert not result.ok and "check 'tests_explodes' raised KeyError" in result.reason
    assert move(rt, "S_wait").ok
