"""The seam between the runtime-neutral runner and one agent CLI: what an adapter is given, what it
reports, and how it ends a call.

The runner (``study.runner``) prepares everything a session is made of whichever CLI runs it: the
tool state, the FSM runtime, the ``SessionBridge`` (the enforcement points and the log), the
simulator, ``session_start``. It then opens the session's adapter (``Runtime.open``) with a
``SessionSetup`` and, for every call (the first, then each resume), awaits
``RuntimeSession.call(prompt, resume_id, sink)``:

- the adapter starts its CLI through ``launcher.py`` (own process group, dies with the runner),
  serves it the tools and hooks the setup names, and tells the runner what the CLI reports through
  the ``CallSink``: the model's text, each response's token usage (the spending cap is priced from
  it as it streams), retried API errors, the thread id a resume needs, the call's own result;
- it returns when the CLI has exited, or raises the error the call ended with; the runner asks the
  same adapter to classify that error (``classify_error``: a limit, a model outcome, or an
  infrastructure failure that voids the session, decided from the error alone);
- the runner's watchdog may end a call at any moment (a limit, a signal): it stops the CLI's
  process group (``RuntimeSession.pid``) and cancels the call.

Nothing here imports an agent SDK; each adapter module imports its own.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from study.protocol.models import Usage
from study.session_io.events import ApiRetry

__all__ = ["CallSink", "Ending", "MODEL_OUTCOME", "Runtime", "RuntimeSession", "SessionSetup", "Usage", "crash"]


@dataclass(frozen=True)
class Ending:
    """How an error ends a session, decided from the error alone (paper appendix A).

    ``status`` is a ``SessionStatus`` value (``infrastructure_failure``, ``limit:<name>``) or
    ``MODEL_OUTCOME`` (the model's doing, e.g. a context overflow: the accounts left decide the
    status); ``voided`` says whether the session is voided; ``reason`` is what the log records.
    """

    status: str
    voided: bool
    reason: str


#: ``Ending.status`` of an error that is the model's doing (the accounts left decide the status).
MODEL_OUTCOME = "model"


def crash(exc: BaseException) -> Ending:
    """A crash of the runtime (the runner, the tool server, the FSM): an infrastructure failure."""
    return Ending("infrastructure_failure", True, f"runtime crash: {type(exc).__name__}: {exc}")


class CallSink(Protocol):
    """What an adapter tells the runner while a call runs (``runner.driver`` implements it)."""

    def assistant_text(self, text: str) -> None:
        """A text the model said in the main conversation (not a sub-agent's)."""

    def response_usage(self, usage: Usage, *, response: object, done: bool) -> None:
        """The running usage of model response ``response`` (any id unique within the call): each
        report replaces the previous one of the same response, a report of another response closes
        the previous one; ``done``: the response is complete (the runner logs the cost so far)."""

    def api_retry(self, fields: ApiRetry) -> None:
        """The CLI retries a request that met a transient API error (logged; voids nothing)."""

    def thread_id(self, thread_id: str) -> None:
        """The id by which this conversation is resumed."""

    def runtime_version(self, version: str) -> None:
        """The version the running CLI reports of itself."""

    def call_result(self, *, subtype: str | None, is_error: bool, turns: int | None,
                    reported_cost_usd: float | None) -> None:
        """The call's own result as the CLI reports it: ``reported_cost_usd`` is the session's
        cumulative cost by the CLI's account (None: the CLI reports none, and the runner's price
        of the streamed usage is the cost)."""


@dataclass
class SessionSetup:
    """What the runner gives an adapter for one session (everything already checked).

    ``hooks`` is the session's ``SessionBridge``: its ``pre_tool_use``, ``post_tool_use``,
    ``on_stop`` and ``pre_compact`` coroutines take Claude-Code-style hook input dicts and return
    hook output dicts (Codex CLI's hooks use the same JSON); ``after_call_for(server)`` is a tool
    server's callback and ``on_fsm_event`` the FSM tools' event sink. ``task_work`` is the session's
    ``Work`` (``study.families``: its ``servers`` are the tool servers to serve), ``fsm``
    the FsmRuntime (None without a workflow; ``fsm_tools`` False when the workflow moves on its own
    and offers the agent no FSM tools), ``proposals`` the FSM-propose desk (or None).
    """

    prepared: Any                 # study.runner.session.Prepared
    session_dir: Path
    home: Path                    # the CLI's fresh HOME (its config lives under it)
    work: Path                    # the CLI's working folder
    base_url: str                 # the model endpoint (the simulator's, for sim: models)
    hooks: Any                    # study.runner.bridge.SessionBridge
    task_work: Any                # the session's study.families.base.Work (its tool servers, workspace)
    fsm: Any = None
    fsm_tools: bool = False
    proposals: Any = None
    system_append: str | None = None   # the SOP copy the Sys conditions add to the system prompt
    sim: Any = None               # the running study.sim.SimServer of a sim: model, else None
    stack: contextlib.ExitStack | None = None   # for what must be stopped with the session


class RuntimeSession(Protocol):
    """One session's adapter, made by ``Runtime.open``."""

    #: The CLI's settings as recorded in session_start and meta.json (never an API key).
    settings: dict[str, Any]
    #: Names of environment variables the CLI inherits from the runner that could change it.
    inherited_env: list[str]

    @property
    def pid(self) -> int | None:
        """The running CLI's pid (the leader of its process group), or None between calls."""

    async def call(self, prompt: str, resume_id: str | None, sink: CallSink) -> None:
        """Run one call to its end (the CLI has exited); raise the error it ended with."""

    def after_call(self, thread_id: str | None) -> None:
        """The CLI has exited or was stopped: keep its transcript (``transcript.jsonl``)."""

    def classify_error(self, exc: BaseException) -> Ending:
        """How the error a call ended with ends the session."""

    async def aclose(self) -> None:
        """Release what the session holds (servers, sockets); called once at its end."""


class Runtime(Protocol):
    """An agent CLI the study can run on (one per adapter package)."""

    name: str          # e.g. "claude-code"
    label: str         # e.g. "Claude Code"
    api: str           # the model API it speaks: "anthropic-messages" or "openai-responses"
    reinstall: str     # what to do when ``study doctor``'s probe session fails on it

    def version(self) -> str | None:
        """The pinned CLI's exact version (None: not installed)."""

    def problem(self) -> str | None:
        """Why this runtime cannot run here (one line saying what to do), or None."""

    def sandbox_problem(self) -> str | None:
        """Why the agent's commands in a workspace cannot run in the runtime's OS sandbox here
        (one line saying what to install), or None (``study.runtimes.sandbox``)."""

    def describe(self) -> list[tuple[str, str]]:
        """What ``study doctor`` shows of its install, as (name, value) lines (nothing is run)."""

    def check_install(self) -> tuple[bool, str, str]:
        """``study doctor``'s check of its install: (ok, what was found, what to do when not ok).
        The doctor then probes it with one short session through ``open`` (``study.doctor.probe``)."""

    def open(self, setup: SessionSetup) -> RuntimeSession:
        """The adapter of one session."""
