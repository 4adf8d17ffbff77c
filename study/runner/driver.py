"""The I/O of one session: the ``query()`` calls under the watchdog, the stream, the end.

``SessionDriver(prepared, interruption).run()`` (called by ``session.run_claimed`` once the
folder is claimed) writes meta.json (``running``), has ``wiring.wire`` set the session up (the
tool state, the simulator for ``sim:<policy>`` models, ``session_start``, the MCP servers, the
condition's workflow entered for the agent), sends the first message and then drives
``query()`` calls until the session ends:

- the CLI is started through the launcher (``launcher.py``) with the options of
  ``cli_options.py``; the -loop conditions and Gates-only are resumed (``query(resume=...)``)
  with the continuation message whenever a call ends with accounts left;
- a watchdog ends the running call at once when the spending cap (priced from the stream as it
  arrives, ``ledger.py``), the wall time or the time without a decision is reached (in the
  exploratory conditions also ``gate_refusals``: calls the gate refused without a new
  decision), or when the runner gets a signal (``interrupt.py``): the CLI's process group is
  stopped first;
- what happens after each call is decided by ``ending.after_call`` (every ending rule is there);
- a ``usage`` event after each streamed model response records the cost so far, so a session
  whose runner was killed shows what it streamed; ``session_end`` and the final meta.json
  close it (a crash of the runtime is an ``infrastructure_failure``; voided).

Everything the session does is in ``events.jsonl`` (``study.session_io.writer.EventLog``),
summarised in ``meta.json``; Claude Code's own transcript is kept once, as ``transcript.jsonl``
(``transcript.py``: moved there after each call, linked back for a resume).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claude_agent_sdk import (
    AssistantMessage,
    CLIConnectionError,
    ClaudeAgentOptions,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    query,
)

from study.runtimes.lock import lock_sha256
from study.prereg import code_version
from study.session_io.folders import EVENTS_NAME
from study.session_io.meta import SessionMeta, runner_identity, write_meta
from study.session_io.vocabulary import EventKind, Limit, SessionStatus, VoidReason
from study.session_io.writer import EventLog, utc_now

from study.runtimes.claude_code import options as cli_options
from .bridge import SessionBridge
from .ending import CallEnd, End, SessionState, after_call, interrupted, unwritable
from .interrupt import Interruption
from study.runtimes.launcher import stop_process_group
from .ledger import CostLedger
from study.runtimes.claude_code.sdk import CLITransport, bundled_cli_version, sdk_version
from study.runtimes.claude_code.retries import retry_fields
from .texts import continuation_message, first_message
from study.runtimes.claude_code.transcript import keep_one
from .wiring import Wiring, wire

if TYPE_CHECKING:
    from .session import Prepared

#: Recorded as the manifest hash of sessions whose caller did not run the preregistration check.
UNCHECKED = "unchecked"


class RecordsUnwritable(OSError):
    """Neither ``session_end`` nor the final meta.json could be written (a full disk)."""


def _quiet_after_exit(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Drop the SDK's late hook answers to a CLI that has already exited (``ProcessTransport is
    not ready for writing``): the call's outcome is known by then. Report anything else."""
    if isinstance(context.get("exception"), CLIConnectionError):
        return
    loop.default_exception_handler(context)


def _rounded(usd: float | None) -> float | None:
    return round(usd, 6) if usd is not None else None


