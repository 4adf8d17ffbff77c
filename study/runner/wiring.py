"""A session's set-up, before its first call: what every call of the runtime adapter runs with.

``wire(prepared, meta, log, stack, runtime=..., ...)`` (called once by ``driver.SessionDriver.run``)
has the session's task family build its work (``study.families``: for SOP-Bench the tool state,
``ToolBox``) and records its batch size in meta.json, starts the
simulator for ``sim:<policy>`` models (speaking the runtime's API; stopped by ``stack``), builds the
FSM runtime and the ``SessionBridge``, opens the runtime's adapter for the session (which makes
its tool servers and hooks from the bridge), writes ``session_start`` and enters the condition's
workflow for the agent (a ``transition`` event). It returns the ``Wiring``: the bridge and the
adapter.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from study.families import WorkSetup, family
from study.runtimes.base import SessionSetup
from study.session_io.events import SCHEMA_VERSION
from study.session_io.meta import SessionMeta, write_meta
from study.session_io.vocabulary import EventKind
from study.session_io.writer import EventLog

from .bridge import SessionBridge
from .spending import SideSpend

if TYPE_CHECKING:
    from .prepared import Prepared


@dataclass(frozen=True)
class Wiring:
    """What every call of one session runs with."""

    bridge: SessionBridge
    adapter: Any                 # the runtime adapter (``study.runtimes.base.RuntimeSession``)


def wire(prepared: "Prepared", meta: SessionMeta, log: EventLog, stack: contextlib.ExitStack, *, runtime: Any,
         home: Path, work: Path, versions: dict[str, Any], on_refusal: Callable[[int], None],
         side: SideSpend | None = None, agent_root: Path | None = None,
         on_infrastructure: Callable[[str], None] | None = None) -> Wiring:
    """Tool state, simulator (sim: models), FSM, the runtime adapter, the session_start event.
    Fills in ``meta``'s ``accounts`` (and writes meta.json) and ``cli_settings``; ``on_refusal``
    is told each refusal of the tool-call gate where the limits have ``gate_refusals``; ``side``
    prices, logs and caps the responses of the models beside the agent's (``_side_models``);
    ``agent_root`` is the agent's folder (``agent_folder``), where the family lays out a workspace;
    ``on_infrastructure`` the reason when the bridge finds the runtime failing mid-call (a
    workspace's sandbox that stopped starting)."""
    spec, model = prepared.spec, prepared.model
    session_dir = prepared.session_dir
    fam = family(prepared.family)
    early = _Deferred(log)    # what the work says before session_start is written (a customer's opening)
    if side is not None:      # ... and what its models cost meanwhile (the customer's opening, the scope step)
        side.emit = early.emit
    side_models = _side_models(prepared, fam, stack, side)
    task_work = fam.open_work(WorkSetup(prepared, session_dir, early.emit, side_models, agent_root=agent_root))
    meta.accounts = len(task_work.order)
    write_meta(session_dir, meta)
    sim = None
    if model.simulated:
        from study.sim import SimServer

        sim = stack.enter_context(SimServer(_agent_policy(prepared, fam), spec.seed, session_dir / "sim_truth.jsonl",
                                            **{**task_work.sim_options(), "api": model.api, **spec.sim_options}))
        base_url = sim.base_url_for(model.api)
    else:
        base_url = model.base_url
    fsm = _make_fsm(prepared, task_work)
    bridge = SessionBridge(log, task_work, prepared.condition, fsm=fsm, reminder=prepared.reminder,
                           stop_block_cap=prepared.limits.stop_blocks)
    if prepared.limits.gate_refusals is not None:
        bridge.on_refusal = on_refusal
    bridge.on_infrastructure = on_infrastructure
    fsm_tools = fsm is not None and prepared.workflow.needs_agent_moves   # FSM-lean offers no FSM tools
    adapter = runtime.open(SessionSetup(
        prepared=prepared, session_dir=session_dir, home=home, work=task_work.workspace or work, base_url=base_url,
        hooks=bridge,
        task_work=task_work, fsm=fsm, fsm_tools=fsm_tools, proposals=_proposal_desk(prepared, fsm) if fsm_tools else None,
        system_append=task_work.system_append() if prepared.condition.sop_in_system_prompt else None,
        sim=sim, stack=stack))
    meta.cli_settings = adapter.settings
    log.emit(
        EventKind.SESSION_START, schema=SCHEMA_VERSION, condition=spec.condition, seed=spec.seed,
        model=model.name, model_id=model.model_id, simulated=model.simulated,
        exploratory=prepared.exploratory, manifest_sha256=meta.manifest_sha256,
        code_version=meta.code_version, runtime=model.runtime, cli_version=versions.get("cli_version"),
        sdk_version=meta.sdk_version, lock_sha256=meta.lock_sha256, order=list(task_work.order),
        limits=prepared.limits.as_dict(), prices_per_mtok=model.prices_per_mtok, model_settings=dict(model.settings),
        factors=prepared.condition.as_dict(), token_reminder=prepared.token_reminder,
        cli_settings=meta.cli_settings, inherited_env=adapter.inherited_env, base_url=base_url,
        family=task_work.family, **_study_field(prepared), **task_work.start_fields(), **_runtime_lock(versions),
    )
    early.release()
    if fsm is not None:
        _enter_workflow(log, fsm, prepared.workflow)
    return Wiring(bridge, adapter)


class _Deferred:
    """The session log's writer for what the work says while it is made, before session_start
    (a simulated customer's opening message): held, then written right after session_start."""

    def __init__(self, log: EventLog):
        self.log = log
        self.held: list[tuple[str, dict[str, Any]]] | None = []

    def emit(self, kind: str, **fields: Any) -> Any:
        if self.held is None:
            return self.log.emit(kind, **fields)
        self.held.append((kind, fields))
        return None

    def release(self) -> None:
        held, self.held = self.held or [], None
        for kind, fields in held:
            self.log.emit(kind, **fields)


def _agent_policy(prepared: "Prepared", fam: Any) -> Any:
    """The simulated agent of a ``sim:`` model: a SOP-Bench policy by name (``SimServer`` makes
    it), or another family's Responder, told what its policies may know of the session."""
    if fam.name == "sopbench":
        return prepared.model.policy
    from study.sim import make_family_policy

    study, unit = prepared.study, prepared.spec.seed
    return make_family_policy(fam.name, "agent", prepared.model.policy, seed=unit,
                              condition=prepared.condition.name, **fam.sim_context(study, unit))


def _side_models(prepared: "Prepared", fam: Any, stack: contextlib.ExitStack,
                 side: SideSpend | None = None) -> dict[str, Any]:
    """The models a session needs beside the agent's (a benchmark's customer, a judge), by role: for
    a simulated session, the simulator's policy of that role on a server of its own (a role the
    simulator cannot play, the judge, is None), priced as the simulator's stand-in on Claude Code
    (whose model id it is sent); else the models.yaml alias resolved. Each one a dict: model_id,
    api, base_url, api_key (never logged), simulated, alias, prices_per_mtok, and with ``side``
    ``on_usage(usage)`` (each response's usage: priced, logged, counted against the cap) and
    ``open()`` (the spending cap leaves room)."""
    study = prepared.study
    if study is None or study.main:
        return {}
    from study.protocol.models import load_models, resolve_model

    table = load_models(study.models_file())
    out: dict[str, Any] = {}
    for role, alias in fam.side_models(study).items():
        if alias is None:
            out[role] = None
        elif prepared.model.simulated:
            from study.sim import SimServer, family_policy_names, make_family_policy

            names = family_policy_names(fam.name, role)
            if not names:
                out[role] = None
                continue
            unit = prepared.spec.seed
            policy = make_family_policy(fam.name, role, names[0], seed=unit, **fam.sim_context(study, unit))
            server = stack.enter_context(SimServer(policy, unit, None))
            out[role] = {"model_id": table.simulator_model_id, "api": "anthropic-messages", "base_url": server.base_url,
                         "api_key": None, "simulated": True, "alias": f"sim:{names[0]}",
                         "prices_per_mtok": table.simulator_prices}
        else:
            resolved = resolve_model(alias, table=table)
            out[role] = {"model_id": resolved.model_id, "api": resolved.api, "base_url": resolved.base_url,
                         "api_key": resolved.api_key, "simulated": False, "alias": alias,
                         "prices_per_mtok": resolved.prices_per_mtok}
        if side is not None and out[role] is not None:
            option = out[role]
            option["on_usage"] = (lambda usage, role=role, o=option:
                                  side.record(role, o["alias"], o["model_id"], o["prices_per_mtok"], usage))
            option["open"] = side.open
    return out


def _study_field(prepared: "Prepared") -> dict[str, Any]:
    """The study a session of another study than the main one belongs to (the main one's name none)."""
    study = prepared.study
    return {"study": study.name} if study is not None and not study.main else {}


def _runtime_lock(versions: dict[str, Any]) -> dict[str, Any]:
    """The hash of the runtime's own lock file, for a runtime pinned outside the Python lock."""
    sha = versions.get("runtime_lock_sha256")
    return {"runtime_lock_sha256": sha} if sha is not None else {}


def _make_fsm(prepared: "Prepared", task_work: Any) -> Any:
    """The FSM runtime of this session (its frames in fsm/), or None without a workflow; its first
    variables are the work's (SOP-Bench: the batch)."""
    if prepared.workflow is None:
        return None
    from study.fsm import FsmRuntime

    workflow = prepared.workflow
    workspace = getattr(task_work, "workspace", None)
    return FsmRuntime(prepared.session_dir / "fsm", workflows={workflow.name: workflow},
                      variables=task_work.fsm_variables(), shell_cwd=workspace)


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
