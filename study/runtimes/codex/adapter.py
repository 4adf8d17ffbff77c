"""Codex CLI as the runtime of a session: the pinned binary, driven through ``codex exec --json``.

``study.runtimes.runtime("codex").open(setup)`` makes one session's adapter (``CodexSession``):

- a fresh ``CODEX_HOME`` inside the session's HOME holds only the study's ``config.toml`` and
  ``hooks.json`` (``config.py``): the model provider at the session's endpoint (the simulator's
  for ``sim:`` models, with Codex's context window set to the simulator's), built-in tools off,
  the SOP-Bench and FSM tools as MCP servers, the hooks PreToolUse, PostToolUse, Stop and
  PreCompact; each MCP server and each hook is ``relay.py``, which carries its bytes to this
  runner's socket (``bridge_server.py``), where the session's ``SessionBridge`` and the same MCP
  servers as Claude Code's answer: the FSM runtime owns the state, the hooks decide nothing;
- ``call`` runs ``codex exec --json`` (a resume: ``codex exec resume <thread id>``) through the
  runner's launcher (own process group, dies with the runner), the prompt as its argument and
  stdin closed; it reads the ``--json`` stream (the thread id, the model's text, retried API
  errors, the failed turn) and follows the rollout file Codex writes (``study.transcripts.codex``)
  for each model response's usage (``token_usage_record``), which the runner prices as it comes;
  Codex reports no cost, so the priced usage is the session's cost (``reports_cost``). Codex has
  no limit of its own on model responses per call: the adapter stops the CLI at ``limits.turns``;
- the bridge is told what Codex does not do (``cli_caps_stop_blocks``, ``failures_reach_post_hook``);
- ``classify_error`` (``errors.py``) decides how a failed call ends the session; ``after_call``
  keeps the rollout once as ``transcript.jsonl`` (a second name of the same file: Codex resumes
  only from its rollout's own path, and appends to it);
- once the call has ended, no relay of it is left: hook commands run in sessions of their own
  (Codex does not stop them), so the adapter stops every relay whose process group its socket saw;
- a workspace session (Codex's own tools on, in its ``workspace-write`` sandbox) gives Codex a
  ``TMPDIR`` inside its home (``study.runtimes.sandbox.CODEX_TMPDIR``: Codex refuses to make the
  link its sandbox helper runs from under its temporary folder, so a home under /tmp would fail
  every command), tries the sandbox before the first call (``codex sandbox -- true``: a sandbox
  that cannot start voids the session in one line, ``SandboxUnavailable``), and tells the bridge
  each command's exit status as the rollout records it (``RolloutFollower.exit_code``) and how to
  probe the sandbox again when a command's output looks like its failure;
- Codex CLI 0.169.0 exits without checkpointing its SQLite databases (``state_5.sqlite``,
  ``thread_history_1.sqlite``), leaving some 8 MB of write-ahead log in even a short session's
  folder: once the session ends, the adapter checkpoints them (``checkpoint_databases``: every
  page kept, the log folded into its database).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import sys
from pathlib import Path
from typing import Any

from study.fsm.mcp_server import build_fsm_server
from study.runtimes.base import CallSink, Ending, SessionSetup, Usage
from study.runtimes.launcher import agent_path, process_alive, stop_process_group, write_launcher
from study.runtimes.sandbox import CODEX_TMPDIR, SandboxUnavailable, codex_problem
from study.tooling import build_server
from study.transcripts.codex import RolloutFollower, usage_of
from study.transcripts.kept import link_one

from .config import HOOK_EVENTS, hooks_json, recorded, session_config, workspace_config, write_home
from .pin import binary_env, binary_path, installed_version, problem as pin_problem
from .bridge_server import BridgeServer
from .errors import CodexFailed, TurnsLimit, classify_error

SOPBENCH_SERVER = "sopbench"
FSM_SERVER = "fsm"
#: The environment variable the session's key is given to Codex in (the provider's ``env_key``).
KEY_ENV = "STUDY_CODEX_API_KEY"
#: The longest prompt passed as an argument (Linux limits one argument to 128 KiB).
MAX_PROMPT_BYTES = 120_000
#: Seconds between two reads of the growing rollout (the resolution of the spending cap and of the
#: turns limit: a read of what was appended costs microseconds).
FOLLOW_S = 0.05
#: Seconds a stopped CLI is given for asyncio to see its exit and the end of its stdout.
SETTLE_S = 5.0
#: What Codex's retry notices look like in its ``--json`` stream.
_RECONNECTING = "Reconnecting..."
_RELAY = Path(__file__).resolve().parent / "relay.py"


def _relay_command(*args: str) -> list[str]:
    return [sys.executable, "-I", "-S", str(_RELAY), *args]


def _shell(argv: list[str]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


class CodexSession:
    """One session on the pinned Codex CLI (see the module docstring)."""

    reports_cost = False   # Codex CLI reports token usage, never a cost: the runner prices it

    def __init__(self, setup: SessionSetup):
        self.setup = setup
        prepared = setup.prepared
        problem = pin_problem()
        if problem is not None:
            raise RuntimeError(problem)
        binary = binary_path()
        assert binary is not None
        self.cli_path: Path = write_launcher(setup.home / ".study", binary)
        self.codex_home = setup.home / ".codex"
        bridge = setup.hooks
        bridge.cli_caps_stop_blocks = False
        bridge.failures_reach_post_hook = False
        self.servers: dict[str, Any] = {name: build_server(provider, name=name, after_call=bridge.after_call_for(name))
                                        for name, provider in setup.task_work.servers.items()}
        if setup.fsm is not None and setup.fsm_tools:
            self.servers[FSM_SERVER] = build_fsm_server(setup.fsm, name=FSM_SERVER, proposals=setup.proposals,
                                                        on_event=bridge.on_fsm_event, after_call=bridge.after_fsm_call)
        self.hook_errors: list[str] = []
        self.socket = BridgeServer(
            {"PreToolUse": bridge.pre_tool_use, "PostToolUse": bridge.post_tool_use, "Stop": bridge.on_stop,
             "PreCompact": bridge.pre_compact},
            self.servers, on_error=self.hook_errors.append)
        sock = str(self.socket.path)
        context_window = setup.sim.context_window if setup.sim is not None else None
        servers = {name: (sys.executable, _relay_command("mcp", name, sock)[1:]) for name in self.servers}
        work = setup.task_work
        hook_commands = {event: _shell(_relay_command("hook", event, sock)) for event in HOOK_EVENTS}
        #: the command prefix that gives Codex the work's own shell (``Work.command_shell``), or none
        self.prefix: list[str] = []
        # Codex runs its hook commands with that shell too: they must run on the host
        shell = work.command_shell([setup.home / "tmp"], tuple(hook_commands.values())) \
            if getattr(work, "command_shell", None) else None
        if shell is not None:
            from .login_shell import prefix as login_prefix, problem as login_problem

            problem = login_problem()
            if problem is not None:
                raise RuntimeError(problem)
            self.prefix = login_prefix(Path(shell), setup.home / ".study" / "etc")
        if work.builtin_tools:   # a workspace: Codex's own tools in its workspace-write sandbox
            self.config = workspace_config(
                model=prepared.model.model_id, base_url=setup.base_url, env_key=KEY_ENV, workspace=setup.work,
                servers=servers, developer_instructions=setup.system_append, context_window=context_window,
                model_settings=prepared.model.settings, writable=getattr(work, "writable", ()),
                confined=bool(getattr(work, "commands_confined", False)))
        else:
            self.config = session_config(
                model=prepared.model.model_id, base_url=setup.base_url, env_key=KEY_ENV, work=setup.work,
                servers=servers, developer_instructions=setup.system_append, context_window=context_window,
                model_settings=prepared.model.settings)
        if shell is not None:   # its shell snapshot would be written and read on two sides of the container
            self.config["features"]["shell_snapshot"] = False
        hooks = hooks_json(hook_commands)
        write_home(self.codex_home, self.config, hooks)
        self.env = {"HOME": str(setup.home), "CODEX_HOME": str(self.codex_home), KEY_ENV: prepared.model.api_key,
                    "SHELL": "/bin/sh", **binary_env(), **prepared.spec.cli_env}
        #: a workspace session whose commands run in Codex's sandbox (not a work that confines them in
        #: its own shell): Codex's TMPDIR out of its home's way, the sandbox tried before the first call
        self.sandboxed = bool(work.builtin_tools) and not getattr(work, "commands_confined", False)
        self._sandbox_checked = False
        self.follower: RolloutFollower | None = None
        if work.builtin_tools:   # the agent's commands find this Python (and its packages) first
            self.env["PATH"] = agent_path()
            tmpdir = self.codex_home / CODEX_TMPDIR
            tmpdir.mkdir(exist_ok=True)
            self.env["TMPDIR"] = str(tmpdir)
            bridge.command_exit = self.exit_code
            if self.sandboxed:
                bridge.sandbox_probe = self.sandbox_problem
        if shell is not None:   # the work's shell and the CLI share a temporary folder of the session's
            self.env["TMPDIR"] = str(setup.home / "tmp")
        self.settings: dict[str, Any] = {"config": recorded(self.config),
                                         **{k: v for k, v in prepared.spec.cli_env.items()}}
        if shell is not None:   # recorded: the agent's commands ran in the work's own shell
            self.settings["command_shell"] = "the work's (Work.command_shell)"
        self.inherited_env = sorted(k for k in os.environ if k.startswith(("CODEX", "OPENAI", "RUST_LOG"))
                                    and k not in self.env)
        self.turn_limit = prepared.limits.turns
        self.process: asyncio.subprocess.Process | None = None
        self.thread: str | None = None
        self._started = False

    @property
    def pid(self) -> int | None:
        process = self.process
        if process is None or process.returncode is not None:
            return None
        return process.pid

    def _argv(self, prompt: str, resume_id: str | None) -> list[str]:
        flags = ["--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--strict-config"]
        if resume_id is not None:
            return [*self.prefix, str(self.cli_path), "exec", "resume", resume_id, *flags, prompt]
        return [*self.prefix, str(self.cli_path), "exec", *flags, prompt]

    def sandbox_problem(self) -> str | None:
        """Why Codex cannot run a command in this session's sandbox (one line), or None."""
        binary = binary_path()
        return codex_problem(binary, self.env, self.setup.work) if binary is not None else pin_problem()

    def exit_code(self, call_id: str) -> int | None:
        """The exit status of the agent's command ``call_id`` as the rollout records it (None: not
        recorded, or no rollout yet)."""
        return self.follower.exit_code(call_id) if self.follower is not None else None

    async def call(self, prompt: str, resume_id: str | None, sink: CallSink) -> None:
        if self.sandboxed and not self._sandbox_checked:   # never a session of commands that all fail
            problem = await asyncio.to_thread(self.sandbox_problem)
            if problem is not None:
                raise SandboxUnavailable(problem)
            self._sandbox_checked = True
        if len(prompt.encode()) > MAX_PROMPT_BYTES:
            raise RuntimeError(f"the prompt has {len(prompt.encode())} bytes; Codex CLI takes it as one argument of at "
                               f"most {MAX_PROMPT_BYTES} bytes")
        if not self._started:
            await self.socket.start()
            self._started = True
        self.hook_errors.clear()
        stderr_path = self.setup.session_dir / "codex_stderr.txt"
        with open(stderr_path, "ab") as stderr:
            self.process = await asyncio.create_subprocess_exec(
                *self._argv(prompt, resume_id), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=stderr, cwd=str(self.setup.work), env=self.env, limit=64 * 1024 * 1024)
        follower: RolloutFollower | None = None
        responses = 0
        failure: str | None = None
        turns_limit = False

        def outputs(found: list[tuple[str, str]]) -> None:
            for call_id, text in found:   # a built-in call no PostToolUse reports (a heredoc patch)
                self.setup.hooks.builtin_output(call_id, text)

        def usage(records: list[dict]) -> None:
            nonlocal responses, turns_limit
            for record in records:
                responses += 1
                sink.response_usage(usage_of(record.get("usage")), response=record.get("response_id") or responses,
                                    done=True)
                if responses >= self.turn_limit and not turns_limit:
                    turns_limit = True

        async def follow() -> None:
            while True:
                if follower is not None:
                    usage(follower.read_new())
                    outputs(follower.take_outputs())
                if turns_limit:     # stopped at once, not at Codex's next line on stdout (which may be
                    assert self.process is not None     # several responses later)
                    await stop_process_group(self.process.pid)
                    return
                await asyncio.sleep(FOLLOW_S)

        watcher: asyncio.Task | None = None
        try:
            assert self.process.stdout is not None
            async for raw in self.process.stdout:
                event = _parse(raw)
                kind = event.get("type")
                if kind == "thread.started" and event.get("thread_id"):
                    self.thread = str(event["thread_id"])
                    sink.thread_id(self.thread)
                    follower = self.follower = RolloutFollower.for_thread(self.codex_home, self.thread)
                    if watcher is None:
                        watcher = asyncio.create_task(follow())
                elif kind == "item.completed":
                    item = event.get("item") or {}
                    if item.get("type") == "agent_message" and str(item.get("text", "")).strip():
                        sink.assistant_text(str(item["text"]))
                elif kind == "error" and str(event.get("message", "")).startswith(_RECONNECTING):
                    sink.api_retry(_retry_fields(str(event["message"])))
                elif kind == "turn.failed":
                    failure = str((event.get("error") or {}).get("message") or "the turn failed")
                elif kind == "error":
                    failure = failure or str(event.get("message") or "")
                if turns_limit or self.hook_errors:
                    break
            if turns_limit or self.hook_errors:
                await stop_process_group(self.process.pid)
            returncode = await self.process.wait()
        finally:
            if watcher is not None:
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher
            await self._stop_relays()
            await self._settle()
        if follower is not None:
            usage(follower.read_new())
            outputs(follower.take_outputs())
        if self.sandboxed:    # the commands still waiting for their exit status are logged now
            self.setup.hooks.flush_commands()
        sink.runtime_version(installed_version() or "")
        sink.call_result(subtype="success" if returncode == 0 else "error", is_error=returncode != 0, turns=responses,
                         reported_cost_usd=None)
        if self.hook_errors:
            raise RuntimeError(f"a Codex hook or MCP server of the runner failed: {self.hook_errors[0]}")
        if turns_limit:
            raise TurnsLimit(f"{responses} model responses in one call (limits.yaml: turns {self.turn_limit})")
        if returncode != 0:
            raise CodexFailed(failure or _stderr_tail(stderr_path) or f"codex exec exited {returncode}", returncode)

    async def _settle(self) -> None:
        """Once the CLI has ended (the runner stops it before it cancels a call, for a limit or a
        signal), let asyncio see its exit and the end of its stdout, for at most ``SETTLE_S`` each.
        Else the runner's event loop may close first, and the process's transport, collected at the
        runner's exit, prints "Event loop is closed" with a traceback (a SIGQUIT to the runner's
        group, seen once in a full run). A CLI still running is not waited for."""
        process = self.process
        if process is None or process.stdout is None or process_alive(process.pid):
            return
        with contextlib.suppress(asyncio.TimeoutError, ValueError, OSError):
            await asyncio.wait_for(process.wait(), SETTLE_S)
            await asyncio.wait_for(process.stdout.read(), SETTLE_S)   # what is left, to its end

    async def _stop_relays(self) -> None:
        """Hook commands run in sessions of their own, which Codex does not stop: stop every relay
        still connected (their process groups, as the socket saw them), and every relay of this
        socket not yet connected (by its command line)."""
        for group in self.socket.live_groups():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        for pid in self.socket.relay_pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def after_call(self, thread_id: str | None) -> None:
        if thread_id:
            found = sorted(self.codex_home.glob(f"sessions/*/*/*/rollout-*-{thread_id}.jsonl"))
            link_one(self.setup.session_dir, found[0] if found else None)

    def classify_error(self, exc: BaseException) -> Ending:
        return classify_error(exc)

    async def aclose(self) -> None:
        await self._stop_relays()
        await self._settle()
        await self.socket.aclose()
        if self.pid is None:          # no Codex process left that holds the databases open
            checkpoint_databases(self.codex_home)


