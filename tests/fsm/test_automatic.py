"""Runtime-driven (automatic) transitions: committed once by the runtime right after the call that
makes the guard hold, nothing otherwise, atomically on disk; the agent hears of it once, in that
call's result, unless the transition is quiet (FSM-lean's moves between accounts); denials in such
a state say the one next thing. And the preregistered FSM is untouched: its file is the frozen one
and it has no automatic transition."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from fsm_helpers import BOUND, MAIN, REPO, WORKFLOWS, investigate, record
from study.fsm import FsmRuntime, Workflow, WorkflowError
from study.fsm import hooks as fsm_hooks
from study.fsm.build_referral_workflow import MAIN_FILE, generated_files
from study.fsm.mermaid import to_mermaid

LEAN = WORKFLOWS / "exploratory" / "fsm_lean.yaml"
LEAN_BOUND = WORKFLOWS / "exploratory" / "fsm_lean_bound.yaml"
BATCH = ["A1", "A2"]


def told(text: str, name: str = "told.yaml") -> Workflow:
    """A workflow's text with every transition told (no ``quiet``)."""
    return Workflow.from_text(text.replace("  quiet: true\n", ""), name)

NOTES = """\
workflow: Notes
tools: [read_doc, write_note, submit]
initial: S_read
exit: S_done
pause: [S_done]
states:
  S_read:
    instructions: Read, then write a note.
    allow: [read_doc, write_note]
  S_submit:
    instructions: Submit the note.
    allow: [submit]
  S_done:
    instructions: Done.
transitions:
  - {from: S_read, to: S_submit, automatic: true, guard: {hard: [{check: tests_notes_written}]}}
  - {from: S_submit, to: S_done, automatic: true, guard: {hard: [{command: "grep -q '\\"submit\\"' \\"$FSM_TOOL_LOG\\""}]}}
"""


@pytest.fixture
def lean(tmp_path) -> FsmRuntime:
    wf = Workflow.load(LEAN)
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf}, {"batch": BATCH})
    rt.enter(wf.name)
    return rt


def _on_disk(tmp_path) -> dict:
    return json.loads((tmp_path / "frames" / "main.json").read_text())["stack"][-1]


def _observe_all(rt: FsmRuntime, calls) -> list:
    moved = []
    for tool, args, ok in calls:
        moved += rt.observe(tool, args, ok)
    return moved


def test_the_guard_holding_commits_the_transition_once_with_the_call_on_disk(lean, tmp_path):
    assert _observe_all(lean, investigate("A1")) == []           # the guard does not hold yet
    moved = lean.observe(*record("A1"))
    assert [(m.ok, m.from_state, m.to_state) for m in moved] == [(True, "S_investigate", "S_decide")]
    assert moved[0].reason == "Account A1 is fully investigated and recorded; submit its decision."
    frame = _on_disk(tmp_path)
    assert (frame["state"], frame["commits"], frame["variables"]["account"]) == ("S_decide", 1, "A1")
    assert frame["history"][-2:] == [{"kind": "call", "tool": "record_analysis", "args": record("A1")[1], "ok": True},
                                     {"kind": "transition", "from": "S_investigate", "to": "S_decide"}]
    # committed once: further calls in S_decide that do not make Eq. 5 hold change nothing
    assert lean.observe("list_batch", {}, True) == [] and lean.state == "S_decide" and _on_disk(tmp_path)["commits"] == 1


def test_a_guard_that_fails_changes_nothing_but_the_history(lean, tmp_path):
    _observe_all(lean, investigate("A1", ["investigate_account", "analyze_traffic_patterns"]))
    assert lean.observe(*record("A1")) == []                     # partial data: Eq. 4 fails
    _observe_all(lean, investigate("A2") + investigate("A1"))
    lean.observe("analyze_traffic_patterns", {"account_id": "A2"}, True)
    assert lean.observe(*record("A1")) == []                     # interleaved: Eq. 4 fails
    assert lean.observe("record_analysis", {"account_id": "A1"}, False) == []   # a failed call never moves it
    frame = _on_disk(tmp_path)
    assert (frame["state"], frame["commits"], frame["variables"]["account"]) == ("S_investigate", 0, None)
    assert [e for e in frame["history"] if e["kind"] == "transition"] == []


