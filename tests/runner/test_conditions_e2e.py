"""Every condition through the real Claude Code CLI against a scripted model: well-formed logs,
and what the model actually received (system prompt, reminders, refusals, stop blocks, resumes)."""

from __future__ import annotations

import json

import pytest

from sopbench_tools.dataset import load_task
from sopbench_tools.tool_definitions import DATA_TOOLS
from study.session_io.meta import CORE_FIELDS
from study.runner.texts import continuation_message, reminder_text

pytestmark = pytest.mark.e2e


def exchanges(request: dict) -> list[dict]:
    """Every tool call in a request's conversation with the result the model got:
    {"tool", "input", "result" (text), "is_error"}."""
    calls: dict[str, dict] = {}
    order = []
    for message in request["messages"]:
        if not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block.get("type") == "tool_use":
                calls[block["id"]] = {"tool": block["name"].split("__")[-1], "input": block["input"]}
                order.append(block["id"])
            elif block.get("type") == "tool_result":
                content = block["content"]
                text = content if isinstance(content, str) else "\n".join(c.get("text", "") for c in content)
                calls[block["tool_use_id"]].update(result=text, is_error=bool(block.get("is_error")))
    return [calls[i] for i in order if "result" in calls[i]]


def user_texts(request: dict) -> list[str]:
    return [b["text"] if isinstance(b, dict) else b
            for m in request["messages"] if m["role"] == "user"
            for b in (m["content"] if isinstance(m["content"], list) else [m["content"]])
            if isinstance(b, str) or b.get("type") == "text"]


