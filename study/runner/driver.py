"""The I/O of one session on any runtime: the calls under the watchdog, what the CLI reports, the end.

``SessionDriver(prepared, interruption).run()`` (called by ``session.run_claimed`` once the
folder is claimed) makes the agent's folder (``agent_folder``: the CLI's HOME and working folder
outside the session folder, under a name that says nothing of the session, linked from it and
moved into it when the session ends), writes meta.json (``running``), has ``wiring.wire`` set
the session up (the tool state, the simulator for ``sim:<policy>`` models, the FSM, the bridge,
``session_start``, the runtime adapter of the model's runtime, the condition's workflow entered
for the agent), sends the first message and then drives calls until the session ends:

- each call is the adapter's (``study.runtimes.base.RuntimeSession.call``): it starts its CLI in a
  process group of its own and tells this driver (the ``CallSink``) what the CLI reports; the
  -loop conditions and Gates-only are resumed with the continuation message whenever a call ends
  with accounts left;
- a watchdog ends the running call at once when the spending cap (priced from the usage the
  adapter reports as it streams, ``ledger.py``), the wall time or the time without a decision is
  reached (in the exploratory conditions also ``gate_refusals``: calls the gate refused without a
  new decision), or when the runner gets a signal (``interrupt.py``): the CLI's process group is
  stopped first;
- what happens after each call is decided by ``ending.after_call`` (every ending rule is there);
  the error a call ended with is classified by the adapter (a limit, a model outcome or a voiding
  infrastructure failure);
- a ``usage`` event after each model response records the cost so far, so a session whose runner
  was killed shows what it streamed; the models the session calls beside the agent's (a benchmark
  customer, its judge) are priced, logged (``model_usage``) and counted in the cost and against
  the cap as their responses come (``spending.SideSpend``, from whatever thread calls them);
  ``session_end`` and the final meta.json close it (a crash of the runtime is an
  ``infrastructure_failure``; voided).

Everything the session does is in ``events.jsonl`` (``study.session_io.writer.EventLog``),
summarised in ``meta.json``; the CLI's own transcript is kept once, as ``transcript.jsonl``
(by the adapter, after each call).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from study.prereg import code_version
from study.runtimes.base import Ending, Usage, crash
from study.runtimes.launcher import stop_process_group
from study.runtimes.lock import lock_sha256
from study.transcripts.kept import keep_context_transcript
from study.session_io.events import ApiRetry
from study.session_io.folders import EVENTS_NAME
from study.session_io.meta import SessionMeta, runner_identity, write_meta
from study.session_io.vocabulary import EventKind, Limit, SessionStatus, VoidReason
from study.session_io.writer import EventLog, utc_now

from .agent_folder import AgentFolder, open_agent_folder, settle
from .bridge import SessionBridge
from .ending import CallEnd, End, NewContext, SessionState, after_call, interrupted, unwritable
from .interrupt import Interruption
from .ledger import CostLedger
from .spending import SideSpend
from .wiring import Wiring, wire

if TYPE_CHECKING:
    from .prepared import Prepared

#: Recorded as the manifest hash of sessions whose caller did not run the preregistration check.
UNCHECKED = "unchecked"


class RecordsUnwritable(OSError):
    """Neither ``session_end`` nor the final meta.json could be written (a full disk)."""


def _rounded(usd: float | None) -> float | None:
    return round(usd, 6) if usd is not None else None


class SessionDriver:
    """The I/O of one session: the calls under the watchdog, what the CLI reports, the end. The
    set-up is ``wiring.wire``'s; each call is the runtime adapter's; what happens after each call
    is decided by ``ending.after_call``; the cost is kept by ``ledger.CostLedger``."""

    def __init__(self, prepared: "Prepared", interruption: Interruption):
        from study.runtimes import runtime

        self.prepared = prepared
        self.interruption = interruption
        self.dir = prepared.session_dir
        self.agent: AgentFolder | None = None                     # where the CLI runs (run(): agent_folder)
        self.home = self.dir / "home"
        self.work = self.dir / "work"
        self.runtime = runtime(prepared.model.runtime)
        self.versions = self.runtime.record()                     # cli_version, sdk_version, ...
        self.cli_version: str | None = self.versions.get("cli_version")
        self.session_id: str | None = None
        self.ledger = CostLedger(prepared.model.prices_per_mtok)
        self.cap_reached = asyncio.Event()                        # set when the spending cap is reached
        self.stop_requested = asyncio.Event()                     # set when a signal arrives (attach())
        self.refusals_reached = asyncio.Event()                   # set at the gate_refusals limit (exploratory)
        self.infrastructure = asyncio.Event()                     # set when the bridge finds the runtime failing
        self.infrastructure_reason: str | None = None             # (a sandbox that stopped starting) and why
        self.adapter: Any = None                                  # the runtime adapter, once wired
        self.cli_stop_s: float | None = None                      # how long stopping the CLI took
        self.turns = 0
        self.resumes = 0
        self.context = 1                                          # the running context (fresh-context runs)
        self.context_run = False                                  # the session is a run of fresh contexts
        self.started_at = time.monotonic()
        self.meta = SessionMeta()                                 # written by run()
        self.log: EventLog | None = None                          # events.jsonl, while run() runs

    async def run(self) -> Path:
        self.stop_requested = self.interruption.attach()
        loop = asyncio.get_running_loop()
        self.dir.mkdir(parents=True, exist_ok=True)
        # the CLI's HOME and working folder: outside the session folder, named by nothing of it
        # (a CLI shows the model where it runs), linked from it; moved into it at the end
        self.agent = open_agent_folder(self.prepared)
        self.home, self.work = self.agent.home, self.agent.work
        self.agent.link(self.dir)
        try:
            return await self._run(loop)
        finally:
            settle(self.dir)

    async def _run(self, loop: asyncio.AbstractEventLoop) -> Path:
        spec, model = self.prepared.spec, self.prepared.model
        self.meta = SessionMeta(
            model=model.name, model_id=model.model_id, condition=spec.condition, seed=spec.seed,
            simulated=model.simulated, exploratory=self.prepared.exploratory,
            status=SessionStatus.RUNNING, voided=False, cost_usd=0.0, cost_estimated_usd=0.0, turns=0,
            duration_s=0.0, resumes=0, decisions=0,
            manifest_sha256=spec.manifest_sha256 or UNCHECKED, code_version=code_version(),
            cli_version=self.cli_version, sdk_version=self.versions.get("sdk_version"), lock_sha256=lock_sha256(),
            token_reminder=self.prepared.token_reminder, started=utc_now(),
            limits=self.prepared.limits.as_dict(), runner=runner_identity(),
            other=self._other(),
        )
        self.meta.runtime = model.runtime
        if self.versions.get("runtime_lock_sha256") is not None:
            self.meta.runtime_lock_sha256 = self.versions["runtime_lock_sha256"]
        bridge: SessionBridge | None = None
        with EventLog(self.dir / EVENTS_NAME) as log, contextlib.ExitStack() as stack:
            self.log = log
            side = SideSpend(self.ledger, log.emit, self.prepared.limits.spending_usd,
                             on_cap=lambda: loop.call_soon_threadsafe(self._side_cap))
            try:
                wiring = wire(self.prepared, self.meta, log, stack, runtime=self.runtime, home=self.home, work=self.work,
                              versions=self.versions, on_refusal=self._on_refusal, side=side,
                              agent_root=self.agent.path if self.agent is not None else None,
                              on_infrastructure=self._on_infrastructure)
                bridge, self.adapter = wiring.bridge, wiring.adapter
                if self.agent is not None:
                    self.agent.link(self.dir)   # what the family laid out for the agent (a workspace)
                try:
                    end = await self._drive(log, bridge, bridge.work.first_message(self.prepared.condition))
                finally:
                    await self.adapter.aclose()
            except Exception as exc:  # a crash of the runtime voids the session
                end = End(SessionStatus.INFRASTRUCTURE_FAILURE,
                          f"runtime crash: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            if log.failed is not None and end.status != SessionStatus.INTERRUPTED:
                end = unwritable(log.failed)   # whatever the failure to write made of the call
            self._finish(log, bridge, end)
        return self.dir

    def _other(self) -> dict[str, Any]:
        """meta.json's further fields: the SOP-Bench task, or the study and family of another study."""
        prepared = self.prepared
        if prepared.study is not None and not prepared.study.main:
            return {"study": prepared.study.name, "family": prepared.study.family}
        return {"task": prepared.task.name} if prepared.task is not None else {}

    # ----- the run -----------------------------------------------------------------------------

    async def _drive(self, log: EventLog, bridge: SessionBridge, prompt: str) -> End:
        """Run calls (the first one, then resumes) until ``ending.after_call`` ends the session."""
        resume_id: str | None = None
        idle_resumes = 0
        work = bridge.work
        self.context_run = work.contexts_after() is not None
        if self.context_run:
            log.emit(EventKind.CONTEXT_START, n=self.context, unit=work.context_label())
        while True:
            if self.interruption.signal:
                return interrupted(self.interruption.reason)
            decided_before = bridge.decisions
            call = await self._call(bridge, prompt, resume_id)
            state = SessionState(
                accounts_left=bridge.accounts_left, decided_in_call=bridge.decisions > decided_before,
                stop_cap_reached=bridge.stop_cap_reached, resumable=self.prepared.condition.resume,
                resumes=self.resumes, idle_resumes=idle_resumes, cost_usd=self.ledger.cost_usd,
                has_session_id=self.session_id is not None, signal=self.interruption.reason,
                contexts_left=work.contexts_after(),
            )
            decision = after_call(call, state, self.prepared.limits)
            if isinstance(decision, End):
                if work.contexts_after() is not None:   # the run's last context: its transcript stays transcript.jsonl
                    self._end_context(log, work, str(decision.status), keep_apart=False)
                return decision
            if isinstance(decision, NewContext):
                prompt = self._new_context(log, bridge, decision.ended)
                resume_id, idle_resumes = None, 0
                continue
            idle_resumes = decision.idle_resumes
            self.resumes += 1
            log.emit(EventKind.RESUME, n=self.resumes, accounts_left=bridge.accounts_left)
            resume_id = self.session_id
            prompt = bridge.work.continuation_message()

    async def _call(self, bridge: SessionBridge, prompt: str, resume_id: str | None) -> CallEnd:
        """One call of the CLI under the watchdog of the spending and time limits and the signals."""
        self.ledger.new_call()
        self.cap_reached = asyncio.Event()
        if self.ledger.so_far_usd >= self.prepared.limits.spending_usd:   # reached between calls (a customer's
            self.cap_reached.set()                                         # opening): the call ends at once
        bridge.new_call()
        consumer = asyncio.create_task(self.adapter.call(prompt, resume_id, _Sink(self, bridge)))
        watchdog = asyncio.create_task(self._watch(bridge))
        done, _ = await asyncio.wait({consumer, watchdog}, return_when=asyncio.FIRST_COMPLETED)
        if consumer not in done:
            # a limit or a signal: stop the CLI's process group first, then the adapter's side
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
        self.adapter.after_call(self.session_id)
        # The call may report its result in the same breath as the response that reached the cap
        # (or as a signal arrives), before the watchdog runs: the ending is the same either way.
        error = consumer.exception()
        ending = self._signal_or_cap()
        if ending is not None:
            return ending
        return CallEnd(error=self.adapter.classify_error(error) if error is not None else None)

    def _end_context(self, log: EventLog, work: Any, ended: str, *, keep_apart: bool = True) -> None:
        """The running context of a run of fresh contexts has ended; unless it is the run's last, its
        transcript is kept apart (``contexts/context-<n>.transcript.jsonl``), so the next context's
        CLI session starts a ``transcript.jsonl`` of its own."""
        label = work.context_label()
        work.end_context(ended, log.emit)
        log.emit(EventKind.CONTEXT_END, n=self.context, ended=ended, unit=label)
        if keep_apart:
            if self.adapter is not None:
                self.adapter.after_call(self.session_id)
            keep_context_transcript(self.dir, self.context)

    def _new_context(self, log: EventLog, bridge: SessionBridge, ended: str) -> str:
        """End the running context and start the next: a new CLI session (no resume) that shares
        only the workspace's files and the FSM's frames with the ones before; its time without a
        decision counts from now."""
        work = bridge.work
        self._end_context(log, work, ended)
        self.session_id = None
        self.ledger.new_cli_session()      # the next context's CLI reports its own cumulative cost
        self.context += 1
        prompt = work.next_context()
        bridge.last_decision_at = time.monotonic()
        log.emit(EventKind.CONTEXT_START, n=self.context, unit=work.context_label())
        if bridge.fsm is not None and getattr(work, "fresh_frame_per_context", False):
            before = bridge.fsm.state
            name = self.prepared.workflow.name
            bridge.fsm.restart(name)
            log.emit(EventKind.TRANSITION, **{"from": before}, to=bridge.fsm.state, ok=True,
                     reason=f"context {self.context} starts workflow {name} anew (the runner, at a fresh context)")
        return prompt

    def _side_cap(self) -> None:
        """A model beside the agent's brought the session to its spending cap (in the loop's thread):
        the running call ends as at the agent's own cap."""
        self.cap_reached.set()

    def _on_refusal(self, refusals: int) -> None:
        if refusals >= (self.prepared.limits.gate_refusals or 0):
            self.refusals_reached.set()

    def _on_infrastructure(self, reason: str) -> None:
        """The bridge found the runtime failing mid-call (its sandbox stopped starting): the call is
        ended and the session voided as an infrastructure failure, with ``reason``."""
        if self.infrastructure_reason is None:
            self.infrastructure_reason = reason
        self.infrastructure.set()

    def _signal_or_cap(self) -> CallEnd | None:
        """The ending of the running call once a signal has arrived, the spending cap is reached
        or (exploratory conditions) the gate has refused ``gate_refusals`` calls without a decision."""
        if self.stop_requested.is_set():
            return CallEnd(interrupted=self.interruption.reason or "a signal")
        if self.cap_reached.is_set():
            return CallEnd(limit=Limit.SPENDING)
        if self.refusals_reached.is_set():
            return CallEnd(limit=Limit.GATE_REFUSALS)
        if self.infrastructure.is_set():
            return CallEnd(error=Ending(SessionStatus.INFRASTRUCTURE_FAILURE, True, self.infrastructure_reason or ""))
        if self.log is not None and self.log.failed is not None:   # a full disk: nothing is recorded any more
            return CallEnd(error=crash(self.log.failed))
        return None

    async def _stop_cli(self) -> None:
        pid = self.adapter.pid if self.adapter is not None else None
        if pid is not None:
            took = await stop_process_group(pid)
            self.cli_stop_s = took if self.cli_stop_s is None else self.cli_stop_s + took

    async def _watch(self, bridge: SessionBridge) -> CallEnd:
        """Return how the call is to be ended once a signal arrives or a limit is reached during
        it: the spending cap (signalled by ``_Sink.response_usage``) or a time limit."""
        limits = self.prepared.limits
        waiters = [asyncio.ensure_future(event.wait())
                   for event in (self.cap_reached, self.stop_requested, self.refusals_reached, self.infrastructure)]
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


    # ----- the end -----------------------------------------------------------------------------

    def _finish(self, log: EventLog, bridge: SessionBridge | None, end: End) -> None:
        """``session_end`` and the final meta.json. When the log cannot take ``session_end`` (a
        full disk), meta.json says ``unfinished`` (voided) with the reason; when meta.json cannot
        be written either, ``RecordsUnwritable`` says so in one line (status then shows the
        session unfinished: its claim is released)."""
        if self.adapter is not None:
            with contextlib.suppress(OSError):
                self.adapter.after_call(self.session_id)   # the CLI has been stopped or has exited
        if bridge is not None:
            bridge.flush_commands()    # a command still waiting for its exit status (a stopped Codex call)
            end = self._finish_work(bridge, end)
        duration = round(time.monotonic() - self.started_at, 3)
        cost = round(self.ledger.cost_usd, 6)
        estimated = round(self.ledger.estimated_usd, 6)
        extra: dict[str, Any] = {"cli_stop_s": round(self.cli_stop_s, 3)} if self.cli_stop_s is not None else {}
        if end.after_last_decision:   # completed: stopped by a signal once every account was decided
            extra["interrupted_after_last_decision"] = end.after_last_decision
        if self.ledger.side_usd:      # the part of the cost the models beside the agent's cost
            extra["side_cost_usd"] = round(self.ledger.side_usd, 6)
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


    @staticmethod
    def _finish_work(bridge: SessionBridge, end: End) -> End:
        """The family's end of the work (``Work.finish``: a benchmark's own evaluation, say), told
        whether the session is voided; a crash there voids a session that was not yet."""
        try:
            bridge.work.finish(bridge.log.emit, voided=end.void_kind is not None)
        except Exception as exc:
            if end.void_kind is None:
                return End(SessionStatus.INFRASTRUCTURE_FAILURE,
                           f"runtime crash at the end of the work: {type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        return end


class _Sink:
    """What the runtime adapter reports during one call, turned into the session's log and costs
    (``study.runtimes.base.CallSink``)."""

    def __init__(self, driver: SessionDriver, bridge: SessionBridge):
        self.driver = driver
        self.bridge = bridge

    def assistant_text(self, text: str) -> None:
        self.bridge.log.emit(EventKind.ASSISTANT_TEXT, text=text)

    def response_usage(self, usage: Usage, *, response: object, done: bool) -> None:
        """Price the main thread's responses as they stream; signal the cap once it is reached;
        log the running cost (``usage``) after each response, so a killed session shows it."""
        d = self.driver
        d.ledger.on_usage(usage, response, done)
        if d.ledger.cap_reached(d.prepared.limits.spending_usd):
            d.cap_reached.set()
        if done:
            where = {"context": d.context} if d.context_run else {}
            self.bridge.log.emit(EventKind.USAGE, call=d.resumes, priced_usd=_rounded(d.ledger.running_usd),
                                 session_cost_usd=round(d.ledger.so_far_usd, 6), **where)

    def api_retry(self, fields: ApiRetry) -> None:
        self.bridge.log.emit(EventKind.API_RETRY, **{"call": self.driver.resumes, **fields})

    def thread_id(self, thread_id: str) -> None:
        self.driver.session_id = thread_id

    def runtime_version(self, version: str) -> None:
        self.driver.cli_version = version

    def call_result(self, *, subtype: str | None, is_error: bool, turns: int | None,
                    reported_cost_usd: float | None) -> None:
        """Account for one call's result: turns and cost."""
        d = self.driver
        d.turns += turns or 0
        call_cost, priced = d.ledger.on_result(reported_cost_usd, reports_cost=d.adapter.reports_cost)
        self.bridge.log.emit(EventKind.CALL_END, n=d.resumes, subtype=subtype, is_error=is_error,
                             turns=turns, cost_usd=round(call_cost, 6),
                             session_cost_usd=round(d.ledger.cost_usd, 6), priced_usd=_rounded(priced),
                             decisions=self.bridge.decisions, accounts_left=self.bridge.accounts_left)
