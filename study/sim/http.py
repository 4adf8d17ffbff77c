"""The simulator's HTTP side: what an answer is (``Answer``) and the request handler that parses a
``POST /v1/messages`` or ``POST /v1/responses``, asks the ``SimServer`` and writes the answer as
server-sent events or one JSON body (or cuts the connection, for a scripted fault)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from typing import Any

from .protocol import Reply, Usage, error_json, estimate_tokens, message_json, sse_events
from .responses import error_json as responses_error_json, sse_events as responses_sse_events

#: The model id answers name when the request names none (priced as Claude Haiku 4.5).
DEFAULT_MODEL_ID = "claude-haiku-4-5"


class Answer:
    """What the HTTP handler sends: a reply with usage, an HTTP error, or a dropped connection,
    ``delay_s`` seconds after the request (the handler waits, not the server's lock)."""

    def __init__(self, reply: Reply | None = None, blocks: list[dict] | None = None, usage: Usage | None = None,
                 status: int = 200, error: str | None = None, drop: bool = False,
                 error_type: str | None = None, delay_s: float = 0.0, code: str | None = None):
        self.reply, self.blocks, self.usage = reply, blocks or [], usage
        self.status, self.error, self.drop, self.error_type = status, error, drop, error_type
        self.delay_s = delay_s
        self.code = code      # the Responses API's error code (``insufficient_quota``, ...)



#: The first event of a stream the simulator cuts off (``fault: drop``), on each API.
_MESSAGE_START = b'event: message_start\ndata: {"type": "message_start", "message": {}}\n\n'
_RESPONSE_CREATED = b'event: response.created\ndata: {"type": "response.created", "response": {}}\n\n'


class Handler(BaseHTTPRequestHandler):
    """HTTP adapter: parses the request, asks the SimServer, writes SSE or JSON."""

    sim: Any    # the SimServer this handler answers for (set by ``SimServer.start``)
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # the CLI's traffic is not news
        pass

    def handle(self) -> None:
        """Answer the connection's requests. A client that hangs up before its answer is written (a
        CLI stopped by a signal, a timeout or a test) is not the simulator's error: the answer goes
        nowhere, and no traceback goes to the stderr of whoever shares this process."""
        try:
            super().handle()
        except ConnectionError:  # BrokenPipeError, ConnectionResetError, ConnectionAbortedError
            self.close_connection = True

    def _send_json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send_json(404, error_json(404, f"the simulator serves only POST /v1/messages and POST /v1/responses, "
                                             f"not GET {self.path}"))

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        started = time.perf_counter()
        try:
            body = json.loads(raw or b"{}")
            self.sim.busy_s += time.perf_counter() - started  # reading the request is the model's work too
        except ValueError:
            self._send_json(400, error_json(400, "the request body is not JSON"))
            return
        path = self.path.split("?", 1)[0]
        if path.endswith("/count_tokens"):
            self._send_json(200, {"input_tokens": estimate_tokens([body.get("system"), body.get("messages")])})
            return
        if path.endswith("/v1/responses"):
            self._responses(body, len(raw))
            return
        if not path.endswith("/v1/messages"):
            self._send_json(404, error_json(404, f"unknown endpoint {path}; the simulator serves POST /v1/messages "
                                                 "and POST /v1/responses"))
            return
        answer = self.sim.answer(body, {k.lower(): v for k, v in self.headers.items()}, size=len(raw))
        if answer.delay_s > 0:
            time.sleep(answer.delay_s)
        if answer.drop:
            self._drop(streaming=bool(body.get("stream")))
        elif answer.error is not None:
            self._send_json(answer.status, error_json(answer.status, answer.error, answer.error_type))
        elif body.get("stream"):
            self._stream(body, answer)
        else:
            self._send_json(200, message_json(self.sim._ids.message_id(), body.get("model", DEFAULT_MODEL_ID),
                                              answer.blocks, answer.reply.stop_reason, answer.usage))

    def _responses(self, body: dict, size: int) -> None:
        """A Responses API request (Codex CLI): always streamed."""
        answer = self.sim.answer_responses(body, size=size)
        if answer.delay_s > 0:
            time.sleep(answer.delay_s)
        if answer.drop:
            self._drop(True, first=_RESPONSE_CREATED)
            return
        if answer.error is not None:
            self._send_json(answer.status, responses_error_json(answer.status, answer.error, answer.error_type, answer.code))
            return
        response_id = self.sim._ids.message_id().replace("msg_", "resp_")
        self._send_events(responses_sse_events(response_id, body.get("model", "gpt-5.4-mini"), answer.blocks,
                                               answer.usage))

    def _stream(self, body: dict, answer: Answer) -> None:
        self._send_events(sse_events(self.sim._ids.message_id(), body.get("model", DEFAULT_MODEL_ID),
                                     answer.blocks, answer.reply.stop_reason, answer.usage))

    def _send_events(self, events: Iterable[bytes]) -> None:
        """A streamed answer (either API's server-sent events), then the connection closed."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(event)
        self.wfile.flush()
        self.close_connection = True

    def _drop(self, streaming: bool, first: bytes = _MESSAGE_START) -> None:
        """Cut the connection: in the middle of a streaming answer (after its ``first`` event), or
        before any answer."""
        if streaming:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(first)
            self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