def test_plain_completes_with_a_well_formed_log_transcript_and_cost(kit):
    a, b = kit.batch(2, 2)
    ran = kit.run("Plain", kit.full_account(a) + kit.full_account(b) + [("text", "All accounts are decided.")])
    kit.check_well_formed(ran.events)
    start = ran.events[0]
    assert (start["condition"], start["seed"], start["order"], start["manifest_sha256"]) == ("Plain", 2, [a, b], "unchecked")
    assert start["cli_version"] == ran.meta["cli_version"] and start["cli_version"].count(".") == 2
    assert start["cli_settings"]["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] == "50"
    assert start["cli_settings"]["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert start["limits"]["turns"] == 6000
    calls = ran.kinds("tool_call")
    assert [c["tool"] for c in calls] == 2 * (list(DATA_TOOLS) + ["record_analysis", "submit_decision"])
    assert all(c["ok"] and c["allowed"] and c["call_id"] for c in calls)
    assert [c["account"] for c in calls] == [a] * 7 + [b] * 7
    assert ran.kinds("assistant_text")[-1]["text"] == "All accounts are decided."
    assert ran.kinds("stop") == [{**ran.kinds("stop")[0], "accounts_left": 0, "outcome": "ended"}]
    end = ran.events[-1]
    assert end["status"] == "completed" and ran.meta["status"] == "completed"
    assert (ran.meta["decisions"], ran.meta["exploratory"], ran.meta["voided"]) == (2, True, False)
    assert set(CORE_FIELDS) <= set(ran.meta)
    assert end["cost_usd"] > 0 and end["cost_usd"] == ran.meta["cost_usd"]
    assert ran.meta["session_id"] and (ran.dir / "transcript.jsonl").stat().st_size > 0
    transcript = [json.loads(line) for line in (ran.dir / "transcript.jsonl").read_text().splitlines()]
    assert any(t.get("sessionId") == ran.meta["session_id"] for t in transcript)
    # no reminder and no SOP copy in the system prompt for Plain
    assert not any(reminder_text() in x["result"] for x in exchanges(ran.requests[-1]))
    assert load_task().sop not in json.dumps(ran.requests[0]["system"])
    # the first message carries the SOP; built-in tools are off, only the MCP tools are offered
    assert load_task().sop in user_texts(ran.requests[0])[-1]
    offered = sorted(t["name"] for t in ran.requests[0]["tools"])
    assert offered and all(name.startswith("mcp__sopbench__") for name in offered)


def test_sys_appends_the_sop_copy_to_claude_codes_system_prompt(kit):
    (a,) = kit.batch(2, 1)
    ran = kit.run("Sys", kit.full_account(a), accounts=1)
    system = json.dumps(ran.requests[0]["system"])
    assert json.dumps(load_task().sop)[1:-1] in system
    assert "Claude Code" in system  # the default preset, with the copy appended
    assert ran.status == "completed"


def test_remind_attaches_the_reminder_once_per_account_to_its_first_data_result(kit):
    a, b = kit.batch(2, 2)
    steps = (kit.investigate(a) + [kit.tool("investigate_account", account_id=a)] + kit.record_and_submit(a)
             + kit.investigate(b) + kit.record_and_submit(b))
    ran = kit.run("Remind", steps)
    seen = exchanges(ran.requests[-1])
    with_reminder = [(x["tool"], x["input"].get("account_id")) for x in seen if reminder_text() in x["result"]]
    assert with_reminder == [("investigate_account", a), ("investigate_account", b)]
    assert [(c["tool"], c["account"]) for c in ran.kinds("tool_call") if c["reminder_attached"]] == with_reminder
    assert all(x["result"].count(reminder_text()) <= 1 for x in seen)
    assert ran.status == "completed"
    kit.check_well_formed(ran.events)


def test_plain_loop_is_resumed_with_the_continuation_message_and_logs_each_resume(kit):
    a, b = kit.batch(2, 2)
    steps = kit.full_account(a) + [("text", "Pausing here.")] + [("text", "Still pausing.")] + kit.full_account(b)
    ran = kit.run("Plain-loop", steps)
    assert [(r["n"], r["accounts_left"]) for r in ran.kinds("resume")] == [(1, 1), (2, 1)]
    assert [(s["accounts_left"], s["outcome"]) for s in ran.kinds("stop")] == [(1, "ended"), (1, "ended"), (0, "ended")]
    # the model received the continuation message as the resumed call's prompt
    assert continuation_message(1, b) in user_texts(ran.requests[-1])
    assert (ran.status, ran.meta["resumes"], ran.meta["decisions"]) == ("completed", 2, 2)
    kit.check_well_formed(ran.events)


def test_fsm_refuses_a_decision_in_s_investigate_blocks_stops_and_runs_to_the_end(kit):
    a, b = kit.batch(2, 2)
    steps = (
        [kit.tool("submit_decision", account_id=a, action="No Action")]
        + kit.investigate(a) + kit.record_and_submit(a)[:1]
        + [("text", "I will stop here.")]
        + kit.transition_to("S_decide") + kit.record_and_submit(a)[1:] + kit.transition_to("S_investigate")
        + kit.investigate(b) + kit.record_and_submit(b)[:1]
        + kit.transition_to("S_decide") + kit.record_and_submit(b)[1:]
        + [("text", "All decided.")]
    )
    ran = kit.run("FSM", steps)
    kit.check_well_formed(ran.events)
    refused = [c for c in ran.kinds("tool_call") if not c["allowed"]]
    assert [(c["tool"], c["state"], c["ok"]) for c in refused] == [("submit_decision", "S_investigate", False)]
    # the model received the refusal reason as the tool's error result
    first = exchanges(ran.requests[-1])[0]
    assert first["tool"] == "submit_decision" and first["is_error"] and refused[0]["error"] in first["result"]
    blocked = [s for s in ran.kinds("stop") if s["outcome"] == "blocked"]
    assert len(blocked) == 1 and blocked[0]["accounts_left"] == 2
    assert blocked[0]["reason"] == continuation_message(2, a, state="S_investigate")
    assert any(blocked[0]["reason"] in t for t in user_texts(ran.requests[-1]))
    moves = [(t["from"], t["to"], t["ok"]) for t in ran.kinds("transition")]
    assert moves == [(None, "S_investigate", True), ("S_investigate", "S_decide", True),
                     ("S_decide", "S_investigate", True), ("S_investigate", "S_decide", True)]
    assert all(c["state"] for c in ran.kinds("tool_call"))
    assert (ran.status, ran.meta["decisions"]) == ("completed", 2)
    # the reminder reaches the FSM agent too, once per account
    assert sum(reminder_text() in x["result"] for x in exchanges(ran.requests[-1])) == 2


def test_stop_only_blocks_stops_with_accounts_left_without_naming_a_state(kit):
    (a,) = kit.batch(2, 1)
    ran = kit.run("Stop-only", [("text", "Done for now.")] + kit.full_account(a) + [("text", "Finished.")], accounts=1)
    assert [(s["accounts_left"], s["outcome"]) for s in ran.kinds("stop")] == [(1, "blocked"), (0, "ended")]
    assert ran.kinds("stop")[0]["reason"] == continuation_message(1, a)
    assert not ran.kinds("resume") and ran.status == "completed"
    assert not [c for c in ran.kinds("tool_call") if not c["allowed"]]  # no tool-call gate


def test_gates_only_gates_tools_and_is_resumed_instead_of_blocked(kit):
    a, _b = kit.batch(2, 2)
    steps = ([kit.tool("submit_decision", account_id=a, action="No Action")] + kit.investigate(a)
             + kit.record_and_submit(a)[:1] + kit.transition_to("S_decide") + kit.record_and_submit(a)[1:]
             + [("text", "Taking a break.")])
    ran = kit.run("Gates-only", steps, limits={"resumes": 1})
    assert [c["tool"] for c in ran.kinds("tool_call") if not c["allowed"]] == ["submit_decision"]
    assert all(s["outcome"] == "ended" for s in ran.kinds("stop"))
    assert [(r["n"], r["accounts_left"]) for r in ran.kinds("resume")] == [(1, 1)]
    # the resume message carries no state sentence (FSM only)
    assert continuation_message(1, _b) in user_texts(ran.requests[-1])
    assert ran.status == "limit:resumes"
    kit.check_well_formed(ran.events)
