"""A session's set-up, before its first call: what the ``query()`` calls run with.

``wire(prepared, meta, log, stack, ...)`` (called once by ``driver.SessionDriver.run``) builds
the tool state (``ToolBox``) and records its batch size in meta.json, writes the launcher of the
bundled CLI (``launcher.py``), starts the simulator for ``sim:<policy>`` models (stopped by
``stack``), builds the FSM runtime and the ``SessionBridge``, writes ``session_start``, makes the
in-process MCP servers and enters the condition's workflow for the agent (a ``transition``
event). It returns the ``Wiring``: the bridge, the CLI's environment, the servers, the allowed
tool names and the launcher.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from study.runtimes.claude_code.tool_server import make_sdk_server
from sopbench_tools.toolbox import ToolBox
from study.session_io.events import SCHEMA_VERSION
from study.session_io.meta import SessionMeta, write_meta
from study.session_io.vocabulary import EventKind
from study.session_io.writer import EventLog

from study.runtimes.claude_code import options as cli_options
from .bridge import FSM_SERVER, SOPBENCH_SERVER, SessionBridge
from study.runtimes.launcher import write_launcher
from study.runtimes.claude_code.sdk import bundled_cli_path

if TYPE_CHECKING:
    from .session import Prepared


@dataclass(frozen=True)
class Wiring:
    """What every ``query()`` call of one session runs with."""

    bridge: SessionBridge
    env: dict[str, str]          # the CLI's environment
    servers: dict[str, Any]      # the in-process MCP servers, by name
    allowed: list[str]           # the Claude Code names of the tools the agent may call
    cli_path: Path               # the launcher of the bundled CLI


def wire(prepared: "Prepared", meta: SessionMeta, log: EventLog, stack: contextlib.ExitStack, *, home: Path,
         cli_version: str | None, on_refusal: Callable[[int], None]) -> Wiring:
    """Tool state, simulator (sim: models), FSM, the session_start event and the MCP servers.
    Fills in ``meta``'s ``accounts`` (and writes meta.json) and ``cli_settings``; ``on_refusal``
    is told each refusal of the tool-call gate where the limits have ``gate_refusals``."""
    spec, model = prepared.spec, prepared.model
    session_dir = prepared.session_dir
    box = ToolBox.for_seed(spec.seed, spec.accounts, state_dir=session_dir / "tools", task=prepared.task)
    meta.accounts = len(box.order)
    write_meta(session_dir, meta)
    cli = bundled_cli_path()
    if cli is None:
        raise RuntimeError("the installed claude-agent-sdk has no bundled Claude Code CLI")
    cli_path = write_launcher(home / ".study", cli)
    if model.simulated:
        from study.sim import SimServer

        sim = SimServer(model.policy, spec.seed, session_dir / "sim_truth.jsonl",
                        **{"task": box.task.name, **spec.sim_options})
        sim_env = stack.enter_context(sim).cli_env()
        base_url = sim_env["ANTHROPIC_BASE_URL"]
        env = {**sim_env, **cli_options.cli_env(prepared, home, base_url)}
    else:
        base_url = model.base_url
        env = cli_options.cli_env(prepared, home, base_url)
    fsm = _make_fsm(prepared, box.order)
    bridge = SessionBridge(log, box, prepared.condition, fsm=fsm, reminder=prepared.reminder,
                           stop_block_cap=prepared.limits.stop_blocks)
    if prepared.limits.gate_refusals is not None:
        bridge.on_refusal = on_refusal
    meta.cli_settings = cli_options.recorded_settings(env)
    log.emit(
        EventKind.SESSION_START, schema=SCHEMA_VERSION, condition=spec.condition, seed=spec.seed,
        model=model.name, model_id=model.model_id, simulated=model.simulated,
        exploratory=prepared.exploratory, manifest_sha256=meta.manifest_sha256,
        code_version=meta.code_version, cli_version=cli_version,
        sdk_version=meta.sdk_version, lock_sha256=meta.lock_sha256, order=list(box.order),
        limits=prepared.limits.as_dict(), prices_per_mtok=model.prices_per_mtok,
        factors=prepared.condition.as_dict(), token_reminder=prepared.token_reminder,
        cli_settings=meta.cli_settings, inherited_env=cli_options.inherited(env), base_url=base_url,
        task=box.task.name,
    )
    servers: dict[str, Any] = {SOPBENCH_SERVER: make_sdk_server(box, name=SOPBENCH_SERVER, after_call=bridge.after_call)}
    allowed = [f"mcp__{SOPBENCH_SERVER}__{t}" for t in box.task.all_tools]
    if fsm is not None:
        from study.runtimes.claude_code.fsm_server import make_fsm_sdk_server
        from study.fsm.tool_api import FSM_TOOL_NAMES

        _enter_workflow(log, fsm, prepared.workflow)
        if prepared.workflow.needs_agent_moves:  # a runtime-driven workflow (FSM-lean) needs no FSM tools
            desk = _proposal_desk(prepared, fsm)  # FSM-propose only: propose_workflow_change too
            servers[FSM_SERVER] = make_fsm_sdk_server(fsm, name=FSM_SERVER, on_event=bridge.on_fsm_event, proposals=desk)
            allowed += [f"mcp__{FSM_SERVER}__{t}" for t in FSM_TOOL_NAMES]
            if desk is not None:
                allowed.append(f"mcp__{FSM_SERVER}__{desk.tool}")
    return Wiring(bridge, env, servers, allowed, cli_path)


def _make_fsm(prepared: "Prepared", order: list[str]) -> Any:
    """The FSM runtime of this session (its frames in fsm/), or None without a workflow."""
    if prepared.workflow is None:
        return None
    from study.fsm import FsmRuntime

    workflow = prepared.workflow
    return FsmRuntime(prepared.session_dir / "fsm", workflows={workflow.name: workflow},
                      variables={"batch": list(order)})


def _proposal_desk(prepared: "Prepared", fsm: Any) -> Any:
    """Where the agent's workflow proposals go (fsm/proposals.jsonl), or None: only a condition
    with ``proposals`` (the exploratory FSM-propose) offers propose_workflow_change."""
    if not prepared.condition.proposals:
        return None
    from study.fsm.proposals import ProposalDesk

    workflow = prepared.workflow
    session_dir = prepared.session_dir
    return ProposalDesk(fsm, {workflow.name: Path(workflow.file)}, session_dir / "fsm", session=str(session_dir))


def _enter_workflow(log: EventLog, fsm: Any, workflow: Any) -> None:
    """Enter the condition's workflow for the agent, before the first message."""
    fsm.enter(workflow.name)
    log.emit(EventKind.TRANSITION, **{"from": None}, to=fsm.state, ok=True,
             reason=f"workflow {workflow.name} entered by the runner before the first message")
