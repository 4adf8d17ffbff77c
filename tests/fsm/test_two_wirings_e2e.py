"""The FSM wired to Claude Code two ways decides alike: the same adversarial model, the same calls.

Wiring 1 is the study's runner (``run_session``, condition FSM): claude-agent-sdk hooks in
process (``study.runner.bridge``) and the FSM tools as an in-process MCP server. Wiring 2 is what
docs/fsm.md offers everyone: ``.claude/settings.json`` command hooks (``study fsm hook``) and the
FSM tools from ``study fsm serve`` over stdio (see ``settings_project.py``). The model is the
simulator's ``adversarial`` policy in both, which tries every way around the workflow once
(refused calls and transitions); a second case plays ``early-stop`` (k=1), which ends its turn
with accounts left, for the stop gate.

Compared, call by call: which tool with which arguments (tokens aside: they are random), whether
the gate admitted it and the reason when it did not, whether it then succeeded; every transition
request (target, outcome, the refusal's message); every stop (blocked or let through); and that
both sessions decided every account and left the workflow. The stop block's text is the one
thing that differs by design: the runner shows its continuation message, the settings.json hook
the stop gate's own reason. The settings.json wiring's sessions are the ``settings_session``
fixture's (tests/fsm/conftest.py), shared with test_claude_code_e2e.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_agent_sdk import ResultMessage

from sopbench_tools.orders import order_for_seed
from study.fsm import hooks as fsm_hooks
from study.runner.session import SessionSpec, run_session
from study.sim.conversation import ToolCall, ToolOutcome, read_conversation

pytestmark = pytest.mark.e2e

SEED = 2
CASES = [("adversarial", {}), ("early-stop", {"k": 1})]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _args(args: dict) -> dict:
    return {k: v for k, v in args.items() if k != "token"}


def _transitions_seen_by_the_model(request_log: Path) -> list[tuple]:
    """(target, ok, refusal message) of every transition request, from the last conversation."""
    last = [r for r in _jsonl(request_log) if "claude-code" in r["beta"]][-1]["body"]["messages"]
    events = read_conversation(last)
    outcomes = {e.call.id: e for e in events if isinstance(e, ToolOutcome)}
    return [(c.args.get("target"), outcomes[c.id].ok, None if outcomes[c.id].ok else outcomes[c.id].text)
            for c in events if isinstance(c, ToolCall) and (c.server, c.tool) == ("fsm", "transition")]


def _settings_json_wiring(session) -> dict:
    """What the ``.claude/settings.json`` wiring's session (the ``settings_session`` fixture's,
    which test_claude_code_e2e.py checks too) did, in the runner wiring's terms."""
    messages = session.messages
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages[-1]
    hooks = _jsonl(session.hooks)
    assert all(h["code"] == 0 for h in hooks), [h for h in hooks if h["code"]]
    finished = {h["input"]["tool_use_id"]: h["event"] == "post-tool-use" for h in hooks if h["event"].startswith("post-")}
    calls = []
    for h in hooks:
        if h["event"] == "pre-tool-use":
            refused = fsm_hooks.refusal(h["output"])
            call_id = h["input"]["tool_use_id"]
            calls.append((h["input"]["tool_name"], _args(h["input"]["tool_input"]), refused is None, refused,
                          refused is None and finished[call_id]))
    decided = sorted(t["account"] for t in _jsonl(session.truth) if t["kind"] == "decision")
    return {
        "calls": calls,
        "transitions": _transitions_seen_by_the_model(session.requests),
        "stops": ["blocked" if fsm_hooks.refusal(h["output"]) else "ended" for h in hooks if h["event"] == "stop"],
        "decided": decided,
        "left_workflow": json.loads((session.frames / "main.json").read_text())["stack"] == [],
    }


def _runner_wiring(tmp: Path, policy: str, params: dict) -> dict:
    session = run_session(SessionSpec(condition="FSM", seed=SEED, model=f"sim:{policy}", accounts=2, out_root=tmp,
                                      sim_options={"request_log": tmp / "requests.jsonl", **params}))
    meta = json.loads((session / "meta.json").read_text())
    assert meta["status"] == "completed", meta
    events = _jsonl(session / "events.jsonl")
    calls = [(f"mcp__{e['server']}__{e['tool']}", _args(e["args"]), e["allowed"], None if e["allowed"] else e["error"], e["ok"])
             for e in events if e["kind"] == "tool_call"]
    transitions = [(e["to"], e["ok"], None if e["ok"] else e["reason"]) for e in events
                   if e["kind"] == "transition" and e["from"] is not None]
    decided = sorted(e["account"] for e in events if e["kind"] == "tool_call" and e["tool"] == "submit_decision" and e["ok"])
    frames = json.loads((session / "fsm" / "main.json").read_text())
    assert _transitions_seen_by_the_model(tmp / "requests.jsonl") == transitions  # the log says what the model saw
    return {
        "calls": calls,
        "transitions": transitions,
        "stops": [e["outcome"] for e in events if e["kind"] == "stop"],
        "decided": decided,
        "left_workflow": frames["stack"] == [],
    }


@pytest.mark.parametrize("policy,params", [
    pytest.param(*case, marks=pytest.mark.xdist_group(f"fsm-settings-{case[0]}"), id=case[0]) for case in CASES])
def test_sdk_hooks_in_the_runner_and_settings_json_hooks_make_the_same_decisions(tmp_path, settings_session, policy,
                                                                                 params):
    accounts = order_for_seed(SEED)[:2]
    settings = _settings_json_wiring(settings_session(policy, **params))
    runner = _runner_wiring(tmp_path / "runner", policy, params)

    # the refusals the policy provokes happened (so the comparison covers them)
    if policy == "adversarial":  # the gate in both states, and refused transitions
        refused = [c for c in runner["calls"] if not c[2]]
        assert {c[0] for c in refused} == {"mcp__sopbench__submit_decision", "mcp__sopbench__investigate_account"}
        assert any(not ok for _, ok, _ in runner["transitions"])
    else:  # the stop gate
        assert "blocked" in runner["stops"]

    for i, (r, s) in enumerate(zip(runner["calls"], settings["calls"])):
        assert r == s, f"call {i} differs:\n runner:   {r}\n settings: {s}"
    assert len(runner["calls"]) == len(settings["calls"])
    assert runner["transitions"] == settings["transitions"]
    assert runner["stops"] == settings["stops"]
    assert runner["decided"] == settings["decided"] == sorted(accounts)
    assert runner["left_workflow"] and settings["left_workflow"]