class SessionDriver:
    """The I/O of one session: the calls under the watchdog, the stream, the end. The set-up is
    ``wiring.wire``'s; what happens after each call is decided by ``ending.after_call``; the cost
    is kept by ``ledger.CostLedger``."""

    def __init__(self, prepared: "Prepared", interruption: Interruption):
        self.prepared = prepared
        self.interruption = interruption
        self.dir = prepared.session_dir
        self.home = self.dir / "home"
        self.work = self.dir / "work"
        self.session_id: str | None = None
        self.cli_version = bundled_cli_version()
        self.ledger = CostLedger(prepared.model.prices_per_mtok)
        self.cap_reached = asyncio.Event()                        # set when the spending cap is reached
        self.stop_requested = asyncio.Event()                     # set when a signal arrives (attach())
        self.refusals_reached = asyncio.Event()                   # set at the gate_refusals limit (exploratory)
        self.transport: CLITransport | None = None                # the running call's CLI
        self.cli_stop_s: float | None = None                      # how long stopping the CLI took
        self.turns = 0
        self.resumes = 0
        self.started_at = time.monotonic()
        self.meta = SessionMeta()                                 # written by run()
        self.log: EventLog | None = None                          # events.jsonl, while run() runs

    async def run(self) -> Path:
        asyncio.get_running_loop().set_exception_handler(_quiet_after_exit)
        self.stop_requested = self.interruption.attach()
        for d in (self.dir, self.home, self.work):
            d.mkdir(parents=True, exist_ok=True)
        spec, model = self.prepared.spec, self.prepared.model
        self.meta = SessionMeta(
            model=model.name, model_id=model.model_id, condition=spec.condition, seed=spec.seed,
            simulated=model.simulated, exploratory=self.prepared.exploratory,
            status=SessionStatus.RUNNING, voided=False, cost_usd=0.0, cost_estimated_usd=0.0, turns=0,
            duration_s=0.0, resumes=0, decisions=0,
            manifest_sha256=spec.manifest_sha256 or UNCHECKED, code_version=code_version(),
            cli_version=self.cli_version, sdk_version=sdk_version(), lock_sha256=lock_sha256(),
            token_reminder=self.prepared.token_reminder, started=utc_now(),
            limits=self.prepared.limits.as_dict(), runner=runner_identity(),
            other={"task": self.prepared.task.name} if self.prepared.task is not None else {},
        )
        bridge: SessionBridge | None = None
        with EventLog(self.dir / EVENTS_NAME) as log, contextlib.ExitStack() as stack:
            self.log = log
            try:
                wiring = wire(self.prepared, self.meta, log, stack, home=self.home, cli_version=self.cli_version,
                              on_refusal=self._on_refusal)
                bridge = wiring.bridge
                end = await self._drive(log, wiring, first_message(self.prepared.condition, len(bridge.box.order),
                                                                   task=self.prepared.task))
            except Exception as exc:  # a crash of the runtime voids the session
                end = End(SessionStatus.INFRASTRUCTURE_FAILURE,
                          f"runtime crash: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            if log.failed is not None and end.status != SessionStatus.INTERRUPTED:
                end = unwritable(log.failed)   # whatever the failure to write made of the call
            self._finish(log, bridge, end)
        return self.dir

    # ----- the run -----------------------------------------------------------------------------

    async def _drive(self, log: EventLog, wiring: Wiring, prompt: str) -> End:
        """Run calls (the first one, then resumes) until ``ending.after_call`` ends the session."""
        bridge = wiring.bridge
        resume_id: str | None = None
        idle_resumes = 0
        while True:
            if self.interruption.signal:
                return interrupted(self.interruption.reason)
            decided_before = bridge.decisions
            options = cli_options.options(self.prepared, work=self.work, cli_path=wiring.cli_path, env=wiring.env,
                                          bridge=bridge, servers=wiring.servers, allowed=wiring.allowed,
                                          resume=resume_id)
            call = await self._call(bridge, options, prompt)
            state = SessionState(
                accounts_left=bridge.accounts_left, decided_in_call=bridge.decisions > decided_before,
                stop_cap_reached=bridge.stop_cap_reached, resumable=self.prepared.condition.resume,
                resumes=self.resumes, idle_resumes=idle_resumes, cost_usd=self.ledger.cost_usd,
                has_session_id=self.session_id is not None, signal=self.interruption.reason,
            )
            decision = after_call(call, state, self.prepared.limits)
            if isinstance(decision, End):
                return decision
            idle_resumes = decision.idle_resumes
            self.resumes += 1
            log.emit(EventKind.RESUME, n=self.resumes, accounts_left=bridge.accounts_left)
            resume_id = self.session_id
            prompt = continuation_message(bridge.accounts_left, bridge.box.next_undecided(), task=bridge.box.task)

    async def _call(self, bridge: SessionBridge, options: ClaudeAgentOptions, prompt: str) -> CallEnd:
        """One query() call under the watchdog of the spending and time limits and the signals."""
        self.ledger.new_call()
        self.cap_reached = asyncio.Event()
        self.transport = None
        bridge.new_call()
        consumer = asyncio.create_task(self._consume(bridge, options, prompt))
        watchdog = asyncio.create_task(self._watch(bridge))
        done, _ = await asyncio.wait({consumer, watchdog}, return_when=asyncio.FIRST_COMPLETED)
        if consumer not in done:
            # a limit or a signal: stop the CLI's process group first, then the SDK's side
            await self._stop_cli()
            consumer.cancel()
            with contextlib.suppress(BaseException):
                await consumer
            await self._stop_cli()  # a CLI started while the call was being cancelled
            self.ledger.unreported()  # the killed call reported no cost: its streamed price stands in
            return watchdog.result()
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
        keep_one(self.dir, self.home, self.session_id)
        # The call may report its result in the same breath as the response that reached the cap
        # (or as a signal arrives), before the watchdog runs: the ending is the same either way.
        error = consumer.exception()
        return self._signal_or_cap() or CallEnd(error=error)

    def _on_refusal(self, refusals: int) -> None:
        if refusals >= (self.prepared.limits.gate_refusals or 0):
            self.refusals_reached.set()

    def _signal_or_cap(self) -> CallEnd | None:
        """The ending of the running call once a signal has arrived, the spending cap is reached
        or (exploratory conditions) the gate has refused ``gate_refusals`` calls without a decision."""
        if self.stop_requested.is_set():
            return CallEnd(interrupted=self.interruption.reason or "a signal")
        if self.cap_reached.is_set():
            return CallEnd(limit=Limit.SPENDING)
        if self.refusals_reached.is_set():
            return CallEnd(limit=Limit.GATE_REFUSALS)
        if self.log is not None and self.log.failed is not None:   # a full disk: nothing is recorded any more
            return CallEnd(error=self.log.failed)
        return None

    async def _stop_cli(self) -> None:
        pid = self.transport.pid if self.transport is not None else None
        if pid is not None:
            took = await stop_process_group(pid)
            self.cli_stop_s = took if self.cli_stop_s is None else self.cli_stop_s + took

    async def _watch(self, bridge: SessionBridge) -> CallEnd:
        """Return how the call is to be ended once a signal arrives or a limit is reached during
        it: the spending cap (signalled by ``_on_stream_event``) or a time limit."""
        limits = self.prepared.limits
        waiters = [asyncio.ensure_future(event.wait())
                   for event in (self.cap_reached, self.stop_requested, self.refusals_reached)]
        try:
            while True:
                now = time.monotonic()
                wall_left = limits.wall_time_s - (now - self.started_at)
                idle_left = limits.no_decision_s - (now - bridge.last_decision_at)
                ended = self._signal_or_cap()
                if ended is not None:
                    return ended
                if wall_left <= 0:
                    return CallEnd(limit=Limit.WALL_TIME)
                if idle_left <= 0:
                    return CallEnd(limit=Limit.NO_DECISION)
                await asyncio.wait(waiters, timeout=min(wall_left, idle_left, 1.0), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()

    async def _consume(self, bridge: SessionBridge, options: ClaudeAgentOptions, prompt: str) -> None:
        self.transport = CLITransport(prompt=prompt, options=options)
        async for message in query(prompt=prompt, options=options, transport=self.transport):
            if isinstance(message, AssistantMessage):
                if message.error is None and message.model != "<synthetic>":
                    for block in message.content:
                        if isinstance(block, TextBlock) and block.text.strip():
                            bridge.log.emit(EventKind.ASSISTANT_TEXT, text=block.text)
            elif isinstance(message, StreamEvent):
                self._on_stream_event(bridge, message)
            elif isinstance(message, SystemMessage):
                self._on_system(bridge, message)
            elif isinstance(message, ResultMessage):
                self._on_result(bridge, message)

    def _on_stream_event(self, bridge: SessionBridge, message: StreamEvent) -> None:
        """Price the main thread's responses as they stream; signal the cap once it is reached;
        log the running cost (``usage``) after each response, so a killed session shows it."""
        if message.parent_tool_use_id is not None:
            return
        completed = self.ledger.on_stream_event(message.event)
        if self.ledger.cap_reached(self.prepared.limits.spending_usd):
            self.cap_reached.set()
        if completed:
            bridge.log.emit(EventKind.USAGE, call=self.resumes, priced_usd=_rounded(self.ledger.running_usd),
                            session_cost_usd=round(self.ledger.so_far_usd, 6))

    def _on_result(self, bridge: SessionBridge, message: ResultMessage) -> None:
        """Account for one call's result: session id, turns and cost."""
        self.session_id = message.session_id or self.session_id
        self.turns += message.num_turns or 0
        call_cost, priced = self.ledger.on_result(message.total_cost_usd)
        bridge.log.emit(EventKind.CALL_END, n=self.resumes, subtype=message.subtype, is_error=message.is_error,
                        turns=message.num_turns, cost_usd=round(call_cost, 6),
                        session_cost_usd=round(self.ledger.cost_usd, 6), priced_usd=_rounded(priced),
                        decisions=bridge.decisions, accounts_left=bridge.accounts_left)

    def _on_system(self, bridge: SessionBridge, message: SystemMessage) -> None:
        data = message.data or {}
        if message.subtype == "api_retry":   # a transient API error the CLI retries: logged, voids nothing
            bridge.log.emit(EventKind.API_RETRY, **retry_fields(data, self.resumes))
        if message.subtype == "init":
            self.session_id = data.get("session_id") or self.session_id
            self.cli_version = data.get("claude_code_version") or self.cli_version
            broken = [s for s in data.get("mcp_servers", []) if s.get("status") != "connected"]
            if broken:
                raise RuntimeError(f"MCP server(s) failed to start in the CLI: {broken}")

    # ----- the end -----------------------------------------------------------------------------

    def _finish(self, log: EventLog, bridge: SessionBridge | None, end: End) -> None:
        """``session_end`` and the final meta.json. When the log cannot take ``session_end`` (a
        full disk), meta.json says ``unfinished`` (voided) with the reason; when meta.json cannot
        be written either, ``RecordsUnwritable`` says so in one line (status then shows the
        session unfinished: its claim is released)."""
        with contextlib.suppress(OSError):
            keep_one(self.dir, self.home, self.session_id)   # the CLI has been stopped or has exited
        duration = round(time.monotonic() - self.started_at, 3)
        cost = round(self.ledger.cost_usd, 6)
        estimated = round(self.ledger.estimated_usd, 6)
        extra: dict[str, Any] = {"cli_stop_s": round(self.cli_stop_s, 3)} if self.cli_stop_s is not None else {}
        if end.after_last_decision:   # completed: stopped by a signal once every account was decided
            extra["interrupted_after_last_decision"] = end.after_last_decision
        status, void_kind, reason = end.status, end.void_kind, (end.error or str(end.void_kind)) if end.void_kind else None
        try:
            log.emit(EventKind.SESSION_END, status=end.status, cost_usd=cost, turns=self.turns, duration_s=duration,
                     error=end.error, cost_complete=self.ledger.complete, cost_estimated_usd=estimated,
                     resumes=self.resumes, decisions=bridge.decisions if bridge else None,
                     accounts_left=bridge.accounts_left if bridge else None, **extra)
        except OSError as exc:
            status, void_kind = SessionStatus.UNFINISHED, VoidReason.UNFINISHED
            reason = f"session_end could not be written ({exc}); rerun from scratch. The session ended: {end.error or end.status}"
        self.meta = dataclasses.replace(
            self.meta, status=status, voided=void_kind is not None, void_reason=reason, void_kind=void_kind,
            cost_usd=cost, cost_complete=self.ledger.complete, cost_estimated_usd=estimated, turns=self.turns,
            duration_s=duration, resumes=self.resumes,
            decisions=bridge.decisions if bridge else self.meta.decisions,
            cli_version=self.cli_version, ended=utc_now(), session_id=self.session_id, error=end.error,
        )
        try:
            write_meta(self.dir, self.meta)
        except OSError as exc:
            raise RecordsUnwritable(f"{self.dir}: neither session_end nor the final meta.json could be written "
                                    f"({exc}); the session is unfinished, rerun it from scratch once there is room "
                                    "(study run-all --rerun-voided)") from None
