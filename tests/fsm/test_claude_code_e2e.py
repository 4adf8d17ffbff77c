"""End to end: the real Claude Code CLI enforcing a workflow through `.claude/settings.json`.

This is the standalone route of docs/fsm.md, with no study runner: the project's settings run
`study fsm hook ...` as command hooks, the FSM tools come from `study fsm serve` over stdio, the
SOP-Bench tools from their own stdio server, and the model is the built-in simulator (the only
simulated part). The workflow is entered before the session starts, as a project would. The
sessions are the ``settings_session`` fixture's (tests/fsm/conftest.py), which
test_two_wirings_e2e.py compares call by call with the runner's wiring.
"""

from __future__ import annotations

import json

import pytest
from claude_agent_sdk import ResultMessage

from sopbench_tools.orders import order_for_seed

pytestmark = pytest.mark.e2e


CASES = [
    # policy, its parameters, texts the hooks and the FSM server must have shown the model
    ("early-stop", {"k": 1}, ["Workflow ReferralAbusePerAccount is in state S_investigate, where the turn cannot end"]),
    # tries every way around the FSM once: each is refused, then it follows the procedure
    ("adversarial", {}, [
        "submit_decision is not permitted in this state (state S_investigate of workflow ReferralAbusePerAccount)",  # gate
        "exit is admitted only in the exit state 'S_done'",
        "The batch is not complete: 2 of 2 accounts have no decision",  # Eq. 6
        "Interleaved accounts: data for",  # Eq. 4
        "a transition needs a token",
        "unknown token",
        "this token was already used",
        "investigate_account is not permitted in this state (state S_decide",  # gate
    ]),
]


@pytest.mark.parametrize("policy,params,shown", [
    pytest.param(*case, marks=pytest.mark.xdist_group(f"fsm-settings-{case[0]}"), id=case[0]) for case in CASES])
def test_settings_json_hooks_and_stdio_server_enforce_the_workflow(settings_session, policy, params, shown):
    # the session test_two_wirings_e2e.py compares with the runner's (hence its xdist_group)
    session = settings_session(policy, **params)
    accounts = order_for_seed(2)[:2]
    messages, frames = session.messages, session.frames
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages[-1]

    # each refusal (a PreToolUse deny or Stop block from the hook commands, a refused FSM tool
    # call from the stdio server) reached the model
    sent = session.requests.read_text()
    for text in shown:
        assert text in sent, text
    # every account was decided through the procedure: the transitions' guards read the calls
    # the PostToolUse hooks recorded, and no route around the procedure succeeded
    truth = [json.loads(line) for line in session.truth.read_text().splitlines()]
    decisions = [t for t in truth if t["kind"] == "decision"]
    assert sorted(d["account"] for d in decisions) == sorted(accounts)
    assert all(d["routes"] == [] for d in decisions), decisions
    # the agent ended its turn only after leaving the workflow at S_done
    assert [t["accounts_left"] for t in truth if t["kind"] == "stop"][-1] == 0
    assert json.loads((frames / "main.json").read_text())["stack"] == []
