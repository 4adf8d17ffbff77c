"""SessionBridge without the CLI: hook inputs fed directly, decisions and log events checked.

The bridge must decide exactly as ``study.fsm.hooks`` (the ``study fsm hook`` commands of
``.claude/settings.json``) decides on the same runtime state, and add only logging; it counts
consecutive stop blocks as the CLI does and publishes ``stop_cap_reached``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

import pytest

from sopbench_tools.tool_definitions import DATA_TOOLS
from sopbench_tools.toolbox import ToolBox
from study.fsm import FsmRuntime, Workflow
from study.fsm import hooks as fsm_hooks
from study.paths import prereg_dir
from study.runner.bridge import SessionBridge
from study.protocol.conditions import get_condition
from study.runner.texts import continuation_message, reminder_text
from study.session_io.writer import EventLog

SOP = "mcp__sopbench__"


def _runtime(folder: Path, condition, order: list[str]) -> FsmRuntime:
    wf = Workflow.load(prereg_dir() / "workflows" / condition.workflow)
    rt = FsmRuntime(folder, {wf.name: wf}, {"batch": list(order)})
    rt.enter(wf.name)
    return rt


class Rig:
    """A bridge over a real ToolBox, FSM runtime and EventLog, and a twin runtime that the
    settings.json hook functions decide on."""

    def __init__(self, tmp: Path, condition_name: str = "FSM", *, accounts: int = 2, cap: int | None = None, **changes):
        self.condition = dataclasses.replace(get_condition(condition_name), **changes)
        self.box = ToolBox.for_seed(2, accounts, state_dir=tmp / "tools")
        self.fsm = _runtime(tmp / "fsm", self.condition, self.box.order) if self.condition.uses_fsm else None
        self.twin = _runtime(tmp / "twin", self.condition, self.box.order) if self.condition.uses_fsm else None
        self.log_path = tmp / "events.jsonl"
        self.log = EventLog(self.log_path)
        self.bridge = SessionBridge(self.log, self.box, self.condition, fsm=self.fsm, reminder=reminder_text(),
                                    stop_block_cap=cap)
        self.ids = 0

    def events(self, kind: str | None = None) -> list[dict]:
        events = [json.loads(line) for line in self.log_path.read_text().splitlines()]
        return [e for e in events if kind is None or e["kind"] == kind]

    def pre(self, tool: str, **args) -> tuple[dict, dict]:
        """PreToolUse on the bridge and, with the FSM gate on, the hook function on the twin."""
        self.ids += 1
        hook_input = {"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args, "tool_use_id": f"t{self.ids}"}
        out = asyncio.run(self.bridge.pre_tool_use(hook_input, None, None))
        twin = fsm_hooks.pre_tool_use(self.twin, hook_input, tool_prefix=SOP) if self.twin and self.condition.tool_gate else {}
        return out, twin

    def run_sop(self, tool: str, **args) -> dict:
        """A SOP-Bench call as the CLI makes it: PreToolUse, the server (after_call), PostToolUse."""
        out, twin = self.pre(SOP + tool, **args)
        assert out == twin
        if out:
            return out
        result = self.box.call(tool, args)
        self.bridge.after_call(tool, args, result)
        self.post(SOP + tool, args, ok=result.ok)
        return out

    def post(self, tool: str, args: dict, *, ok: bool, response=None) -> None:
        event = "PostToolUse" if ok else "PostToolUseFailure"
        hook_input = {"hook_event_name": event, "tool_name": tool, "tool_input": args, "tool_use_id": f"t{self.ids}"}
        hook_input.update({"tool_response": response or [{"type": "text", "text": "done"}]} if ok else {"error": "Error: no"})
        asyncio.run(self.bridge.post_tool_use(hook_input, None, None))
        if self.twin is not None:
            fsm_hooks.post_tool_use(self.twin, hook_input, ok=ok, tool_prefix=SOP)

    def fsm_call(self, tool: str, **args) -> dict:
        """An FSM tool call: never gated; the bridge logs it; both runtimes run it."""
        out, twin = self.pre(f"mcp__fsm__{tool}", **args)
        assert out == twin == {}
        for rt in (self.fsm, self.twin):
            if tool == "self_check":
                result = rt.self_check(args["target"])
            else:
                result = rt.transition(args["target"], args["token"])
        ok = not hasattr(result, "ok") or result.ok
        self.post(f"mcp__fsm__{tool}", args, ok=ok, response=[{"type": "text", "text": json.dumps(str(result))}])
        return result

    def move(self, target: str) -> None:
        token_bridge = self.fsm.self_check(target)["token"]
        token_twin = self.twin.self_check(target)["token"]
        assert self.fsm.transition(target, token_bridge).ok and self.twin.transition(target, token_twin).ok

    def stop(self, active: bool = False) -> dict:
        return asyncio.run(self.bridge.on_stop({"hook_event_name": "Stop", "stop_hook_active": active}, None, None))

    def twin_stop(self) -> dict:
        return fsm_hooks.stop(self.twin, {"hook_event_name": "Stop"})


def history(rt: FsmRuntime) -> list[dict]:
    return rt.frames()[-1]["history"]


def test_the_gate_decides_as_the_settings_json_hook_and_a_refusal_is_logged(tmp_path):
    rig = Rig(tmp_path)
    a, b = rig.box.order
    out = rig.run_sop("submit_decision", account_id=a, action="No Action")
    assert fsm_hooks.refusal(out).startswith("submit_decision is not permitted in this state (state S_investigate")
    assert out == fsm_hooks.deny_tool(fsm_hooks.refusal(out))
    [refused] = rig.events("tool_call")
    assert (refused["server"], refused["tool"], refused["account"], refused["allowed"], refused["ok"]) == ("sopbench", "submit_decision", a, False, False)
    assert refused["error"] == fsm_hooks.refusal(out) and refused["state"] == "S_investigate" and refused["call_id"] == "t1"
    assert not rig.box.decisions  # the tool never ran

    for tool in DATA_TOOLS:
        assert rig.run_sop(tool, account_id=a) == {}
    rig.run_sop("record_analysis", account_id=a, step1_scores={}, step2_violation_type="x", step3_risk_severity="NONE", step4_action="No Action")
    # the FSM's own tools are never gated, also in S_investigate
    assert rig.pre("mcp__fsm__status") == ({}, {})
    logged = rig.events("tool_call")[1:]
    assert [e["tool"] for e in logged] == [*DATA_TOOLS, "record_analysis"] and all(e["allowed"] for e in logged)
    assert [e["call_id"] for e in logged] == [f"t{i}" for i in range(2, 8)]  # ids from PreToolUse


def test_completed_calls_reach_the_fsm_history_as_with_the_post_tool_use_hooks(tmp_path):
    rig = Rig(tmp_path)
    a, _ = rig.box.order
    rig.run_sop("investigate_account", account_id=a)
    rig.run_sop("investigate_account", account_id="NOT-AN-ACCOUNT")  # the toolbox refuses it: PostToolUseFailure
    rig.fsm_call("self_check", target="S_decide")  # FSM tools are not recorded
    calls = [e for e in history(rig.fsm) if e["kind"] == "call"]
    assert calls == [{"kind": "call", "tool": "investigate_account", "args": {"account_id": a}, "ok": True},
                     {"kind": "call", "tool": "investigate_account", "args": {"account_id": "NOT-AN-ACCOUNT"}, "ok": False}]
    assert history(rig.fsm) == history(rig.twin)
    fsm_logged = rig.events("tool_call")[-1]
    assert (fsm_logged["server"], fsm_logged["tool"], fsm_logged["ok"], fsm_logged["account"]) == ("fsm", "self_check", True, None)


def test_a_refused_transition_is_logged_as_a_failed_fsm_call(tmp_path):
    rig = Rig(tmp_path)
    result = rig.fsm_call("transition", target="S_decide", token="forged")
    assert not result.ok
    logged = rig.events("tool_call")[-1]
    assert (logged["tool"], logged["ok"], logged["allowed"]) == ("transition", False, True) and logged["error"] == "Error: no"


def test_the_stop_gate_blocks_with_the_continuation_message_while_accounts_are_left(tmp_path):
    rig = Rig(tmp_path)
    a, b = rig.box.order
    out = rig.stop()
    message = continuation_message(2, a, "S_investigate")
    assert out == fsm_hooks.block_stop(message)
    assert bool(rig.twin_stop()) and "S_investigate" in fsm_hooks.refusal(rig.twin_stop())  # the same decision, the FSM's text
    [stop] = rig.events("stop")
    assert (stop["outcome"], stop["reason"], stop["accounts_left"]) == ("blocked", message, 2)
    # without the state sentence (a condition that does not name the state)
    rig2 = Rig(tmp_path / "two", state_in_message=False)
    assert fsm_hooks.refusal(rig2.stop()) == continuation_message(2, a)


@pytest.mark.parametrize("name,changes,blocks", [
    ("FSM", {}, True), ("Stop-only", {}, True), ("Gates-only", {}, False), ("Plain", {}, False),
    ("FSM", {"stop_gate": False}, False),
])
def test_which_conditions_block_a_stop(tmp_path, name, changes, blocks):
    rig = Rig(tmp_path, name, **changes)
    assert bool(rig.stop()) is blocks
    assert rig.events("stop")[-1]["outcome"] == ("blocked" if blocks else "ended")


def test_no_gate_without_tool_gate(tmp_path):
    rig = Rig(tmp_path, "Stop-only")
    a, _ = rig.box.order
    out, _ = rig.pre(SOP + "submit_decision", account_id=a, action="No Action")
    assert out == {}
    rig2 = Rig(tmp_path / "two", "FSM", tool_gate=False)
    out, _ = rig2.pre(SOP + "submit_decision", account_id=a, action="No Action")
    assert out == {} and rig2.events("tool_call") == []


def test_the_turn_may_end_once_every_account_is_decided_even_inside_the_workflow(tmp_path):
    rig = Rig(tmp_path, accounts=1)
    (a,) = rig.box.order
    assert rig.box.call("submit_decision", {"account_id": a, "action": "No Action"}).ok
    assert rig.stop() == {} and rig.fsm.state == "S_investigate"
    assert rig.events("stop")[-1] == {**rig.events("stop")[-1], "outcome": "ended", "accounts_left": 0}


def test_the_stop_block_cap_is_counted_as_the_cli_counts_it(tmp_path):
    rig = Rig(tmp_path, cap=2)
    assert rig.stop() and rig.stop(active=True)
    rig.pre(SOP + "list_batch")  # a tool call starts the count again
    assert not rig.bridge.stop_cap_reached
    assert rig.stop() and rig.stop(active=True)
    out = rig.stop(active=True)  # the third in a row: the CLI overrides the block and ends the turn
    assert out == fsm_hooks.block_stop(continuation_message(2, rig.box.order[0], "S_investigate"))
    assert rig.bridge.stop_cap_reached
    stops = rig.events("stop")
    assert [s["outcome"] for s in stops] == ["blocked"] * 4 + ["ended"]
    assert stops[-1]["block_cap_reached"] is True and stops[-1]["reason"] is None
    rig.bridge.new_call()  # a new query() call: a fresh count, the flag cleared
    assert not rig.bridge.stop_cap_reached
    assert rig.stop() and rig.stop() and not rig.bridge.stop_cap_reached


def test_no_cap_without_stop_block_cap(tmp_path):
    rig = Rig(tmp_path)
    for _ in range(5):
        assert rig.stop()
    assert not rig.bridge.stop_cap_reached and {s["outcome"] for s in rig.events("stop")} == {"blocked"}


def test_reminder_once_per_account_and_decisions_counted(tmp_path):
    rig = Rig(tmp_path, "Remind")
    a, _ = rig.box.order
    first = rig.bridge.after_call("investigate_account", {"account_id": a}, rig.box.call("investigate_account", {"account_id": a}))
    again = rig.bridge.after_call("get_violation_history", {"account_id": a}, rig.box.call("get_violation_history", {"account_id": a}))
    assert first == [reminder_text()] and again == []
    before = rig.bridge.last_decision_at
    rig.bridge.after_call("submit_decision", {"account_id": a, "action": "No Action"},
                          rig.box.call("submit_decision", {"account_id": a, "action": "No Action"}))
    assert rig.bridge.decisions == 1 and rig.bridge.accounts_left == 1 and rig.bridge.last_decision_at >= before
    assert [e["reminder_attached"] for e in rig.events("tool_call")] == [True, False, False]


def test_transitions_and_compactions_are_logged(tmp_path):
    rig = Rig(tmp_path)
    rig.bridge.on_fsm_event("transition", {"from": "S_investigate", "to": "S_decide", "ok": False, "reason": "no"})
    asyncio.run(rig.bridge.pre_compact({"hook_event_name": "PreCompact", "trigger": "manual"}, None, None))
    kinds = [(e["kind"], e.get("to"), e.get("trigger")) for e in rig.events()]
    assert kinds == [("transition", "S_decide", None), ("compaction", None, "manual")]
