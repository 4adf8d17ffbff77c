"""The short session ``study doctor`` runs: the Claude Code CLI against the simulator.

Two ``query()`` calls through claude-agent-sdk, as the runner makes them: the SOP-Bench tools as
the in-process MCP server, a PreToolUse hook that refuses the first decision (the model must
submit it again), and ``resume`` for the second call. The model is the simulator's
``early-stop`` policy (k = 1) on two items of the project's task (the referral study's accounts
unless ``preregistration/task.yaml`` names another): it decides one item and ends its turn; the
resumed call decides the other. Only the model is simulated; nothing here is a result.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import anyio

#: The whole probe (both calls) must end within this many seconds.
PROBE_TIMEOUT_S = 240.0
#: the probe's batch size (items of the project's task)
ACCOUNTS = 2
SEED = 2


@dataclass
class ProbeResult:
    """What the probe saw. ``error`` is set when the CLI could not start or a call failed."""

    error: str | None = None
    cli_version: str | None = None  # as the CLI's init message reports it
    mcp_status: dict[str, str] = field(default_factory=dict)  # server name -> status (init message)
    hook_calls: int = 0
    denied: list[str] = field(default_factory=list)  # accounts whose first decision the hook refused
    decisions_per_call: list[int] = field(default_factory=list)
    session_ids: list[str] = field(default_factory=list)
    decided: dict[str, str] = field(default_factory=dict)
    accounts: list[str] = field(default_factory=list)
    #: what the project's task calls an item
    noun: str = "account"
    plural: str = "accounts"
    sim_requests: int = 0
    cli_stderr: list[str] = field(default_factory=list)  # what the CLI wrote to stderr


def run_probe(cli: Path, timeout_s: float = PROBE_TIMEOUT_S) -> ProbeResult:
    """Run the probe with the CLI at ``cli``; never raises for a CLI that fails."""
    result = ProbeResult()
    with tempfile.TemporaryDirectory(prefix="study-doctor-") as tmp:
        try:
            anyio.run(_probe, cli, Path(tmp), result, timeout_s)
        except TimeoutError:
            result.error = f"the session did not end within {timeout_s:.0f} s"
        except Exception as exc:  # the SDK's errors (CLI not found, process failed, ...) and anything else
            result.error = f"{type(exc).__name__}: {_first_line(exc)}"
            said = [line.strip() for line in result.cli_stderr if line.strip()]
            if said:
                result.error += f" (the CLI said: {said[-1][:300]})"
    return result


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(":") or repr(exc)
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}" if lines else text


async def _probe(cli: Path, work: Path, result: ProbeResult, timeout_s: float) -> None:
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, ResultMessage, SystemMessage, query

    from study.runtimes.claude_code.tool_server import make_sdk_server
    from sopbench_tools.toolbox import ToolBox
    from study.fsm.hooks import deny_tool, split_tool_name
    from study.sim import DEFAULT_MODEL_ID, SimServer
    from sopbench_tools.tasks import resolve_task

    task = resolve_task(None)   # the project's task
    batch = min(ACCOUNTS, len(task.item_ids))
    box = ToolBox.for_seed(SEED, batch, task=task)
    result.accounts = list(box.order)
    result.noun, result.plural = task.item.noun, task.item.plural
    id_column, decision_tool, noun = task.item.id_column, task.decision.tool, task.item.noun

    async def gate(hook_input, tool_use_id, context):
        result.hook_calls += 1
        account = (hook_input.get("tool_input") or {}).get(id_column)
        _server, tool = split_tool_name(hook_input.get("tool_name", ""))
        if tool == decision_tool and account not in result.denied:
            result.denied.append(account)
            return deny_tool("study doctor: submit this decision again.")   # the output the study's gate gives
        return {}

    with SimServer("early-stop", SEED, k=1, task=task.name) as sim:
        def options(resume: str | None) -> ClaudeAgentOptions:
            return ClaudeAgentOptions(
                tools=[], allowed_tools=[f"mcp__sopbench__{t}" for t in task.all_tools],
                mcp_servers={"sopbench": make_sdk_server(box)}, strict_mcp_config=True,
                permission_mode="default", setting_sources=[], cwd=str(work), cli_path=cli,
                model=DEFAULT_MODEL_ID, resume=resume, max_turns=40,
                env={**sim.cli_env(), "HOME": str(work), "CLAUDE_CODE_MAX_RETRIES": "0"},
                hooks={"PreToolUse": [HookMatcher(hooks=[gate])]}, stderr=result.cli_stderr.append)

        prompt = f"Process the batch of {batch} {task.item.plural}, one at a time."
        with anyio.fail_after(timeout_s):
            for _ in range(batch):
                resume = result.session_ids[-1] if result.session_ids else None
                async for message in query(prompt=prompt, options=options(resume)):
                    if isinstance(message, SystemMessage) and message.subtype == "init":
                        result.cli_version = result.cli_version or message.data.get("claude_code_version")
                        for server in message.data.get("mcp_servers") or []:
                            result.mcp_status[server.get("name", "?")] = server.get("status", "?")
                    elif isinstance(message, ResultMessage):
                        result.session_ids.append(message.session_id)
                result.decisions_per_call.append(len(box.decisions))
                if box.accounts_left == 0:
                    break
                prompt = f"{box.accounts_left} {noun} is still undecided; continue with {box.next_undecided}."
        result.decided = dict(box.decisions)
        result.sim_requests = sim.requests
