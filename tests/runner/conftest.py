"""Fixtures for the runner's tests.

``ScriptedModel`` is a tiny Anthropic Messages API on 127.0.0.1 that plays a fixed list of
steps, one per main-loop request, so a test knows exactly what the model does and can inspect
every request the real Claude Code CLI sent (what the model *received*: tool results, denial
reasons, stop-hook feedback, the system prompt). Steps:

- ``("tool", name, input)``: one tool_use block (name without the ``mcp__`` prefix, e.g.
  ``"sopbench__investigate_account"``);
- ``("text", s)``: a text-only answer, which ends the turn;
- ``("error", http_status, error_type, message)``: an API error response;
- ``("sleep", seconds)``: answer after a delay with an end-turn text (for the time limits).

After the last step it keeps ending the turn. Requests that are not main-loop requests (the
title query) get a short text. The study's own simulator (``study.sim``) is the other model the
tests use; this one exists to make single mechanics (errors, limits) exact.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sopbench_tools.orders import order_for_seed
from sopbench_tools.toolbox import DATA_TOOLS

MAIN_BETA = "claude-code-20250219"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def _json(self, status: int, obj: dict) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": "no"}})

    def do_POST(self) -> None:
        model: ScriptedModel = self.server.model  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if "count_tokens" in self.path:
            self._json(200, {"input_tokens": 100})
            return
        main = MAIN_BETA in (self.headers.get("anthropic-beta") or "")
        step = model.next_step(body) if main else ("text", "Title")
        if step[0] == "error":
            _, status, etype, message = step
            self._json(status, {"type": "error", "error": {"type": etype, "message": message}})
            return
        if step[0] == "sleep":
            time.sleep(step[1])
            step = ("text", "Still thinking.")
        self._stream(body, step)

    def _stream(self, body: dict, step: tuple) -> None:
        model: ScriptedModel = self.server.model  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

        def event(name: str, obj: dict) -> None:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(obj)}\n\n".encode())

        event("message_start", {"type": "message_start", "message": {
            "id": f"msg_{next(model.ids)}", "type": "message", "role": "assistant", "model": body.get("model"),
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 1000, "output_tokens": 1}}})
        if step[0] == "tool":
            _, name, args = step
            block = {"type": "tool_use", "id": f"toolu_{next(model.ids)}", "name": f"mcp__{name}", "input": {}}
            event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block})
            event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)}})
            stop = "tool_use"
        else:
            event("content_block_start", {"type": "content_block_start", "index": 0,
                                          "content_block": {"type": "text", "text": ""}})
            event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                          "delta": {"type": "text_delta", "text": step[1]}})
            stop = "end_turn"
        event("content_block_stop", {"type": "content_block_stop", "index": 0})
        event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                "usage": {"output_tokens": 50}})
        event("message_stop", {"type": "message_stop"})
        self.wfile.flush()


class ScriptedModel:
    """A scripted Messages API server (a context manager); ``.base_url``, ``.requests``."""

    def __init__(self, steps: list[tuple]):
        self.steps = list(steps)
        self.requests: list[dict] = []
        self.ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.model = self  # type: ignore[attr-defined]
        self.base_url = f"http://127.0.0.1:{self._server.server_port}"

    def next_step(self, body: dict) -> tuple:
        with self._lock:
            self.requests.append(body)
            return self.steps.pop(0) if self.steps else ("text", "I am done.")

    def __enter__(self) -> "ScriptedModel":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def tool(name: str, **args: Any) -> tuple:
    return ("tool", f"sopbench__{name}", args)


def fsm_tool(name: str, **args: Any) -> tuple:
    return ("tool", f"fsm__{name}", args)


def investigate(account: str) -> list[tuple]:
    """The five data calls for one account."""
    return [tool(name, account_id=account) for name in DATA_TOOLS]


def record_and_submit(account: str, action: str = "No Action") -> list[tuple]:
    scores = {"abusive_account_creation": 0, "misleading_ad_copy": 0, "personal_orders": 0,
              "temporal_fraud": 0, "no_violation": 9}
    return [
        tool("record_analysis", account_id=account, step1_scores=scores, step2_violation_type="No Violation",
             step3_risk_severity="NONE", step4_action=action),
        tool("submit_decision", account_id=account, action=action),
    ]


def full_account(account: str) -> list[tuple]:
    return investigate(account) + record_and_submit(account)


def batch(seed: int, n: int) -> list[str]:
    return order_for_seed(seed)[:n]


@pytest.fixture
def real_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """A (dummy) API key for the table's real models, which the tests point at a ScriptedModel."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
