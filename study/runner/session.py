"""One session: one real Claude Code process (through ``claude-agent-sdk``) over one batch.

``run_session(spec)`` prepares a fresh session folder, starts the simulator for ``sim:<policy>``
models, enters the condition's workflow for the agent, sends the first message and then drives
``query()`` calls until the session ends:

- the CLI runs with its own fresh HOME and working directory inside the session folder, no
  filesystem settings, built-in tools off, the SOP-Bench (and FSM) tools in process over MCP,
  Claude Code's default system prompt (plus the SOP copy for the Sys conditions), and the hooks
  of ``bridge.SessionBridge``;
- the -loop conditions and Gates-only are resumed (``query(resume=session_id)``) with the
  continuation message whenever a call ends with accounts left;
- each limit of limits.yaml ends the session with ``limit:<name>``; an API, quota or server
  error or a crash ends it as ``infrastructure_failure`` (voided, see ``voiding.py``). The limits
  are external: the model is never told about them. The spending cap is priced from the stream
  as it arrives (``spending.py``) and, like the time limits, ends the running call at once.

Everything the session does is in ``events.jsonl`` (through ``study.session_io.writer.EventLog``),
summarised in ``meta.json``; Claude Code's own transcript is copied to ``transcript.jsonl``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    CLIConnectionError,
    ClaudeAgentOptions,
    HookMatcher,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    query,
)

from sopbench_tools.dataset import load_task
from sopbench_tools.sdk_server import make_sdk_server
from sopbench_tools.toolbox import ALL_TOOLS, ToolBox
from study.paths import prereg_dir, project_root, sessions_dir
from study.session_io.events import SCHEMA_VERSION
from study.session_io.writer import EventLog, utc_now

from .bridge import FSM_SERVER, SOPBENCH_SERVER, SessionBridge
from .conditions import Condition, load_conditions
from .limits import Limits, load_limits
from .meta import EVENTS_NAME, RUNNING, read_meta, runner_identity, session_dir_for, write_meta
from .models import ModelError, ResolvedModel, resolve_model
from .sdk import SubprocessCLITransport, bundled_cli_version
from .spending import CallMeter
from .texts import continuation_message, first_message, reminder_text, system_prompt_append
from .voiding import INFRASTRUCTURE_FAILURE, classify_error

#: Recorded as the manifest hash of sessions whose caller did not run the preregistration check.
UNCHECKED = "unchecked"

_STOP_CAP_NOTICE = "A hook blocked the turn from ending"


class SessionExists(RuntimeError):
    """The session folder already holds a session."""


@dataclass
class SessionSpec:
    """What to run. Only ``condition`` and ``seed`` are required.

    ``manifest_sha256`` is the hash ``study.prereg.check_before_run`` returned; None records
    ``unchecked`` and makes the session exploratory (tests of the run mechanics use this).
    ``limit_overrides`` and ``cli_env`` (extra environment for the CLI) are for tests and
    development; either makes the session exploratory, and both are recorded.
    """

    condition: str
    seed: int
    model: str | None = None
    accounts: int | None = None
    out_root: Path | None = None
    manifest_sha256: str | None = None
    base_url: str | None = None
    limit_overrides: dict[str, float] = field(default_factory=dict)
    cli_env: dict[str, str] = field(default_factory=dict)
    sim_options: dict[str, Any] = field(default_factory=dict)

    @property
    def exploratory(self) -> bool:
        return (self.accounts is not None or self.manifest_sha256 is None
                or bool(self.limit_overrides) or bool(self.cli_env))


@dataclass
class Prepared:
    """A spec resolved against the frozen files: everything checked before anything starts."""

    spec: SessionSpec
    condition: Condition
    model: ResolvedModel
    limits: Limits
    token_reminder: str
    disable_nonessential_traffic: bool
    session_dir: Path
    workflow: Any | None          # the condition's study.fsm.Workflow, loaded and validated
    reminder: str | None          # the reminder text, for conditions that attach it

    @property
    def exploratory(self) -> bool:
        """The spec makes the session exploratory, or its condition is outside the preregistered set."""
        return self.spec.exploratory or self.condition.exploratory


def prepare(spec: SessionSpec) -> Prepared:
    """Resolve and validate a spec (condition, model and key, limits, texts) without side effects.

    Raises ConditionError, ModelError, LimitsError, TextError, WorkflowError or ValueError with a
    message saying what to do.
    """
    conditions = load_conditions()
    condition = conditions.get(spec.condition)
    model = resolve_model(spec.model, spec.base_url)
    if model.simulated:
        from study.sim.policies import POLICIES

        if model.policy not in POLICIES:
            raise ModelError(f"unknown simulator policy {model.policy!r}; policies: {', '.join(POLICIES)}")
    limits = load_limits(model.name, spec.limit_overrides)
    n_accounts = len(load_task().account_ids)
    if spec.accounts is not None and not 1 <= spec.accounts <= n_accounts:
        raise ValueError(f"--accounts must be between 1 and {n_accounts} (a prefix of the seed's order), got {spec.accounts}")
    workflow = None
    if condition.workflow is not None:
        from study.fsm import Workflow

        workflow = Workflow.load(prereg_dir() / "workflows" / condition.workflow)
    reminder = reminder_text() if condition.reminder else None
    out_root = Path(spec.out_root) if spec.out_root is not None else sessions_dir()
    session_dir = session_dir_for(out_root, model.folder_name, condition.name, spec.seed,
                                  exploratory=spec.exploratory or condition.exploratory, accounts=spec.accounts)
    return Prepared(spec, condition, model, limits, conditions.cli_settings.token_reminder,
                    conditions.cli_settings.disable_nonessential_traffic, session_dir, workflow, reminder)


def run_session(spec: SessionSpec) -> Path:
    """Run one real Claude Code session to its end and return its folder.

    The folder must not hold a session yet (``SessionExists`` otherwise; ``study run-all
    --rerun-voided`` moves voided attempts aside first).
    """
    prepared = prepare(spec)
    if (prepared.session_dir / EVENTS_NAME).exists():
        meta = read_meta(prepared.session_dir) or {}
        raise SessionExists(
            f"{prepared.session_dir} already holds a session (status {meta.get('status', 'unknown')}); "
            "sessions are never overwritten: rerun voided or unfinished ones with `study run-all --rerun-voided`, "
            "or choose another --out folder"
        )
    return asyncio.run(_Session(prepared).run())


def code_version() -> str:
    """The git commit of the checkout (``+dirty`` with uncommitted changes), or ``unknown``."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=40"], cwd=project_root(),
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"


