"""Codex CLI's hook commands and MCP servers, relayed to the session's runner over a local socket.

Codex CLI runs hooks as commands and MCP servers as processes of its own; the study's state (the
tools' records and decisions, the FSM frames, the log) lives in the runner. So each hook command
and each MCP server of a Codex session is this small script, which only carries bytes between
Codex and the runner's socket (``bridge_server.py``); every decision is the runner's, made by the
same ``SessionBridge`` and FSM runtime as for Claude Code:

- ``relay.py hook EVENT SOCKET``: sends ``{"hook": EVENT, "pgid": …}`` and the hook input Codex
  wrote on stdin, and reads the runner's answer: ``0`` and the hook output JSON (or nothing),
  printed, exit 0; or ``1`` and what went wrong, on stderr, exit 2. Exit 2 is the one failure
  Codex does not ignore (it denies the call or blocks the stop with the message, where any other
  failure would let the call through): so the relay fails closed, also when the runner cannot be
  reached;
- ``relay.py mcp NAME SOCKET``: sends ``{"mcp": NAME}``, then carries the MCP stdio stream (one
  JSON-RPC message per line) both ways until either side closes.

Standard library only, and run with ``python -I -S``: no site packages, no user environment, so it
starts in tens of milliseconds and cannot be changed by anything installed beside the study.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading

#: The most hook input read from stdin (a PostToolUse input carries the tool's whole result).
MAX_INPUT = 64 * 1024 * 1024
#: Seconds to wait for the runner to accept the connection.
CONNECT_TIMEOUT_S = 30.0


def _connect(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_TIMEOUT_S)
    sock.connect(path)
    sock.settimeout(None)
    return sock


def hook(event: str, path: str) -> int:
    data = sys.stdin.buffer.read(MAX_INPUT + 1)
    if len(data) > MAX_INPUT:
        sys.stderr.write(f"study relay: the {event} hook input is over {MAX_INPUT} bytes\n")
        return 2
    try:
        with _connect(path) as sock:
            sock.sendall(json.dumps({"hook": event, "pgid": os.getpgid(0)}).encode() + b"\n" + data)
            sock.shutdown(socket.SHUT_WR)
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    except OSError as exc:
        sys.stderr.write(f"study relay: the session's runner cannot be reached at {path} ({exc}); "
                         "the session is ending\n")
        return 2
    answer = b"".join(chunks)
    if answer[:1] != b"0":
        sys.stderr.write("study relay: " + (answer[1:].decode("utf-8", "replace") or f"no answer to the {event} hook"))
        return 2
    if answer[1:]:
        sys.stdout.buffer.write(answer[1:])
        sys.stdout.buffer.flush()
    return 0


def mcp(name: str, path: str) -> int:
    try:
        sock = _connect(path)
    except OSError as exc:
        sys.stderr.write(f"study relay: the session's runner cannot be reached at {path} ({exc})\n")
        return 2
    sock.sendall(json.dumps({"mcp": name, "pgid": os.getpgid(0)}).encode() + b"\n")

    def upstream() -> None:
        """Codex -> runner, until Codex closes our stdin."""
        try:
            while chunk := sys.stdin.buffer.read1(65536):
                sock.sendall(chunk)
        except OSError:
            pass
        finally:
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    threading.Thread(target=upstream, daemon=True).start()
    out = sys.stdout.buffer
    try:
        while chunk := sock.recv(65536):
            out.write(chunk)
            out.flush()
    except OSError:
        pass
    return 0


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "hook":
        return hook(argv[1], argv[2])
    if len(argv) == 3 and argv[0] == "mcp":
        return mcp(argv[1], argv[2])
    sys.stderr.write("usage: relay.py hook EVENT SOCKET | relay.py mcp NAME SOCKET\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
