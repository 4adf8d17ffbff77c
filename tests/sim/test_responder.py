"""A Responder policy (another family's scripted model) reads every request but a compaction
itself, on both APIs; the server only puts its reply on the wire."""

from __future__ import annotations

import json

from study.sim import SimServer
from study.sim.protocol import Reply, ToolUse

from .test_server import post, sse_data


class Echo:
    """Answers with a tool call naming what it was sent, and records every request."""

    def __init__(self):
        self.seen: list[tuple[str, dict]] = []

    def respond(self, api, body):
        self.seen.append((api, body))
        return Reply(text="said", tool_uses=[ToolUse("mcp__tau2__get_details", {"n": len(self.seen)})])


def test_a_side_request_without_tools_reaches_a_responder_too():
    # tau2's customer (LiteLLM, no beta header, no tools in airline and retail) is such a request
    policy = Echo()
    with SimServer(policy, 1, None) as sim:
        status, _, text = post(sim, {"model": "m", "messages": [{"role": "user", "content": "hello"}]})
    assert status == 200
    body = json.loads(text)
    assert [b["type"] for b in body["content"]] == ["text", "tool_use"]
    assert body["content"][1]["input"] == {"n": 1}
    assert policy.seen == [("anthropic-messages", {"model": "m", "messages": [{"role": "user", "content": "hello"}]})]


def test_a_responses_request_gets_the_responders_call_in_its_namespace():
    policy = Echo()
    with SimServer(policy, 1, None, api="openai-responses") as sim:
        status, _, text = post(sim, {"model": "gpt-5.4-mini", "stream": True,
                                     "input": [{"type": "message", "role": "user", "content": [
                                         {"type": "input_text", "text": "hi"}]}]}, path="/v1/responses")
    assert status == 200
    items = [e["item"] for e in sse_data(text) if e.get("type") == "response.output_item.done"]
    call = next(i for i in items if i["type"] == "function_call")
    assert (call["namespace"], call["name"], json.loads(call["arguments"])) == ("mcp__tau2", "get_details", {"n": 1})
    assert policy.seen[0][0] == "openai-responses"


def test_a_compaction_request_is_still_the_servers():
    policy = Echo()
    with SimServer(policy, 1, None) as sim:
        status, _, text = post(sim, {"model": "m", "messages": [{"role": "user", "content": [
            {"type": "text", "text": "Your task is to create a detailed summary of the conversation so far"}]}]})
    assert status == 200 and "<summary>" in json.loads(text)["content"][0]["text"]
    assert policy.seen == []