def _quiet_after_exit(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Drop the SDK's late hook answers to a CLI that has already exited (``ProcessTransport is
    not ready for writing``): the call's outcome is known by then. Report anything else."""
    if isinstance(context.get("exception"), CLIConnectionError):
        return
    loop.default_exception_handler(context)


class _Transport(SubprocessCLITransport):
    """The SDK's CLI transport, plus a way to end the CLI at once when a limit is reached mid-call.
    (Cancelling ``query()`` alone closes the CLI's stdin and gives it seconds to exit, during which
    it goes on asking the model, with every tool call refused.)"""

    def terminate(self) -> None:
        process = self._process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()


@dataclass
class _CallEnd:
    """How one query() call ended."""

    limit: str | None = None        # a limit this runner enforces mid-call (spending, no_decision, wall_time)
    error: BaseException | None = None


class _Session:
    def __init__(self, prepared: Prepared):
        self.p = prepared
        self.dir = prepared.session_dir
        self.home = self.dir / "home"
        self.work = self.dir / "work"
        self.session_id: str | None = None
        self.cli_version = bundled_cli_version()
        self.cost_usd = 0.0
        self.cost_complete = True
        self.cost_estimated_usd = 0.0   # the part of cost_usd priced by the runner (calls ended before reporting)
        self.meter = CallMeter(prepared.model.prices_per_mtok)   # the running call's price so far
        self.cap_reached = asyncio.Event()                        # set when the spending cap is reached
        self.transport: _Transport | None = None                  # the running call's CLI
        self._last_total = 0.0
        self.turns = 0
        self.resumes = 0
        self.stop_cap_hit = False
        self.started_at = time.monotonic()
        self.meta: dict[str, Any] = {}

    # ----- set-up ------------------------------------------------------------------------------

    def _make_fsm(self, order: list[str]) -> Any:
        """The FSM runtime of this session (its frames in fsm/), or None without a workflow."""
        if self.p.workflow is None:
            return None
        from study.fsm import FsmRuntime

        workflow = self.p.workflow
        return FsmRuntime(self.dir / "fsm", workflows={workflow.name: workflow}, variables={"batch": list(order)})

    def _env(self, base_url: str) -> dict[str, str]:
        env = {
            "HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "ANTHROPIC_BASE_URL": base_url,
            "ANTHROPIC_API_KEY": self.p.model.api_key,
            "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP": str(self.p.limits.stop_blocks),
        }
        if self.p.disable_nonessential_traffic:
            env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        if self.p.token_reminder != "default":
            env["CLAUDE_CODE_TOTAL_TOKENS_REMINDER"] = self.p.token_reminder
        env.update(self.p.spec.cli_env)
        return env

    def _recorded_settings(self, env: dict[str, str]) -> dict[str, Any]:
        """The CLI settings as recorded (never the API key)."""
        return {k: ("<set>" if k == "ANTHROPIC_API_KEY" else v) for k, v in env.items() if k not in ("HOME", "CLAUDE_CONFIG_DIR")}

    @staticmethod
    def _inherited(env: dict[str, str]) -> list[str]:
        """Names of CLAUDE*/ANTHROPIC* variables the CLI inherits from this process unchanged
        (the SDK passes the parent's environment through); recorded so an audit can see them."""
        return sorted(k for k in os.environ if k.startswith(("CLAUDE", "ANTHROPIC")) and k not in env)

    def _options(self, env: dict[str, str], bridge: SessionBridge, servers: dict[str, Any],
                 allowed: list[str], resume: str | None) -> ClaudeAgentOptions:
        system_prompt: dict[str, str] = {"type": "preset", "preset": "claude_code"}
        if self.p.condition.sop_in_system_prompt:
            system_prompt["append"] = system_prompt_append()
        return ClaudeAgentOptions(
            tools=[],
            allowed_tools=allowed,
            mcp_servers=servers,
            strict_mcp_config=True,
            permission_mode="default",
            setting_sources=[],
            system_prompt=system_prompt,
            model=self.p.model.model_id,
            cwd=str(self.work),
            env=env,
            resume=resume,
            max_turns=self.p.limits.turns,
            include_partial_messages=True,  # the stream events the spending cap is priced from
            hooks={
                "PreToolUse": [HookMatcher(hooks=[bridge.pre_tool_use], timeout=600)],
                "PostToolUse": [HookMatcher(hooks=[bridge.post_tool_use], timeout=600)],
                "PostToolUseFailure": [HookMatcher(hooks=[bridge.post_tool_use], timeout=600)],
                "Stop": [HookMatcher(hooks=[bridge.on_stop], timeout=600)],
                "PreCompact": [HookMatcher(hooks=[bridge.pre_compact], timeout=600)],
            },
        )

    # ----- the run -----------------------------------------------------------------------------

    async def run(self) -> Path:
        asyncio.get_running_loop().set_exception_handler(_quiet_after_exit)
        for d in (self.dir, self.home, self.work):
            d.mkdir(parents=True, exist_ok=True)
        spec, model = self.p.spec, self.p.model
        self.meta = {
            "model": model.name, "model_id": model.model_id, "condition": spec.condition, "seed": spec.seed,
            "simulated": model.simulated, "exploratory": self.p.exploratory, "accounts": None,
            "status": RUNNING, "voided": False, "void_reason": None, "cost_usd": 0.0, "cost_estimated_usd": 0.0, "turns": 0,
            "duration_s": 0.0, "resumes": 0, "decisions": 0,
            "manifest_sha256": spec.manifest_sha256 or UNCHECKED, "code_version": code_version(),
            "cli_version": self.cli_version, "token_reminder": self.p.token_reminder,
            "started": utc_now(), "ended": None, "session_id": None, "error": None,
            "limits": self.p.limits.as_dict(), "runner": runner_identity(),
        }
        bridge: SessionBridge | None = None
        with EventLog(self.dir / EVENTS_NAME) as log, contextlib.ExitStack() as stack:
            try:
                bridge, env, servers, allowed = self._set_up(log, stack)
                status, error = await self._drive(log, bridge, env, servers, allowed,
                                                  first_message(self.p.condition, len(bridge.box.order)))
            except Exception as exc:  # a crash of the runtime voids the session
                status, error = INFRASTRUCTURE_FAILURE, f"runtime crash: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
            self._finish(log, bridge, status, error)
        return self.dir

    def _set_up(self, log: EventLog, stack: contextlib.ExitStack) -> tuple[SessionBridge, dict[str, str], dict[str, Any], list[str]]:
        """Tool state, simulator (sim: models), FSM, the session_start event and the MCP servers.
        Returns the bridge, the CLI's environment, the servers and the allowed tool names."""
        spec, model = self.p.spec, self.p.model
        box = ToolBox.for_seed(spec.seed, spec.accounts, state_dir=self.dir / "tools")
        self.meta["accounts"] = len(box.order)
        write_meta(self.dir, self.meta)
        if model.simulated:
            from study.sim import SimServer

            sim = SimServer(model.policy, spec.seed, self.dir / "sim_truth.jsonl", **spec.sim_options)
            sim_env = stack.enter_context(sim).cli_env()
            base_url = sim_env["ANTHROPIC_BASE_URL"]
            env = {**sim_env, **self._env(base_url)}
        else:
            base_url = model.base_url
            env = self._env(base_url)
        fsm = self._make_fsm(box.order)
        bridge = SessionBridge(log, box, self.p.condition, fsm=fsm, reminder=self.p.reminder,
                               stop_block_cap=self.p.limits.stop_blocks)
        self.meta["cli_settings"] = self._recorded_settings(env)
        log.emit(
            "session_start", schema=SCHEMA_VERSION, condition=spec.condition, seed=spec.seed,
            model=model.name, model_id=model.model_id, simulated=model.simulated,
            exploratory=self.p.exploratory, manifest_sha256=self.meta["manifest_sha256"],
            code_version=self.meta["code_version"], cli_version=self.cli_version, order=list(box.order),
            limits=self.p.limits.as_dict(), prices_per_mtok=model.prices_per_mtok, factors=self.p.condition.as_dict(),
            token_reminder=self.p.token_reminder, cli_settings=self.meta["cli_settings"],
            inherited_env=self._inherited(env), base_url=base_url,
        )
        servers: dict[str, Any] = {SOPBENCH_SERVER: make_sdk_server(box, name=SOPBENCH_SERVER, after_call=bridge.after_call)}
        allowed = [f"mcp__{SOPBENCH_SERVER}__{t}" for t in ALL_TOOLS]
        if fsm is not None:
            from study.fsm.sdk_tools import make_fsm_sdk_server
            from study.fsm.tool_api import FSM_TOOL_NAMES

            self._enter_workflow(log, fsm, self.p.workflow)
            servers[FSM_SERVER] = make_fsm_sdk_server(fsm, name=FSM_SERVER, on_event=bridge.on_fsm_event)
            allowed += [f"mcp__{FSM_SERVER}__{t}" for t in FSM_TOOL_NAMES]
        return bridge, env, servers, allowed

    def _enter_workflow(self, log: EventLog, fsm: Any, workflow: Any) -> None:
        """Enter the condition's workflow for the agent, before the first message."""
        fsm.enter(workflow.name)
        log.emit("transition", **{"from": None, "to": fsm.state, "ok": True,
                                  "reason": f"workflow {workflow.name} entered by the runner before the first message"})

    async def _drive(self, log: EventLog, bridge: SessionBridge, env: dict[str, str], servers: dict[str, Any],
                     allowed: list[str], prompt: str) -> tuple[str, str | None]:
        """Run calls (the first one, then resumes) until the session ends; return (status, error)."""
        limits = self.p.limits
        resume_id: str | None = None
        streak_without_decision = 0
        while True:
            decided_before = bridge.decisions
            end = await self._call(bridge, self._options(env, bridge, servers, allowed, resume_id), prompt)
            if end.limit:
                return f"limit:{end.limit}", None
            if end.error is not None:
                ending = classify_error(end.error)
                if ending.status != "model":
                    return ending.status, ending.reason
                return ("completed" if bridge.accounts_left == 0 else "ended_with_accounts_left"), ending.reason
            if bridge.accounts_left == 0:
                return "completed", None
            if self.stop_cap_hit:
                return "limit:stop_blocks", None
            if not self.p.condition.resume:
                return "ended_with_accounts_left", None
            # resume, unless a limit says otherwise
            if resume_id is not None:
                streak_without_decision = streak_without_decision + 1 if bridge.decisions == decided_before else 0
                if streak_without_decision >= limits.resumes_without_decision:
                    return "limit:resumes_without_decision", None
            if self.resumes >= limits.resumes:
                return "limit:resumes", None
            if self.cost_usd >= limits.spending_usd:
                return "limit:spending", None
            if self.session_id is None:
                return INFRASTRUCTURE_FAILURE, "the CLI reported no session id, so the session cannot be resumed"
            self.resumes += 1
            log.emit("resume", n=self.resumes, accounts_left=bridge.accounts_left)
            resume_id = self.session_id
            prompt = continuation_message(bridge.accounts_left, bridge.box.next_undecided())

    async def _call(self, bridge: SessionBridge, options: ClaudeAgentOptions, prompt: str) -> _CallEnd:
        """One query() call under the watchdog of the spending and time limits."""
        self.meter = CallMeter(self.p.model.prices_per_mtok)
        self.cap_reached = asyncio.Event()
        self.transport = None
        bridge.new_call()
        consumer = asyncio.create_task(self._consume(bridge, options, prompt))
        watchdog = asyncio.create_task(self._watch(bridge))
        done, _ = await asyncio.wait({consumer, watchdog}, return_when=asyncio.FIRST_COMPLETED)
        if consumer not in done:
            if self.transport is not None:
                self.transport.terminate()
            consumer.cancel()
            with contextlib.suppress(BaseException):
                await consumer
            # the killed call reported no cost: count what its responses cost at list price
            self.cost_complete = False
            self.cost_usd += self.meter.usd or 0.0
            self.cost_estimated_usd += self.meter.usd or 0.0
            return _CallEnd(limit=watchdog.result())
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
        self._copy_transcript()
        exc = consumer.exception()
        return _CallEnd(error=exc)

    async def _watch(self, bridge: SessionBridge) -> str:
        """Return the name of the first limit reached during the call (the call is then ended):
        the spending cap (signalled by ``_consume``) or a time limit."""
        limits = self.p.limits
        while True:
            now = time.monotonic()
            wall_left = limits.wall_time_s - (now - self.started_at)
            idle_left = limits.no_decision_s - (now - bridge.last_decision_at)
            if self.cap_reached.is_set():
                return "spending"
            if wall_left <= 0:
                return "wall_time"
            if idle_left <= 0:
                return "no_decision"
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.cap_reached.wait(), timeout=min(wall_left, idle_left, 1.0))

    async def _consume(self, bridge: SessionBridge, options: ClaudeAgentOptions, prompt: str) -> None:
        self.transport = _Transport(prompt=prompt, options=options)
        async for message in query(prompt=prompt, options=options, transport=self.transport):
            if isinstance(message, AssistantMessage):
                if message.error is None and message.model != "<synthetic>":
                    for block in message.content:
                        if isinstance(block, TextBlock) and block.text.strip():
                            bridge.log.emit("assistant_text", text=block.text)
            elif isinstance(message, StreamEvent):
                self._on_stream_event(message)
            elif isinstance(message, SystemMessage):
                self._on_system(message)
            elif isinstance(message, ResultMessage):
                self._on_result(bridge, message)

    def _on_stream_event(self, message: StreamEvent) -> None:
        """Price the main thread's responses as they stream; signal the cap once it is reached."""
        if message.parent_tool_use_id is not None:
            return
        self.meter.on_event(message.event)
        priced = self.meter.usd
        if priced is not None and self.cost_usd + priced >= self.p.limits.spending_usd:
            self.cap_reached.set()

    def _on_result(self, bridge: SessionBridge, message: ResultMessage) -> None:
        """Account for one call's result: session id, turns and cost (``total_cost_usd`` is
        cumulative over the session, also across resumes, so a call costs the difference)."""
        self.session_id = message.session_id or self.session_id
        self.turns += message.num_turns or 0
        call_cost = 0.0
        if message.total_cost_usd is not None:
            call_cost = max(message.total_cost_usd - self._last_total, 0.0)
            self.cost_usd += call_cost
            self._last_total = message.total_cost_usd
        priced = self.meter.usd
        bridge.log.emit("call_end", n=self.resumes, subtype=message.subtype, is_error=message.is_error,
                        turns=message.num_turns, cost_usd=round(call_cost, 6), session_cost_usd=round(self.cost_usd, 6),
                        priced_usd=round(priced, 6) if priced is not None else None,
                        decisions=bridge.decisions, accounts_left=bridge.accounts_left)

    def _on_system(self, message: SystemMessage) -> None:
        data = message.data or {}
        if message.subtype == "init":
            self.session_id = data.get("session_id") or self.session_id
            self.cli_version = data.get("claude_code_version") or self.cli_version
            broken = [s for s in data.get("mcp_servers", []) if s.get("status") != "connected"]
            if broken:
                raise RuntimeError(f"MCP server(s) failed to start in the CLI: {broken}")
        elif str(data.get("content", "")).startswith(_STOP_CAP_NOTICE):
            self.stop_cap_hit = True

    def _copy_transcript(self) -> None:
        if not self.session_id:
            return
        found = [p for p in self.home.rglob(f"{self.session_id}.jsonl") if "subagents" not in p.parts]
        if found:
            shutil.copyfile(found[0], self.dir / "transcript.jsonl")

    # ----- the end -----------------------------------------------------------------------------

    def _finish(self, log: EventLog, bridge: SessionBridge | None, status: str, error: str | None) -> None:
        self._copy_transcript()
        duration = round(time.monotonic() - self.started_at, 3)
        cost = round(self.cost_usd, 6)
        estimated = round(self.cost_estimated_usd, 6)
        log.emit("session_end", status=status, cost_usd=cost, turns=self.turns, duration_s=duration, error=error,
                 cost_complete=self.cost_complete, cost_estimated_usd=estimated, resumes=self.resumes,
                 decisions=bridge.decisions if bridge else None,
                 accounts_left=bridge.accounts_left if bridge else None)
        voided = status == INFRASTRUCTURE_FAILURE
        self.meta.update(
            status=status, voided=voided, void_reason=(error or "infrastructure failure") if voided else None,
            cost_usd=cost, cost_complete=self.cost_complete, cost_estimated_usd=estimated, turns=self.turns, duration_s=duration,
            resumes=self.resumes, decisions=bridge.decisions if bridge else self.meta.get("decisions", 0),
            cli_version=self.cli_version, ended=utc_now(), session_id=self.session_id, error=error,
        )
        write_meta(self.dir, self.meta)