def test_the_last_decision_moves_through_s_investigate_to_s_done_in_one_commit(lean, tmp_path):
    for account in BATCH:
        _observe_all(lean, investigate(account) + [record(account)])
        moved = lean.observe("submit_decision", {"account_id": account, "action": "No Action"}, True)
    assert [(m.from_state, m.to_state) for m in moved] == [("S_decide", "S_investigate"), ("S_investigate", "S_done")]
    # the quiet move back to S_investigate is not told; the move to S_done is
    assert lean.arrival_text(moved) == ("All 2 accounts are decided. Now in workflow state S_done. "
                                        "The batch is complete: you may end your turn.")
    assert _on_disk(tmp_path)["state"] == "S_done" and lean.stop_gate().allowed   # S_done is a pause state


def test_a_restarted_runtime_carries_on_and_commits_when_the_guard_holds(lean, tmp_path):
    _observe_all(lean, investigate("A1"))
    wf = Workflow.load(LEAN)
    again = FsmRuntime(tmp_path / "frames", {wf.name: wf})    # e.g. the next hook process
    assert [(m.from_state, m.to_state) for m in again.observe(*record("A1"))] == [("S_investigate", "S_decide")]
    assert FsmRuntime(tmp_path / "frames", {wf.name: wf}).state == "S_decide"   # and the next one starts there


def test_the_hook_tells_the_agent_once_only_when_the_state_changes(tmp_path):
    wf = told(LEAN.read_text())
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf}, {"batch": BATCH})
    rt.enter(wf.name)

    def post(tool: str, args: dict, event: str = "PostToolUse") -> dict:
        return fsm_hooks.post_tool_use(rt, {"hook_event_name": event, "tool_name": f"mcp__sopbench__{tool}", "tool_input": args},
                                       tool_prefix="mcp__sopbench__", on_transition=seen.append)

    seen: list = []
    assert [post(t, a) for t, a, _ in investigate("A1")] == [{}] * 5
    out = post("record_analysis", record("A1")[1])
    assert out == {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": (
        "Account A1 is fully investigated and recorded; submit its decision. Now in workflow state S_decide. "
        "Call submit_decision for it with the action of your STEP 4.")}}
    assert post("list_batch", {}) == {} and [(s.from_state, s.to_state) for s in seen] == [("S_investigate", "S_decide")]


def test_fsm_leans_moves_between_accounts_are_quiet_and_only_the_move_to_s_done_is_told(lean):
    """FSM-lean tells the agent nothing when it moves from one account to the next (its first
    message says how it moves; its refusals say what to do otherwise), so no note comes on top of
    the per-account reminder; the runner still logs every move (on_transition)."""
    def post(tool: str, args: dict) -> dict:
        return fsm_hooks.post_tool_use(lean, {"hook_event_name": "PostToolUse", "tool_name": f"mcp__sopbench__{tool}",
                                              "tool_input": args}, tool_prefix="mcp__sopbench__", on_transition=seen.append)

    seen: list = []
    outputs = []
    for account in BATCH:
        outputs += [post(t, a) for t, a, _ in investigate(account) + [record(account)]]
        outputs.append(post("submit_decision", {"account_id": account, "action": "No Action"}))
    assert outputs[:-1] == [{}] * (len(outputs) - 1) and lean.state == "S_done"
    assert outputs[-1]["hookSpecificOutput"]["additionalContext"] == (
        "All 2 accounts are decided. Now in workflow state S_done. The batch is complete: you may end your turn.")
    assert [(s.from_state, s.to_state) for s in seen] == [
        ("S_investigate", "S_decide"), ("S_decide", "S_investigate"), ("S_investigate", "S_decide"),
        ("S_decide", "S_investigate"), ("S_investigate", "S_done")]


def test_the_hook_names_the_state_its_call_moved_to_even_if_another_process_moves_it_next(tmp_path):
    """The arrival text is made in the critical section of the call's move (issue 21): a second
    runtime on the same frames (another hook process) moving the state right after cannot change it."""
    wf = told(LEAN.read_text())
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf}, {"batch": BATCH}, shared=True)
    rt.enter(wf.name)
    other = FsmRuntime(tmp_path / "frames", {wf.name: wf}, shared=True)
    _observe_all(rt, investigate("A1"))

    def other_process_decides(_moved) -> None:      # runs after the move, before the hook returns
        other.observe("submit_decision", {"account_id": "A1", "action": "No Action"}, True)

    out = fsm_hooks.post_tool_use(rt, {"hook_event_name": "PostToolUse", "tool_name": "record_analysis",
                                       "tool_input": record("A1")[1]}, on_transition=other_process_decides)
    assert out["hookSpecificOutput"]["additionalContext"] == (
        "Account A1 is fully investigated and recorded; submit its decision. Now in workflow state S_decide. "
        "Call submit_decision for it with the action of your STEP 4.")
    assert rt.state == "S_investigate"               # the other process did move it on


