"""The runner's end of a Codex session's relays: one local socket that answers the hook commands
with the session's ``SessionBridge`` and serves the study's MCP servers (``relay.py`` is the other
end).

A connection starts with one JSON line naming what it is:

- ``{"hook": "PreToolUse"}`` (or ``PostToolUse``, ``Stop``, ``PreCompact``), then the hook input
  Codex gave the command, up to the end of the stream: the bridge's hook of that event answers
  (the same coroutines Claude Code's SDK hooks call) and ``0`` and its output JSON is written back
  (only ``0`` when it admits the call or lets the turn end); a failure is written back as ``1``
  and the error, which the relay turns into exit code 2: Codex denies or blocks on it instead of
  failing open, and ``on_error`` tells the runner, which ends the session;
- ``{"mcp": "sopbench"}`` (or ``fsm``): the connection then carries that MCP server's stdio
  stream (one JSON-RPC message per line), served by the same ``mcp`` low-level server the stdio
  and in-process servers are.

The socket lies in a private folder (mode 0700) of its own, so only this user's processes reach
it, and its path stays short (a Unix socket's path is limited to about 100 bytes; session folders
can be deeper): ``study-codex-<pid>-<random>`` in the temporary folder, removed when the session
ends. A runner killed outright (SIGKILL) cannot remove its folder: every new session first removes
the stale ones (``sweep_stale``), never a live session's. A failing hook is never silent: the
bridge's exception is logged by the runner and the relay exits 2.

A connection's task ends quietly when the session ends (a signal, the call's end) while it is
open: it is cancelled and returns, so asyncio never reports the cancellation as an error (it
printed a traceback of ``CancelledError`` for each open connection).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import traceback
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import mcp_types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

#: The socket folders' names in the temporary folder: ``study-codex-<pid>-<random>``.
PREFIX = "study-codex-"
#: A socket folder younger than this is never swept (its session may be binding its socket now).
STALE_AFTER_S = 60.0
#: The most bytes one hook input may have (a tool's whole result can be in it).
MAX_HOOK_INPUT = 64 * 1024 * 1024
#: The longest line of an MCP stream.
MAX_LINE = 64 * 1024 * 1024

Hook = Callable[[dict, Any, Any], Awaitable[dict]]


class BridgeServer:
    """One session's socket: ``hooks`` maps a Codex hook event to the bridge coroutine answering
    it; ``servers`` maps an MCP server name to its low-level ``mcp`` server. ``on_error`` is told
    every exception a hook or server raised (the runner logs it and ends the session)."""

    def __init__(self, hooks: dict[str, Hook], servers: dict[str, Any], on_error: Callable[[str], None]):
        self.hooks = hooks
        self.servers = servers
        self.on_error = on_error
        sweep_stale()
        self.folder = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
        os.chmod(self.folder, 0o700)
        self.path = self.folder / "s"
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task] = set()
        self._groups: dict[asyncio.Task, int] = {}   # a connection's relay process group

    async def start(self) -> "BridgeServer":
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path), limit=MAX_LINE)
        return self

    def live_groups(self) -> list[int]:
        """The process groups of the relays connected now (never this process's own group)."""
        own = os.getpgid(0)
        return sorted({g for g in self._groups.values() if g != own})

    def relay_pids(self) -> list[int]:
        """Every relay process started for this socket, connected or not: those whose command line
        ends with this socket's path (read from Linux's /proc; [] where there is none). A hook relay
        Codex started in a session of its own just before it was stopped has not connected yet, so
        ``live_groups`` cannot name it."""
        target, pids = os.fsencode(self.path), []
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                argv = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            except OSError:          # ended meanwhile, or not ours to read
                continue
            if len(argv) >= 3 and argv[-1] == target and any(a.endswith(b"relay.py") for a in argv[:-1]):
                pids.append(int(entry.name))
        return sorted(pid for pid in pids if pid != os.getpid())

    async def aclose(self) -> None:
        try:
            if self._server is not None:
                self._server.close()
                with contextlib.suppress(Exception):
                    await self._server.wait_closed()
                self._server = None
            # a connection accepted as the server closed starts its task a moment later: cancel and await
            # until none is left, so no connection's callback outlives the event loop (asyncio would
            # print "Exception in callback ... connection_made" when the runner's loop closes)
            for _round in range(20):
                pending = list(self._tasks)
                for task in pending:
                    task.cancel()
                for task in pending:
                    with contextlib.suppress(BaseException):
                        await task
                await asyncio.sleep(0)
                if not self._tasks:
                    break
        finally:    # even when the closing itself is cancelled (the loop's end after a signal)
            shutil.rmtree(self.folder, ignore_errors=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        hook = False
        try:
            header = json.loads(await reader.readline())
            if task is not None and isinstance(header.get("pgid"), int) and header["pgid"] > 1:
                self._groups[task] = header["pgid"]
            if "hook" in header:
                hook = True
                await self._hook(str(header["hook"]), reader, writer)
            elif "mcp" in header:
                await self._mcp(str(header["mcp"]), reader, writer)
        except asyncio.CancelledError:
            # the session ended while the connection was open (``aclose``, or the event loop's end
            # after a signal): the connection ends here. Returning (not raising) keeps asyncio's
            # stream callback from reporting the cancelled task as an error with its traceback.
            return
        except Exception as exc:   # a hook or a server failed: the runner must know, the relay exits 2
            self.on_error(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            if hook:
                with contextlib.suppress(Exception):
                    writer.write(b"1" + f"the runner's {type(exc).__name__}: {exc}".encode())
                    await writer.drain()
        finally:
            with contextlib.suppress(Exception):
                writer.close()
            if task is not None:
                self._tasks.discard(task)
                self._groups.pop(task, None)

    async def _hook(self, event: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        data = await reader.read(MAX_HOOK_INPUT + 1)
        if len(data) > MAX_HOOK_INPUT:
            raise ValueError(f"a {event} hook input of over {MAX_HOOK_INPUT} bytes")
        hook = self.hooks.get(event)
        if hook is None:
            raise ValueError(f"no hook for {event!r} (hooks: {', '.join(self.hooks)})")
        if not data.strip():
            # Codex started the hook command and was stopped before it wrote the hook's input (the
            # runner ended the call: its turns limit, a signal): nothing to gate or record, and not
            # the runner's failure; the relay still fails closed (exit 2), should Codex read it
            writer.write(b"1" + f"an empty {event} hook input: Codex stopped before it wrote one".encode())
            await writer.drain()
            return
        hook_input = json.loads(data)
        output = await hook(hook_input, hook_input.get("tool_use_id"), None)
        writer.write(b"0" + (json.dumps(output).encode() if output else b""))
        await writer.drain()

    async def _mcp(self, name: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server = self.servers.get(name)
        if server is None:
            raise ValueError(f"no MCP server {name!r} (servers: {', '.join(self.servers)})")
        read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, write_reader = create_context_streams[SessionMessage](0)

        async def from_codex() -> None:
            async with read_writer:
                while line := await reader.readline():
                    if not line.strip():
                        continue
                    try:
                        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except Exception as exc:
                        await read_writer.send(exc)
                        continue
                    await read_writer.send(SessionMessage(message))

        async def to_codex() -> None:
            async with write_reader:
                async for session_message in write_reader:
                    text = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    writer.write(text.encode() + b"\n")
                    await writer.drain()

        async with anyio.create_task_group() as group:
            group.start_soon(from_codex)
            group.start_soon(to_codex)
            await server.run(read_stream, write_stream, server.create_initialization_options())
            group.cancel_scope.cancel()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _accepts(socket_path: Path) -> bool:
    """Whether a process listens on the Unix socket (a live session's bridge)."""
    import socket

    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(socket_path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def sweep_stale(tmp: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove the socket folders of sessions whose runner is gone (killed outright: SIGKILL), and
    return them. A folder is removed only when all holds: it is this user's, a folder (no link)
    of mode 0700 named ``study-codex-*``, older than ``STALE_AFTER_S``, its runner's pid (in its
    name) is not running, no process listens on its socket, and it holds nothing but that socket.
    Anything else (another user's, a live session's, a folder being made now) is left alone."""
    import stat
    import time

    tmp = Path(tempfile.gettempdir()) if tmp is None else Path(tmp)
    now = time.time() if now is None else now
    removed = []
    try:
        entries = [e for e in os.scandir(tmp) if e.name.startswith(PREFIX)]
    except OSError:
        return removed
    for entry in entries:
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) != 0o700:
            continue
        if now - st.st_mtime < STALE_AFTER_S:
            continue
        pid = entry.name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and _alive(int(pid)):
            continue
        folder = Path(entry.path)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        if set(names) - {"s"}:
            continue
        sock = folder / "s"
        if names and (not stat.S_ISSOCK(os.lstat(sock).st_mode) or _accepts(sock)):
            continue
        with contextlib.suppress(OSError):
            if names:
                os.unlink(sock)
            os.rmdir(folder)
            removed.append(folder)
    return removed
