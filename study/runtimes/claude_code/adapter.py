"""Claude Code as the runtime of a session: the bundled CLI, driven through ``claude-agent-sdk``.

``study.runtimes.runtime("claude-code").open(setup)`` makes one session's adapter
(``ClaudeCodeSession``):

- the CLI runs with its own fresh HOME and working folder, no filesystem settings, built-in
  tools off, Claude Code's default system prompt (plus the SOP copy for the Sys conditions), the
  SOP-Bench and FSM tools served in process over MCP (``tool_server.py``, ``fsm_server.py``), and
  the session's ``SessionBridge`` as its hooks (``options.py``); it is started through the
  runner's launcher (``study.runtimes.launcher``), which execs the bundled CLI in a process group
  of its own that dies with the runner;
- ``call`` runs one ``query()`` (a resume names the session id) and tells the runner's sink what
  the stream says: the model's text, each streamed response's usage (``message_start`` carries
  the input side, ``message_delta`` the cumulative output), the CLI's retries of API errors
  (``api_retry``), the session id and the CLI's version (``init``), the call's result and the
  cost the CLI reports (``total_cost_usd`` is cumulative over the session);
- ``classify_error`` decides how an error ends the session (``errors.py``); ``after_call`` keeps
  the CLI's transcript once (``transcript.py``).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    CLIConnectionError,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    query,
)

from study.runtimes.base import CallSink, Ending, SessionSetup, Usage
from study.runtimes.launcher import agent_path, write_launcher
from study.runtimes.sandbox import SandboxUnavailable, claude_problem, claude_settings
from study.transcripts.claude_code import usage_of

from .options import cli_env, generation, inherited, options, recorded_settings
from .errors import classify_error
from .retries import retry_fields
from .pin import bundled_cli_path
from .sdk import CLITransport
from .transcript import keep_one

#: The names the SOP-Bench and FSM servers have for the CLI (``mcp__<server>__<tool>``).
SOPBENCH_SERVER = "sopbench"
FSM_SERVER = "fsm"


def _quiet_after_exit(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Drop the SDK's late hook answers to a CLI that has already exited (``ProcessTransport is
    not ready for writing``): the call's outcome is known by then. Report anything else."""
    if isinstance(context.get("exception"), CLIConnectionError):
        return
    loop.default_exception_handler(context)


class _StreamUsage:
    """One streamed response's usage as the Messages API reports it: ``message_start`` holds the
    input side, each ``message_delta`` the cumulative values that replace the start's."""

    def __init__(self) -> None:
        self.raw: dict[str, Any] | None = None
        self.responses = 0    # the number of the response being streamed (the sink's response id)

    def start(self, usage: dict[str, Any]) -> None:
        self.raw = dict(usage)
        self.responses += 1

    def delta(self, usage: dict[str, Any]) -> None:
        if self.raw is not None:
            self.raw.update({k: v for k, v in usage.items() if v is not None})

    def usage(self) -> Usage:
        """The usage so far in the price keys (``study.transcripts.claude_code.usage_of``)."""
        return usage_of(self.raw)


