"""Fixtures for the runner's tests.

``ScriptedModel`` is the study's simulator (``study.sim.SimServer``) playing a fixed list of
steps as its policy, one step per main-loop request, so a test knows exactly what the model does
and can inspect every request the real Claude Code CLI sent (what the model *received*: tool
results, denial reasons, stop-hook feedback, the system prompt). Steps:

- ``("tool", name, input)``: one tool_use block (name without the ``mcp__`` prefix, e.g.
  ``"sopbench__investigate_account"``);
- ``("text", s)``: a text-only answer, which ends the turn;
- ``("error", http_status, error_type, message)``: an API error response;
- ``("sleep", seconds)``: answer after a delay with an end-turn text (for the time limits);
- ``("call", fn)``: ``fn(request_body)`` returns the step, for answers that depend on what the
  model received (``transition_to`` reads the token of the last self_check).

After the last step it keeps ending the turn. Every response reports 1,000 input and 50 output
tokens (the spending tests price them). Requests that are not main-loop requests (the title
query) get the simulator's short text, and a compaction request its summary. The simulator's own
policies (``--model sim:<policy>``) are the other model the tests use; the script exists to make
single mechanics (errors, limits) exact.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sopbench_tools.orders import order_for_seed
from sopbench_tools.tool_definitions import DATA_TOOLS
from study.session_io.events import event_problems
from study.session_io.reader import log_events
from study.sim import SimServer
from study.sim.memory import Memory
from study.sim.protocol import ApiError, Reply, ToolUse, Usage

#: What every scripted response reports: $0.00125 at Claude Haiku 4.5 list prices.
SCRIPTED_USAGE = Usage(input_tokens=1000, output_tokens=50)


def scripted_reply(step: tuple) -> Reply:
    """The simulator's reply for one step (not ``call``, which the policy resolves first)."""
    kind = step[0]
    if kind == "tool":
        _, name, args = step
        return Reply(tool_uses=[ToolUse(f"mcp__{name}", args)], usage=SCRIPTED_USAGE)
    if kind == "text":
        return Reply(text=step[1], usage=SCRIPTED_USAGE)
    if kind == "error":
        _, status, error_type, message = step
        return Reply(error=ApiError(status, message, error_type))
    if kind == "sleep":
        return Reply(text="Still thinking.", usage=SCRIPTED_USAGE, delay_s=float(step[1]))
    raise ValueError(f"unknown scripted step {step!r}: use tool, text, error, sleep or call")


class ScriptedModel:
    """A fixed script as the simulator's policy, served by ``SimServer`` (a context manager);
    ``.base_url``, ``.requests`` (every main-loop request body, in order)."""

    def __init__(self, steps: list[tuple]):
        self.steps = list(steps)
        self.requests: list[dict] = []
        self._server = SimServer(self)

    def see_request(self, body: dict) -> None:
        self.requests.append(body)

    def reply(self, memory: Memory, tools: set[str]) -> Reply:
        step = self.steps.pop(0) if self.steps else ("text", "I am done.")
        if step[0] == "call":
            step = step[1](self.requests[-1])
        return scripted_reply(step)

    @property
    def base_url(self) -> str:
        return self._server.base_url

    def __enter__(self) -> "ScriptedModel":
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()


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
        assert e["t"].endswith("Z"), e
        assert not event_problems(e), (e["kind"], event_problems(e))   # the schema's typed definition
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
        self.events = log_events(session_dir / "events.jsonl")
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
