"""The relay between Codex CLI's hook commands and MCP servers and the session's runner
(study.runtimes.codex.relay and bridge_server), without Codex: the relay is run as Codex runs it
(a process: hook input on stdin, or an MCP stdio stream) against a real BridgeServer."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sopbench_tools.server import build_server
from sopbench_tools.toolbox import ToolBox
from study.runtimes.codex.bridge_server import BridgeServer

RELAY = Path(__import__("study.runtimes.codex.relay", fromlist=["x"]).__file__)


async def _hook(path: Path, event: str, payload: bytes) -> subprocess.CompletedProcess:
    proc = await asyncio.create_subprocess_exec(sys.executable, "-I", "-S", str(RELAY), "hook", event, str(path),
                                                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate(payload)
    return subprocess.CompletedProcess([], proc.returncode, out, err)


def test_a_hook_is_answered_by_the_runners_coroutine_and_a_failure_fails_closed():
    seen: list[dict] = []
    errors: list[str] = []

    async def deny(hook_input, tool_use_id, context):
        seen.append(hook_input)
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "not in this state"}}

    async def admit(hook_input, tool_use_id, context):
        return {}

    async def broken(hook_input, tool_use_id, context):
        raise RuntimeError("the frames file is unreadable")

    async def main():
        server = await BridgeServer({"PreToolUse": deny, "Stop": admit, "PostToolUse": broken}, {}, errors.append).start()
        try:
            tool = {"hook_event_name": "PreToolUse", "tool_name": "mcp__sopbench__submit_decision",
                    "tool_input": {"account_id": "A"}, "tool_use_id": "call_1"}
            denied = await _hook(server.path, "PreToolUse", json.dumps(tool).encode())
            admitted = await _hook(server.path, "Stop", b'{"stop_hook_active": false}')
            failed = await _hook(server.path, "PostToolUse", b"{}")
            unknown = await _hook(server.path, "UserPromptSubmit", b"{}")
            garbage = await _hook(server.path, "Stop", b"not json")
            # Codex stopped (the runner's turns limit) before it wrote a hook's input: fails closed,
            # and is no failure of the runner's
            empty = await _hook(server.path, "PreToolUse", b"")
        finally:
            await server.aclose()
        gone = await _hook(server.path, "PreToolUse", b"{}")   # the runner has gone
        return denied, admitted, failed, unknown, garbage, gone, empty

    denied, admitted, failed, unknown, garbage, gone, empty = asyncio.run(main())
    assert denied.returncode == 0 and json.loads(denied.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert seen[0]["tool_input"] == {"account_id": "A"}
    assert (admitted.returncode, admitted.stdout) == (0, b"")        # admitted: no output, as Codex expects
    # every failure exits 2, the one exit code Codex turns into a denial or a block (any other fails open)
    for result in (failed, unknown, garbage, gone, empty):
        assert result.returncode == 2 and result.stdout == b"" and result.stderr.startswith(b"study relay: ")
    assert b"frames file is unreadable" in failed.stderr and b"cannot be reached" in gone.stderr
    assert len(errors) == 3 and "frames file is unreadable" in errors[0]


def test_an_mcp_client_speaks_to_the_runners_server_through_the_relay(tmp_path):
    """The official MCP client over the relay's stdio, as Codex connects: it lists the study's
    tools and calls one; the call runs in the runner's ToolBox (after_call sees it)."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    box = ToolBox.for_seed(2, 3, state_dir=tmp_path / "tools")
    calls: list[tuple[str, bool]] = []
    server = build_server(box, after_call=lambda name, args, result: calls.append((name, result.ok)) or ["REMINDER"])

    async def main():
        bridge = await BridgeServer({}, {"sopbench": server}, lambda e: pytest.fail(e)).start()
        try:
            params = StdioServerParameters(command=sys.executable,
                                           args=["-I", "-S", str(RELAY), "mcp", "sopbench", str(bridge.path)])
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                account = box.order[0]
                ok = await session.call_tool("investigate_account", {"account_id": account})
                bad = await session.call_tool("investigate_account", {"account_id": "NOPE"})
                return [t.name for t in tools.tools], ok, bad, account
        finally:
            await bridge.aclose()

    names, ok, bad, account = asyncio.run(main())
    assert "submit_decision" in names and "investigate_account" in names
    assert not ok.is_error and json.loads(ok.content[0].text)["account_id"] == account
    assert [c.text for c in ok.content[1:]] == ["REMINDER"]   # the runner's extra block reaches the client
    assert bad.is_error and bad.content[0].text.startswith("Error: ")
    assert calls == [("investigate_account", True), ("investigate_account", False)]


