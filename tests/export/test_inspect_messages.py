"""The Inspect export's messages from hand-written transcripts and logs: how a τ²-bench
conversation's last exchange comes out (issue 49 item 12) and where a PostToolUse hook's note goes
on Codex CLI (item 13). Every expected value is worked out here; no CLI runs."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("inspect_ai", reason="the inspect extra is not installed (requirements-inspect.lock)")

from study.export.inspect_messages import conversation  # noqa: E402
from study.families.tau2 import inspect as tau2_inspect  # noqa: E402

from ..view.test_family_logs import ENDING  # noqa: E402


def _call(n: int, call_id: str, tool: str, args: dict, result: str, response: str) -> dict:
    return {"n": n, "role": "call", "id": call_id, "tool": tool, "args": {"text": json.dumps(args)},
            "result": {"text": result}, "result_n": n + 1, "error": False, "denied": False, "response": response}


def _result_of(events: list[dict], call_id: str) -> str:
    return next(e["result"] for e in events if e.get("call_id") == call_id)


def _said(messages) -> list[tuple[str, str, str | None]]:
    """Each message as (role, its first words, the call it stands for)."""
    return [(m.role, m.text[:12], (m.metadata or {}).get("tool_call_id") or getattr(m, "tool_call_id", None))
            for m in messages]


def test_the_last_exchange_is_the_last_calls_and_follows_the_agents_last_message():
    turns = [{"n": 1, "role": "user", "text": "You serve a customer."},
             _call(2, "c1", "resume_line", {"line_id": "L2"}, _result_of(ENDING, "c1"), "r1"),
             _call(4, "c2", "send_message_to_customer", {"message": "Please restart your phone."},
                   _result_of(ENDING, "c2"), "r2")]
    talk = tau2_inspect.conversation(conversation(turns, "p", "sim/oracle"), ENDING)
    assert _said(talk.messages) == [
        ("user", "You serve a ", None),
        ("assistant", "", None), ("tool", '{"message": ', "c1"),
        ("assistant", "Check your s", "c1"), ("user", "It shows: No", "c1"),
        ("assistant", "Please resta", None),
        ("user", "I did that (", "c2"), ("assistant", "Check your s", "c2"), ("user", "Excellent | ", "c2")]
    last = talk.messages[-1]
    assert (last.metadata["customer"], last.metadata["answers"], last.metadata["conversation_end"]) == (
        True, "controller", "user_stop")
    assert talk.messages[5].metadata["to_customer"] == ["c2"]
