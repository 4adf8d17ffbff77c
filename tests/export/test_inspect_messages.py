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


NOTE = "moved from diagnose to close Now in workflow state close. The conversation has ended."


def _rollout(*items) -> list[bytes]:
    return [json.dumps({"timestamp": f"T{n}", "type": "response_item", "payload": item}).encode()
            for n, item in enumerate(items)]


def _codex_call(call_id: str, name: str, args: dict, output: str) -> list[dict]:
    """A τ² tool call as Codex CLI 0.169.0 writes it, the study's PostToolUse hook's note (a
    developer message) between the call and its output."""
    return [{"type": "function_call", "name": name, "namespace": "mcp__tau2", "arguments": json.dumps(args),
             "call_id": call_id},
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": NOTE}]},
            {"type": "function_call_output", "call_id": call_id,
             "output": [{"type": "input_text", "text": "Wall time: 0.2468 seconds\nOutput:"},
                        {"type": "input_text", "text": output}]}]


def test_a_hook_note_on_codex_is_no_user_message_but_the_metadata_of_the_calls_result():
    from study.transcripts.codex import turns

    found, _ = turns(_rollout(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "You serve a customer."}]},
        *_codex_call("c1", "resume_line", {"line_id": "L2"}, _result_of(ENDING, "c1")),
        *_codex_call("c2", "send_message_to_customer", {"message": "Please restart your phone."},
                     _result_of(ENDING, "c2"))))
    assert [t for t in found if t.get("hook")]            # the reader marks the note as the hook's
    talk = conversation(found, "p", "sim/oracle on Codex CLI")
    assert not [m for m in talk.messages if m.role == "user" and NOTE in m.text]
    results = [m for m in talk.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.metadata.get("hook_context")) for m in results] == [("c1", [NOTE]), ("c2", [NOTE])]
    # the τ² conversation: the note stays with what stands for the message's result
    said = tau2_inspect.conversation(talk, ENDING).messages
    assert not [m for m in said if m.role == "user" and NOTE in m.text]
    assert [m.role for m in said] == ["user", "assistant", "tool", "assistant", "user", "assistant", "user", "assistant",
                                      "user"]
    assert said[-1].metadata["hook_context"] == [NOTE] and said[-1].metadata["conversation_end"] == "user_stop"