def _quiet_loop_test(close: str) -> list[dict]:
    """An MCP connection held open while the session ends (``close``: ``aclose``, or the event
    loop's own end, as after a signal); every exception asyncio reported meanwhile."""
    box = ToolBox.for_seed(2, 3)
    server = build_server(box)
    reported: list[dict] = []

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        bridge = await BridgeServer({}, {"sopbench": server}, lambda e: reported.append({"message": e})).start()
        reader, writer = await asyncio.open_unix_connection(str(bridge.path))
        writer.write(b'{"mcp": "sopbench"}\n')
        await writer.drain()
        for _ in range(50):              # the connection's task is running the MCP server
            await asyncio.sleep(0.01)
            if bridge._tasks:
                break
        assert bridge._tasks
        if close == "aclose":
            await bridge.aclose()
        else:                            # the loop ends with the connection open: asyncio cancels its task
            asyncio.get_running_loop().call_later(0.05, lambda: None)
            return bridge
        writer.close()
        return bridge

    bridge = asyncio.run(main())
    import shutil as _shutil

    _shutil.rmtree(bridge.folder, ignore_errors=True)
    return reported


@pytest.mark.parametrize("close", ["aclose", "loop-end"])
def test_a_connection_open_when_the_session_ends_ends_quietly(close):
    """A connection's task cancelled as the session ends (a signal, the call's end) returns: asyncio
    reports no error for it (it printed ~50 lines of CancelledError traceback per connection)."""
    reported = _quiet_loop_test(close)
    assert not [c for c in reported if "CancelledError" in repr(c) or "exception" in c], reported


def test_stale_socket_folders_are_swept_and_live_or_foreign_ones_never(tmp_path):
    """A runner killed outright leaves its socket folder: the next session removes it, and only
    such a one (its runner gone, nobody listening, old enough, this user's, nothing else in it)."""
    import os
    import socket
    import time

    from study.runtimes.codex.bridge_server import PREFIX, STALE_AFTER_S, sweep_stale

    def folder(name: str, *, sock: str | None = "stale", extra: bool = False, mode: int = 0o700) -> Path:
        path = tmp_path / f"{PREFIX}{name}"
        path.mkdir()
        os.chmod(path, mode)
        if sock is not None:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(str(path / "s"))
            if sock == "live":
                s.listen(1)
                keep.append(s)
            else:
                s.close()
        if extra:
            (path / "other").write_text("x", encoding="utf-8")
        return path

    keep: list[socket.socket] = []
    dead = 2**22 + 12345          # no such pid (above pid_max's default)
    stale = folder(f"{dead}-abc")
    old_style = folder("xyz123")
    empty = folder(f"{dead}-empty", sock=None)
    live_socket = folder(f"{dead}-live", sock="live")
    live_pid = folder(f"{os.getpid()}-mine")
    crowded = folder(f"{dead}-crowded", extra=True)
    public = folder(f"{dead}-public", mode=0o755)
    (tmp_path / f"{PREFIX}{dead}-link").symlink_to(stale)
    later = time.time() + STALE_AFTER_S + 1
    assert sweep_stale(tmp_path, now=time.time()) == []            # nothing old enough yet
    removed = sweep_stale(tmp_path, now=later)
    assert sorted(p.name for p in removed) == sorted(p.name for p in (stale, old_style, empty))
    for left in (live_socket, live_pid, crowded, public):
        assert left.is_dir()
    for s in keep:
        s.close()


def test_a_relay_not_yet_connected_is_found_by_its_socket_and_no_other_process_is():
    """A hook relay Codex started just before it was stopped waits for its input and has not
    connected, so its process group is unknown to the socket: the runner finds it by the socket's
    path on its command line (and stops it, adapter ``_stop_relays``); another socket's relay and
    this very process are never named."""
    import os
    import signal

    async def main():
        mine = await BridgeServer({}, {}, lambda e: None).start()
        other = await BridgeServer({}, {}, lambda e: None).start()
        procs = [subprocess.Popen([sys.executable, "-I", "-S", str(RELAY), "hook", "PreToolUse", str(s.path)],
                                  stdin=subprocess.PIPE, start_new_session=True) for s in (mine, other)]
        try:
            for _ in range(100):     # until both have started (exec'd) as relays
                if mine.relay_pids() and other.relay_pids():
                    break
                await asyncio.sleep(0.05)
            found, found_other = mine.relay_pids(), other.relay_pids()
            os.kill(found[0], signal.SIGKILL)
            procs[0].wait(timeout=10)
            return found, found_other, mine.relay_pids(), [proc.pid for proc in procs]
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
            await mine.aclose()
            await other.aclose()

    found, found_other, after, pids = asyncio.run(main())
    assert (found, found_other, after) == ([pids[0]], [pids[1]], [])
