"""The simulator behind the real Claude Code CLI (claude-agent-sdk ``query()``), without the runner.

One session of ``early-stop`` (k = 1) on four accounts with the real SOP-Bench tools, a PreToolUse
hook that refuses each account's first decision, a Stop hook that blocks the first stop, and
two resumes: the model must react to each and finish the batch correctly, and the ground truth
must record exactly the stops it made.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, ResultMessage, query

from sopbench_tools.dataset import gold_labels
from study.runtimes.claude_code.tool_server import make_sdk_server
from sopbench_tools.tool_definitions import ALL_TOOLS
from sopbench_tools.toolbox import ToolBox
from study.sim import DEFAULT_MODEL_ID, SimServer, route_counts

pytestmark = pytest.mark.e2e

ORDER = ["ACC100007", "ACC100011", "ACC100042", "ACC100150"]


def test_the_model_reacts_to_a_denial_a_stop_block_and_resumes(tmp_path):
    box = ToolBox(ORDER)
    refused: set[str] = set()
    blocks: list[str] = []

    async def gate(hook_input, tool_use_id, context):
        account = hook_input["tool_input"].get("account_id")
        if hook_input["tool_name"].endswith("submit_decision") and account not in refused:
            refused.add(account)
            return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                           "permissionDecisionReason": "Decisions need a second look: submit again."}}
        return {}

    async def stop_gate(hook_input, tool_use_id, context):
        if not blocks:
            blocks.append(f"{box.accounts_left} accounts left; next {box.next_undecided}. Keep going.")
            return {"decision": "block", "reason": blocks[-1]}
        return {}

    async def session(sim):
        def options(resume):
            return ClaudeAgentOptions(
                tools=[], allowed_tools=[f"mcp__sopbench__{t}" for t in ALL_TOOLS],
                mcp_servers={"sopbench": make_sdk_server(box)}, permission_mode="default", setting_sources=[],
                cwd=str(tmp_path), model=DEFAULT_MODEL_ID, resume=resume,
                env={**sim.cli_env(), "HOME": str(tmp_path), "CLAUDE_CODE_MAX_RETRIES": "0"},
                hooks={"PreToolUse": [HookMatcher(hooks=[gate])], "Stop": [HookMatcher(hooks=[stop_gate])]})

        session_id, decided_per_call, prompt = None, [], "Process the batch of 4 accounts, one at a time."
        for _ in range(4):
            async for message in query(prompt=prompt, options=options(session_id)):
                if isinstance(message, ResultMessage):
                    session_id = message.session_id
                    assert message.total_cost_usd > 0  # usage is reported and priced
            decided_per_call.append(len(box.decisions))
            if box.accounts_left == 0:
                break
            prompt = f"{box.accounts_left} accounts are still undecided; continue with {box.next_undecided}."
        return decided_per_call

    truth = tmp_path / "sim_truth.jsonl"
    with SimServer("early-stop", 1, truth, k=1) as sim:
        decided_per_call = asyncio.run(session(sim))
    # stop after 1 (blocked), after 2 (ends the call); resumed: after 3; resumed: finishes
    assert decided_per_call == [2, 3, 4]
    gold = gold_labels()
    assert box.decisions == {a: gold[a] for a in ORDER}  # every denial was followed by a correct retry
    assert refused == set(ORDER)
    assert route_counts(truth) == {"ends_turn": 3, "without_looking": 0, "partial_data": 0, "interleaved": 0,
                                   "another_account": 0, "first_token_remark": 1}
    stops = [json.loads(line) for line in truth.read_text().splitlines() if '"stop"' in line]
    assert [s["accounts_left"] for s in stops] == [3, 2, 1, 0]