def checkpoint_databases(codex_home: Path) -> list[str]:
    """Fold each SQLite write-ahead log Codex left in ``codex_home`` into its database (``PRAGMA
    wal_checkpoint(TRUNCATE)``; closing the last connection removes the log), and say which could
    not be (left as they were: nothing is lost either way)."""
    left: list[str] = []
    for wal in sorted(codex_home.glob("*.sqlite-wal")):
        database = wal.with_name(wal.name[: -len("-wal")])
        if wal.is_symlink() or not database.is_file() or database.is_symlink():
            continue
        try:
            with contextlib.closing(sqlite3.connect(database, timeout=1)) as db:
                busy, _log, _moved = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            if busy:
                left.append(f"{database.name}: busy")
        except sqlite3.Error as exc:
            left.append(f"{database.name}: {exc}")
    return left


def _parse(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _retry_fields(message: str) -> dict[str, Any]:
    """``Reconnecting... 2/5 (exceeded retry limit, last status: 429 Too Many Requests)`` as the
    fields of an ``api_retry`` event (``call`` is the runner's)."""
    import re

    attempt = re.search(r"(\d+)/(\d+)", message)
    status = re.search(r"status:? (\d{3})", message)
    return {"status": int(status.group(1)) if status else None, "error": message,
            "attempt": int(attempt.group(1)) if attempt else 0,
            "max_retries": int(attempt.group(2)) if attempt else None, "wait_s": None}


def _stderr_tail(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-3:])


_ = Usage  # the usage the follower reads is study.runtimes.base.Usage
