"""Each limit, set tiny, ends a session with its status; API errors void it; a context overflow
does not. All through the real Claude Code CLI against a scripted model."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.e2e

NO_RETRIES = {"CLAUDE_CODE_MAX_RETRIES": "0"}  # the CLI's own retries would only slow the test


def test_turns_limit(kit):
    (a,) = kit.batch(2, 1)
    ran = kit.run("Plain", kit.full_account(a), accounts=1, limits={"turns": 2})
    assert ran.status == "limit:turns" and ran.meta["voided"] is False
    assert ran.events[0]["limits"]["turns"] == 2  # the effective limits are recorded


def test_spending_cap_ends_the_call_while_the_response_that_reaches_it_streams(kit):
    (a,) = kit.batch(2, 1)
    # each scripted response costs $0.00125 at Haiku list prices (1,000 tokens in, 50 out); the input
    # side of the 4th brings the session to $0.00475, past the cap of $0.0045
    ran = kit.run("Plain", kit.full_account(a), accounts=1, limits={"spending_usd": 0.0045})
    assert ran.status == "limit:spending" and ran.meta["voided"] is False
    assert len(ran.kinds("tool_call")) <= 4 and ran.meta["decisions"] == 0
    assert len(ran.requests) <= 5  # the CLI is ended at once, not left to ask the model again
    assert not (ran.dir / "tools" / "decisions.jsonl").exists()  # nothing was decided after the end
    # the killed call reported no cost: the runner's price of its responses stands in for it
    assert ran.meta["cost_complete"] is False
    assert 0.0045 <= ran.meta["cost_usd"] == ran.meta["cost_estimated_usd"] <= 0.005
    assert not any("USD budget" in json.dumps(r) for r in ran.requests)  # the model never saw the cap


def test_spending_cap_counts_the_earlier_calls_of_a_resumed_session(kit):
    # one $0.00125 response per call: after two calls $0.0025 is spent, below the cap, so the
    # session is resumed; the third call's first response reaches $0.003 and ends it
    ran = kit.run("Plain-loop", [("text", "Pause.")] * 5, limits={"spending_usd": 0.003})
    assert ran.status == "limit:spending" and len(ran.requests) == 3
    # the third call is ended at the cap; whether the CLI reported its result first is a race of
    # the stream (its call_end then says what it cost), never a fourth request or another status
    costs = [e["cost_usd"] for e in ran.kinds("call_end")]
    assert costs[:2] == [0.00125, 0.00125] and costs[2:] in ([], [0.00125])
    assert ran.events[-1]["cost_usd"] == 0.00375


def test_resumes_limit(kit):
    ran = kit.run("Remind-loop", [("text", "Pause.")] * 5, limits={"resumes": 2})
    assert ran.status == "limit:resumes" and [r["n"] for r in ran.kinds("resume")] == [1, 2]


def test_resumes_without_decision_limit(kit):
    a, _ = kit.batch(2, 2)
    # one decision in the first resumed call resets the count; then two idle resumes end it
    steps = [("text", "Pause.")] + kit.full_account(a) + [("text", "Pause.")] * 4
    ran = kit.run("Plain-loop", steps, limits={"resumes_without_decision": 2})
    assert ran.status == "limit:resumes_without_decision"
    assert [r["n"] for r in ran.kinds("resume")] == [1, 2, 3]


def test_stop_blocks_limit_logs_the_stop_the_cli_lets_through_as_ended(kit):
    # cap 2: two blocks, a tool call (which starts the CLI's count again), two more blocks, and the
    # third consecutive stop, whose block the CLI overrides: it ends the turn
    steps = [("text", "Stop.")] * 2 + [kit.tool("list_batch")] + [("text", "Stop.")] * 3 + [("text", "Never asked.")]
    ran = kit.run("FSM", steps, limits={"stop_blocks": 2})
    assert ran.status == "limit:stop_blocks"
    assert ran.events[0]["cli_settings"]["CLAUDE_CODE_STOP_HOOK_BLOCK_CAP"] == "2"
    stops = ran.kinds("stop")
    assert [s["outcome"] for s in stops] == ["blocked"] * 4 + ["ended"]
    assert stops[-1]["block_cap_reached"] is True and stops[-1]["reason"] is None
    assert len(ran.requests) == 6  # the CLI asked the model nothing after the stop logged as ended


def test_no_decision_limit(kit):
    ran = kit.run("Plain", [("sleep", 20)], limits={"no_decision_s": 1})
    assert ran.status == "limit:no_decision" and ran.events[-1]["duration_s"] < 15


def test_wall_time_limit(kit):
    ran = kit.run("Plain", [("sleep", 20)], limits={"wall_time_s": 1})
    assert ran.status == "limit:wall_time" and ran.meta["cost_complete"] is False


@pytest.mark.parametrize("status,etype,message", [
    (500, "api_error", "Internal server error"),
    (429, "rate_limit_error", "Your quota for this month is exhausted"),
])
def test_api_and_quota_errors_void_the_session(kit, status, etype, message):
    (a,) = kit.batch(2, 1)
    ran = kit.run("Remind", kit.investigate(a)[:2] + [("error", status, etype, message)], accounts=1, cli_env=NO_RETRIES)
    assert ran.status == "infrastructure_failure"
    assert ran.meta["voided"] is True and f"HTTP {status}" in ran.meta["void_reason"]
    assert ran.events[-1]["status"] == "infrastructure_failure" and ran.events[-1]["error"]
    assert len(ran.kinds("tool_call")) == 2  # kept, not deleted


def test_context_overflow_is_a_model_outcome(kit):
    (a,) = kit.batch(2, 1)
    steps = kit.investigate(a) + [("error", 400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum")] * 4
    ran = kit.run("Plain", steps, accounts=1, cli_env=NO_RETRIES)
    assert ran.status == "ended_with_accounts_left" and ran.meta["voided"] is False
    assert "context overflow" in ran.meta["error"]