class ClaudeCodeSession:
    """One session on the bundled Claude Code CLI (see the module docstring)."""

    reports_cost = True   # the CLI reports each call's cost (``ResultMessage.total_cost_usd``)

    def __init__(self, setup: SessionSetup):
        self.setup = setup
        prepared = setup.prepared
        cli = bundled_cli_path()
        if cli is None:
            raise RuntimeError("the installed claude-agent-sdk has no bundled Claude Code CLI")
        self.cli_path: Path = write_launcher(setup.home / ".study", cli)
        sim_env = setup.sim.cli_env() if setup.sim is not None else {}
        self.env = {**sim_env, **cli_env(prepared, setup.home, setup.base_url)}
        #: a workspace session's sandbox (``--settings``) and the private temporary folder its
        #: commands may write (``CLAUDE_CODE_TMPDIR``; Claude Code's default, /tmp/claude-<uid>/, is
        #: shared by every session of the machine); None for a session without the CLI's own tools
        self.sandbox: dict[str, Any] | None = None
        self.tmpdir: Path | None = None
        self._sandbox_checked = False
        if setup.task_work.builtin_tools:   # the agent's commands find this Python (and its packages) first
            self.env["PATH"] = agent_path()
        work = setup.task_work
        if getattr(work, "commands_confined", False):
            # the work's own shell (``Work.command_shell``) runs every Bash call where the work confines
            # it (no CLI sandbox around it): the CLI writes its shell snapshot under its config folder
            # and each call's working folder into TMPDIR, and reads both back, so the shell must see
            # those at the same paths
            tmp = setup.home / "tmp"
            shell = work.command_shell([setup.home / ".claude" / "shell-snapshots", tmp])
            if shell is None:
                raise RuntimeError("the session's work confines its commands but gave no shell to run them in")
            self.env.update(CLAUDE_CODE_SHELL=str(shell), TMPDIR=str(tmp))
        elif work.builtin_tools:
            self.tmpdir = Path(tempfile.mkdtemp(prefix="study-agent-tmp-"))
            self.env["CLAUDE_CODE_TMPDIR"] = str(self.tmpdir)
            self.sandbox = claude_settings(writable=getattr(work, "writable", ()))
            setup.hooks.sandbox_probe = lambda: claude_problem(self.env)
        self.settings = recorded_settings(self.env)
        passed = generation(prepared.model.settings)
        if passed:   # the model's generation settings, as the SDK's options the CLI gets as flags
            self.settings["generation"] = passed
        if self.sandbox is not None:
            self.settings.update(self.sandbox)
        self.inherited_env = inherited(self.env)
        from .tool_server import make_sdk_server

        bridge = setup.hooks
        self.servers: dict[str, Any] = {}
        self.allowed: list[str] = []
        for name, provider in setup.task_work.servers.items():
            self.servers[name] = make_sdk_server(provider, name=name, after_call=bridge.after_call_for(name))
            self.allowed += [f"mcp__{name}__{spec['name']}" for spec in provider.tool_specs()]
        if setup.fsm is not None and setup.fsm_tools:
            from study.fsm.tool_api import FSM_TOOL_NAMES

            from .fsm_server import make_fsm_sdk_server

            desk = setup.proposals
            self.servers[FSM_SERVER] = make_fsm_sdk_server(setup.fsm, name=FSM_SERVER, on_event=bridge.on_fsm_event,
                                                           proposals=desk)
            self.allowed += [f"mcp__{FSM_SERVER}__{t}" for t in FSM_TOOL_NAMES]
            if desk is not None:
                self.allowed.append(f"mcp__{FSM_SERVER}__{desk.tool}")
        self.transport: CLITransport | None = None

    @property
    def pid(self) -> int | None:
        return self.transport.pid if self.transport is not None else None

    async def call(self, prompt: str, resume_id: str | None, sink: CallSink) -> None:
        asyncio.get_running_loop().set_exception_handler(_quiet_after_exit)
        setup = self.setup
        if self.sandbox is not None and not self._sandbox_checked:   # never run the agent's commands unconfined
            problem = claude_problem(self.env)
            if problem is not None:
                raise SandboxUnavailable(problem)
            self._sandbox_checked = True
        call_options = options(setup.prepared, work=setup.work, cli_path=self.cli_path, env=self.env,
                               bridge=setup.hooks, servers=self.servers, allowed=self.allowed, resume=resume_id,
                               system_append=setup.system_append, builtin_tools=setup.task_work.builtin_tools,
                               settings=self.sandbox)
        self.transport = CLITransport(prompt=prompt, options=call_options)
        stream = _StreamUsage()
        async for message in query(prompt=prompt, options=call_options, transport=self.transport):
            if isinstance(message, AssistantMessage):
                if message.error is None and message.model != "<synthetic>":
                    for block in message.content:
                        if isinstance(block, TextBlock) and block.text.strip():
                            sink.assistant_text(block.text)
            elif isinstance(message, StreamEvent):
                if message.parent_tool_use_id is None:   # the main thread's responses only
                    self._on_stream_event(sink, stream, message.event)
            elif isinstance(message, SystemMessage):
                self._on_system(sink, message)
            elif isinstance(message, ResultMessage):
                if message.session_id:
                    sink.thread_id(message.session_id)
                sink.call_result(subtype=message.subtype, is_error=message.is_error, turns=message.num_turns,
                                 reported_cost_usd=message.total_cost_usd)

    @staticmethod
    def _on_stream_event(sink: CallSink, stream: _StreamUsage, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            stream.start((event.get("message") or {}).get("usage") or {})
            sink.response_usage(stream.usage(), response=stream.responses, done=False)
        elif kind == "message_delta" and stream.raw is not None:
            stream.delta(event.get("usage") or {})
            sink.response_usage(stream.usage(), response=stream.responses, done=False)
        elif kind == "message_stop" and stream.raw is not None:
            sink.response_usage(stream.usage(), response=stream.responses, done=True)
            stream.raw = None

    @staticmethod
    def _on_system(sink: CallSink, message: SystemMessage) -> None:
        data = message.data or {}
        if message.subtype == "api_retry":   # a transient API error the CLI retries: logged, voids nothing
            sink.api_retry(retry_fields(data))
        if message.subtype == "init":
            if data.get("session_id"):
                sink.thread_id(data["session_id"])
            if data.get("claude_code_version"):
                sink.runtime_version(data["claude_code_version"])
            broken = [s for s in data.get("mcp_servers", []) if s.get("status") != "connected"]
            if broken:
                raise RuntimeError(f"MCP server(s) failed to start in the CLI: {broken}")

    def after_call(self, thread_id: str | None) -> None:
        keep_one(self.setup.session_dir, self.setup.home, thread_id)

    def classify_error(self, exc: BaseException) -> Ending:
        return classify_error(exc)

    async def aclose(self) -> None:
        if self.tmpdir is not None:
            shutil.rmtree(self.tmpdir, ignore_errors=True)