def test_denials_and_the_stop_gate_in_an_automatic_state_say_the_one_next_thing(lean):
    assert lean.gate("submit_decision", {"account_id": "A1", "action": "No Action"}).reason == (
        "submit_decision is not permitted in this state (workflow state S_investigate). Next: No record_analysis yet: "
        "investigate one account with all of investigate_account, analyze_traffic_patterns, analyze_temporal_patterns, "
        "get_violation_history, get_financial_impact, call record_analysis for it.")
    _observe_all(lean, investigate("A1") + [record("A1")])
    assert lean.gate("investigate_account", {"account_id": "A2"}).reason == (
        "investigate_account is not permitted in this state (workflow state S_decide). Next: Account A1 (the last "
        "record_analysis) has no decision since its record: call submit_decision for A1 first.")
    assert lean.stop_gate() == lean.stop_gate().__class__(False, (
        "Workflow state S_decide: the turn cannot end here. Next: Account A1 (the last record_analysis) has no decision "
        "since its record: call submit_decision for A1 first."))


def test_the_fsm_workflow_is_untouched_no_automatic_move_and_its_denial_as_before(tmp_path, main_wf):
    rt = FsmRuntime(tmp_path / "frames", {main_wf.name: main_wf}, {"batch": BATCH})
    rt.enter(main_wf.name)
    assert _observe_all(rt, investigate("A1") + [record("A1")]) == [] and rt.state == "S_investigate"
    assert fsm_hooks.post_tool_use(rt, {"tool_name": "mcp__sopbench__list_batch", "tool_input": {}},
                                   tool_prefix="mcp__sopbench__") == {}
    assert rt.gate("submit_decision", {"account_id": "A1"}).reason.startswith(
        "submit_decision is not permitted in this state (state S_investigate of workflow ReferralAbusePerAccount). "
        "In S_investigate you may call: ")
    assert not any(t.automatic for t in main_wf.transitions.values()) and main_wf.needs_agent_moves


def test_the_preregistered_fsm_workflow_file_is_the_frozen_one_and_still_generated_byte_for_byte():
    manifest = dict(reversed(line.split("  ", 1)) for line in (REPO / "preregistration" / "MANIFEST.sha256").read_text().splitlines())
    frozen = manifest["preregistration/workflows/referral_abuse_per_account.yaml"]
    assert hashlib.sha256(MAIN.read_bytes()).hexdigest() == frozen == (
        "56d85d82446ff03b5d4c0b97f185e44c2fe1b47eb6ac8a2e2e2ec62a3c93d011")
    assert generated_files()[MAIN_FILE] == MAIN.read_text(encoding="utf-8")


@pytest.mark.parametrize("lean_file, fsm_file", [(LEAN, MAIN), (LEAN_BOUND, BOUND)])
def test_fsm_lean_has_fsms_states_permissions_guards_and_only_automatic_transitions(lean_file, fsm_file):
    lean_wf, main_wf = Workflow.load(lean_file), Workflow.load(fsm_file)
    assert lean_wf.states.keys() == main_wf.states.keys() and (lean_wf.initial, lean_wf.exit) == (main_wf.initial, main_wf.exit)
    def rules(permissions) -> list:
        return [[(r.tool, r.args, r.reason) for r in rules] for rules in (permissions.allow, permissions.deny)]

    for name, state in main_wf.states.items():
        assert rules(lean_wf.states[name].permissions) == rules(state.permissions), name
    assert lean_wf.transitions.keys() == main_wf.transitions.keys()
    for key, t in main_wf.transitions.items():
        lean_t = lean_wf.transitions[key]
        assert [(c.name, dict(c.params)) for c in lean_t.hard] == [(c.name, dict(c.params)) for c in t.hard]
        assert lean_t.automatic and not t.automatic
        assert lean_t.quiet == (key[1] != "S_done") and not t.quiet   # only the move to S_done is told
    assert lean_wf.pause == {"S_done"} and not lean_wf.needs_agent_moves
    assert "    S_investigate --> S_decide : item_recorded_exclusively (automatic, quiet)" in to_mermaid(lean_wf).splitlines()
    assert "    S_investigate --> S_done : batch_complete (automatic)" in to_mermaid(lean_wf).splitlines()
    assert "(automatic)" not in to_mermaid(main_wf)


