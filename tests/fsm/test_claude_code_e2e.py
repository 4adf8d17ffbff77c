"""End to end: the real Claude Code CLI enforcing a workflow through `.claude/settings.json`.

This is the standalone route of docs/fsm.md, with no study runner: the project's settings run
`study fsm hook ...` as command hooks, the FSM tools come from `study fsm serve` over stdio, the
SOP-Bench tools from their own stdio server, and the model is the built-in simulator (the only
simulated part). The workflow is entered before the session starts, as a project would.
"""

from __future__ import annotations

import json
import sys

import anyio
import pytest
from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query

from fsm_helpers import MAIN
from sopbench_tools.orders import order_for_seed
from sopbench_tools.toolbox import ALL_TOOLS
from study.fsm import FsmRuntime, Workflow
from study.sim import SimServer

pytestmark = pytest.mark.e2e

PY = sys.executable


def _project(tmp_path, accounts: list[str]):
    project = tmp_path / "project"
    frames = project / ".fsm"
    (project / ".claude").mkdir(parents=True)
    variables = project / "fsm-variables.json"
    variables.write_text(json.dumps({"batch": accounts}))
    common = f"--frames {frames} --workflow {MAIN}"
    hook = f"{PY} -m study.cli fsm hook {{event}} {common} --tool-prefix mcp__sopbench__"
    settings = {
        "hooks": {
            "PreToolUse": [{"hooks": [{"type": "command", "command": hook.format(event="pre-tool-use")}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": hook.format(event="post-tool-use")}]}],
            "PostToolUseFailure": [{"hooks": [{"type": "command", "command": hook.format(event="post-tool-use-failure")}]}],
            "Stop": [{"hooks": [{"type": "command", "command": hook.format(event="stop")}]}],
        }
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    servers = {
        "sopbench": {"type": "stdio", "command": PY, "args": ["-m", "sopbench_tools", "--seed", "2", "--accounts", str(len(accounts))]},
        "fsm": {"type": "stdio", "command": PY, "args": ["-m", "study.cli", "fsm", "serve", *common.split(), "--variables", str(variables)]},
    }
    wf = Workflow.load(MAIN)
    FsmRuntime(frames, {wf.name: wf}, {"batch": accounts}).enter(wf.name)
    return project, frames, servers


async def _run(project, servers, base_url: str, home) -> list:
    options = ClaudeAgentOptions(
        tools=[],
        allowed_tools=[f"mcp__sopbench__{t}" for t in ALL_TOOLS] + [f"mcp__fsm__{t}" for t in ("enter", "status", "self_check", "transition", "exit")],
        mcp_servers=servers,
        strict_mcp_config=True,
        permission_mode="default",
        setting_sources=["project"],  # the hooks come from the project's .claude/settings.json
        cwd=str(project),
        max_turns=200,
        env={
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": "sim",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        },
    )
    messages = []
    async for message in query(prompt="Process every account of the batch, one at a time, following the SOP.", options=options):
        messages.append(message)
    return messages


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


@pytest.mark.parametrize("policy,params,shown", CASES, ids=[c[0] for c in CASES])
def test_settings_json_hooks_and_stdio_server_enforce_the_workflow(tmp_path, policy, params, shown):
    accounts = order_for_seed(2)[:2]
    project, frames, servers = _project(tmp_path, accounts)
    request_log = tmp_path / "requests.jsonl"
    with SimServer(policy, seed=1, truth_path=tmp_path / "truth.jsonl", request_log=request_log, **params) as sim:
        messages = anyio.run(_run, project, servers, sim.base_url, tmp_path / "home")
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error, messages[-1]

    # each refusal (a PreToolUse deny or Stop block from the hook commands, a refused FSM tool
    # call from the stdio server) reached the model
    sent = request_log.read_text()
    for text in shown:
        assert text in sent, text
    # every account was decided through the procedure: the transitions' guards read the calls
    # the PostToolUse hooks recorded, and no route around the procedure succeeded
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    decisions = [t for t in truth if t["kind"] == "decision"]
    assert sorted(d["account"] for d in decisions) == sorted(accounts)
    assert all(d["routes"] == [] for d in decisions), decisions
    # the agent ended its turn only after leaving the workflow at S_done
    assert [t["accounts_left"] for t in truth if t["kind"] == "stop"][-1] == 0
    assert json.loads((frames / "main.json").read_text())["stack"] == []
