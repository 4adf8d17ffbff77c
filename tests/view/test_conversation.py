"""The transcript read as a conversation: each kind of Claude Code record becomes the turn a
reader expects, a tool result joins its call, and the CLI's bookkeeping records are counted."""

from __future__ import annotations

import json

from study.transcripts.claude_code import TEXT_CAP, turns


def _lines(*records) -> list[bytes]:
    return [r if isinstance(r, bytes) else json.dumps(r).encode() for r in records]


def test_each_record_becomes_its_turn():
    call = {"type": "assistant", "timestamp": "T1", "message": {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "u1", "name": "mcp__sopbench__submit_decision", "input": {"account_id": "A"}},
        {"type": "tool_use", "id": "u2", "name": "mcp__fsm__status", "input": {}}]}}
    denied = {"type": "user", "timestamp": "T2", "permissionDecision": {"decision": "reject", "source": "hook"},
              "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "u1", "is_error": True,
                                                       "content": "PreToolUse hook error: not permitted"}]}}
    result = {"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "u2", "content": [{"type": "text", "text": "x" * (TEXT_CAP + 5)}]}]}}
    items, other = turns(_lines(
        {"type": "queue-operation", "operation": "enqueue"},
        {"type": "user", "timestamp": "T0", "message": {"role": "user", "content": "Process the batch."}},
        call, denied, result,
        {"type": "user", "isMeta": True, "rowSource": "hook", "message": {"role": "user", "content": "Stop hook feedback:\n2 left"}},
        {"type": "attachment", "attachment": {"type": "hook_blocking_error"}},
        {"type": "system", "subtype": "compact_boundary", "compactMetadata": {"trigger": "auto", "preTokens": 190085, "postTokens": 930}},
        {"type": "user", "isCompactSummary": True, "message": {"role": "user", "content": "This session is being continued…"}},
        b"[1, 2]", b"not json"))
    assert other == 4
    assert [(t["n"], t["role"]) for t in items] == [(1, "user"), (2, "thinking"), (2, "assistant"), (2, "call"), (2, "call"),
                                                    (5, "stop-block"), (7, "compaction"), (8, "compaction")]
    submit, status = items[3], items[4]
    assert (submit["tool"], submit["args"]["text"], submit["denied"], submit["error"], submit["result"]["text"], submit["result_n"]) == (
        "submit_decision", '{"account_id":"A"}', True, True, "PreToolUse hook error: not permitted", 3)
    assert (status["tool"], status["denied"], status["result"]["cut"], len(status["result"]["text"])) == (
        "fsm.status", False, TEXT_CAP + 5, TEXT_CAP)
    assert items[6]["text"] == "Conversation compacted (auto, 190,085 → 930 tokens)"
    assert items[7]["summary"] is True and items[7]["text"] == "This session is being continued…"
