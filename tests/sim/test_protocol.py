"""The wire format: a streamed reply reassembles into exactly the message a client would build."""

import json

from study.sim.protocol import IdMaker, Reply, ToolUse, Usage, content_blocks, error_json, message_json, sse_events


def _parse_sse(chunks):
    """Reassemble a message from SSE bytes the way the Anthropic SDK does."""
    events = []
    for chunk in chunks:
        text = chunk.decode()
        assert text.endswith("\n\n")
        name_line, data_line = text.strip().split("\n")
        assert name_line.startswith("event: ") and data_line.startswith("data: ")
        data = json.loads(data_line[len("data: "):])
        assert data["type"] == name_line[len("event: "):]
        events.append(data)
    message = events[0]["message"]
    blocks, partial = [], {}
    for ev in events[1:]:
        if ev["type"] == "content_block_start":
            blocks.append(dict(ev["content_block"]))
            partial[ev["index"]] = ""
        elif ev["type"] == "content_block_delta":
            delta = ev["delta"]
            if delta["type"] == "text_delta":
                blocks[ev["index"]]["text"] += delta["text"]
            else:
                partial[ev["index"]] += delta["partial_json"]
        elif ev["type"] == "content_block_stop" and blocks[ev["index"]]["type"] == "tool_use":
            blocks[ev["index"]]["input"] = json.loads(partial[ev["index"]])
        elif ev["type"] == "message_delta":
            message["stop_reason"] = ev["delta"]["stop_reason"]
            message["usage"]["output_tokens"] = ev["usage"]["output_tokens"]
    assert events[-1]["type"] == "message_stop"
    message["content"] = blocks
    return message


def test_streamed_reply_reassembles_into_text_and_tool_call():
    ids = IdMaker("t")
    reply = Reply(text="Looking.", tool_uses=[ToolUse("mcp__sopbench__investigate_account", {"account_id": "ACC100001"})])
    blocks = content_blocks(reply, ids)
    usage = Usage(input_tokens=12, output_tokens=7, cache_read_input_tokens=100)
    message = _parse_sse(list(sse_events("msg_1", "claude-haiku-4-5", blocks, reply.stop_reason, usage)))
    assert message["content"] == blocks
    assert message["content"][1]["input"] == {"account_id": "ACC100001"}
    assert message["stop_reason"] == "tool_use"
    assert message["usage"]["input_tokens"] == 12 and message["usage"]["cache_read_input_tokens"] == 100
    assert message["usage"]["output_tokens"] == 7
    assert message_json("msg_1", "claude-haiku-4-5", blocks, "tool_use", usage)["content"] == blocks


def test_text_only_reply_ends_the_turn_and_ids_are_unique():
    ids = IdMaker("t")
    assert Reply(text="Done.").stop_reason == "end_turn"
    uses = [ToolUse("a", {}), ToolUse("b", {})]
    first, second = content_blocks(Reply(tool_uses=uses), ids), content_blocks(Reply(tool_uses=uses), ids)
    all_ids = [b["id"] for b in first + second] + [ids.message_id(), ids.message_id()]
    assert len(set(all_ids)) == len(all_ids)
    assert all(b["id"].startswith("toolu_") for b in first)


def test_error_bodies_name_the_api_error_type():
    assert error_json(429, "quota")["error"] == {"type": "rate_limit_error", "message": "quota"}
    assert error_json(400, "prompt is too long")["error"]["type"] == "invalid_request_error"
    assert error_json(500, "boom")["type"] == "error"
