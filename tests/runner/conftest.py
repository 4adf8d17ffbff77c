"""Fixtures for the runner's tests.

``ScriptedModel`` is a tiny Anthropic Messages API on 127.0.0.1 that plays a fixed list of
steps, one per main-loop request, so a test knows exactly what the model does and can inspect
every request the real Claude Code CLI sent (what the model *received*: tool results, denial
reasons, stop-hook feedback, the system prompt). Steps:

- ``("tool", name, input)``: one tool_use block (name without the ``mcp__`` prefix, e.g.
  ``"sopbench__investigate_account"``);
- ``("text", s)``: a text-only answer, which ends the turn;
- ``("error", http_status, error_type, message)``: an API error response;
- ``("sleep", seconds)``: answer after a delay with an end-turn text (for the time limits);
- ``("call", fn)``: ``fn(request_body)`` returns the step, for answers that depend on what the
  model received (``transition_to`` reads the token of the last self_check).

After the last step it keeps ending the turn. Requests that are not main-loop requests (the
title query) get a short text. The study's own simulator (``study.sim``) is the other model the
tests use; this one exists to make single mechanics (errors, limits) exact.
"""

from __future__ import annotations

import itertools
import re
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sopbench_tools.orders import order_for_seed
from sopbench_tools.toolbox import DATA_TOOLS
from study.session_log import REQUIRED_FIELDS, read_events

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
            step = self.steps.pop(0) if self.steps else ("text", "I am done.")
        return step[1](body) if step[0] == "call" else step

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


def last_tool_result_text(body: dict) -> str:
    """The text of the last tool_result the model received."""
    for message in reversed(body["messages"]):
        if message["role"] == "user" and isinstance(message["content"], list):
            for block in reversed(message["content"]):
                if block.get("type") == "tool_result":
                    content = block["content"]
                    return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
    raise AssertionError("no tool result in the conversation")


def transition_to(target: str) -> list[tuple]:
    """self_check for ``target``, then transition with the token it returned."""
    def transition(body: dict) -> tuple:
        token = re.search(r'"token": "([^"]+)"', last_tool_result_text(body)).group(1)
        return fsm_tool("transition", target=target, token=token)
    return [fsm_tool("self_check", target=target), ("call", transition)]


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


def check_well_formed(events: list[dict]) -> None:
    """The log contract: seq 0..n-1 in file order, t and kind on every event, each kind's
    required fields, session_start first and session_end last, a call_end per query() call."""
    assert [e["seq"] for e in events] == list(range(len(events)))
    for e in events:
        assert e["t"].endswith("Z") and e["kind"] in (*REQUIRED_FIELDS, "call_end"), e
        missing = [f for f in REQUIRED_FIELDS.get(e["kind"], ("cost_usd", "session_cost_usd")) if f not in e]
        assert not missing, (e["kind"], missing)
        if e["kind"] == "tool_call":
            assert e["server"] in ("sopbench", "fsm")
            assert ("result" in e) == e["ok"] and ("error" in e) == (not e["ok"]), e
    assert events[0]["kind"] == "session_start" and events[-1]["kind"] == "session_end"
    assert [e["kind"] for e in events].count("session_start") == 1


class Kit:
    """The helpers above plus ``run``, handed to tests as the ``kit`` fixture (with
    --import-mode=importlib a test module cannot import conftest)."""

    ScriptedModel = ScriptedModel
    tool = staticmethod(tool)
    fsm_tool = staticmethod(fsm_tool)
    transition_to = staticmethod(transition_to)
    investigate = staticmethod(investigate)
    record_and_submit = staticmethod(record_and_submit)
    full_account = staticmethod(full_account)
    batch = staticmethod(batch)
    last_tool_result_text = staticmethod(last_tool_result_text)
    check_well_formed = staticmethod(check_well_formed)

    def __init__(self, out_root: Path):
        self.out_root = out_root

    def run(self, condition: str, steps: list[tuple], *, accounts: int = 2, seed: int = 2,
            limits: dict | None = None, cli_env: dict | None = None) -> "Ran":
        """Run one session of ``condition`` on the first ``accounts`` of ``seed`` against a
        ScriptedModel playing ``steps``."""
        from study.runner.session import SessionSpec, run_session

        with ScriptedModel(steps) as model:
            session_dir = run_session(SessionSpec(
                condition=condition, seed=seed, accounts=accounts, model="haiku-4.5", base_url=model.base_url,
                out_root=self.out_root, limit_overrides=limits or {}, cli_env=cli_env or {},
            ))
        return Ran(session_dir, model.requests)


class Ran:
    """A finished session: its folder, events, meta, and every main-loop request the model got."""

    def __init__(self, session_dir: Path, requests: list[dict]):
        self.dir = session_dir
        self.events = read_events(session_dir / "events.jsonl")
        self.meta = json.loads((session_dir / "meta.json").read_text())
        self.requests = requests

    def kinds(self, kind: str) -> list[dict]:
        return [e for e in self.events if e["kind"] == kind]

    @property
    def status(self) -> str:
        return self.meta["status"]


@pytest.fixture
def kit(tmp_path: Path, real_endpoint: None) -> Kit:
    return Kit(tmp_path / "sessions")