def test_a_generic_workflow_moves_by_a_named_and_a_shell_guard(tmp_path):
    wf = Workflow.from_text(NOTES, "notes.yaml")
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})
    rt.enter(wf.name)
    assert rt.observe("read_doc", {}, True) == [] and rt.state == "S_read"
    assert [m.to_state for m in rt.observe("write_note", {}, True)] == ["S_submit"]
    assert [m.to_state for m in rt.observe("submit", {}, True)] == ["S_done"]


def test_automatic_must_be_true_or_false(tmp_path):
    with pytest.raises(WorkflowError) as err:
        Workflow.from_text(NOTES.replace("automatic: true, guard: {hard: [{check", "automatic: sometimes, guard: {hard: [{check"), "notes.yaml")
    assert str(err.value) == "notes.yaml:16: transition S_read -> S_submit: 'automatic' must be true or false, not 'sometimes'"


def test_quiet_must_be_true_or_false_and_only_on_an_automatic_transition(tmp_path):
    with pytest.raises(WorkflowError) as err:
        Workflow.from_text(NOTES.replace("automatic: true, guard: {hard: [{check", "automatic: true, quiet: 1, guard: {hard: [{check"), "notes.yaml")
    assert str(err.value) == "notes.yaml:16: transition S_read -> S_submit: 'quiet' must be true or false, not 1"
    with pytest.raises(WorkflowError) as err:
        Workflow.from_text(NOTES.replace("automatic: true, guard: {hard: [{check", "quiet: true, guard: {hard: [{check"), "notes.yaml")
    assert str(err.value).startswith("notes.yaml:16: transition S_read -> S_submit: 'quiet' applies to automatic "
                                     "transitions only")
    quiet = Workflow.from_text(NOTES.replace("automatic: true, guard: {hard: [{check", "automatic: true, quiet: true, guard: {hard: [{check"), "notes.yaml")
    rt = FsmRuntime(tmp_path / "frames", {quiet.name: quiet})
    rt.enter(quiet.name)
    assert fsm_hooks.post_tool_use(rt, {"tool_name": "write_note", "tool_input": {}}) == {} and rt.state == "S_submit"


CRASH = r"""
import os, signal, sys
from pathlib import Path
from study.fsm import FsmRuntime, Workflow
from study.fsm.frames import FrameStore
from sopbench_tools.tool_definitions import DATA_TOOLS

lean, frames, where = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
wf = Workflow.load(lean)
rt = FsmRuntime(frames, {wf.name: wf}, {"batch": ["A1", "A2"]})
rt.enter(wf.name)
for tool in DATA_TOOLS:
    rt.observe(tool, {"account_id": "A1"}, True)
die = lambda: os.kill(os.getpid(), signal.SIGKILL)
real_save, real_replace = FrameStore.save, os.replace
if where == "before-write":
    FrameStore.save = lambda self, stack: die()
elif where == "before-rename":
    os.replace = lambda src, dst: die()
elif where == "after-rename":
    os.replace = lambda src, dst: (real_replace(src, dst), die())
rt.observe("record_analysis", {"account_id": "A1"}, True)   # the call that makes Eq. 4 hold
print("returned", flush=True)
"""


@pytest.mark.parametrize("where, state", [("before-write", "S_investigate"), ("before-rename", "S_investigate"),
                                          ("after-rename", "S_decide"), ("no-crash", "S_decide")])
def test_a_crash_between_the_tool_result_and_the_commit_leaves_the_frame_before_or_after_never_torn(tmp_path, where, state):
    proc = subprocess.run([sys.executable, "-c", CRASH, str(LEAN), str(tmp_path / "frames"), where],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert (proc.returncode, proc.stdout) == ((0, "returned\n") if where == "no-crash" else (-9, "")), proc.stderr
    wf = Workflow.load(LEAN)
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf})        # a restarted runtime carries on from disk
    frame = rt.frames()[-1]
    tail = [(e["kind"], e.get("tool"), e.get("to")) for e in frame["history"][5:]]
    if state == "S_investigate":   # before: neither the call nor the transition
        assert (rt.state, frame["commits"], tail, frame["variables"]["account"]) == ("S_investigate", 0, [], None)
    else:                          # after: the call and the transition together
        assert (rt.state, frame["commits"], frame["variables"]["account"]) == ("S_decide", 1, "A1")
        assert tail == [("call", "record_analysis", None), ("transition", None, "S_decide")]
