"""The simulator's Responses API side (Codex CLI's API): the conversation Codex sends read into the
same events as Claude Code's, the replies encoded as Codex reads them, and the server's answers
(main loop, compaction request, faults), checked against the forms Codex CLI 0.169.0 was seen to
send and accept (docs/runtimes.md)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from study.sim import SimServer
from study.sim.conversation import Said, ToolCall, ToolOutcome, UserText
from study.sim.protocol import IdMaker, Reply, ToolUse, Usage
from study.sim.responses import output_items, sse_events, usage_json
from study.sim.responses_conversation import is_compaction_request, read_input, tool_names


def _msg(role: str, text: str) -> dict:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _call(call_id: str, server: str, name: str, args: dict) -> dict:
    return {"type": "function_call", "namespace": f"mcp__{server}", "name": name, "arguments": json.dumps(args),
            "call_id": call_id}


def _ran(call_id: str, *texts: str) -> dict:
    return {"type": "function_call_output", "call_id": call_id,
            "output": [{"type": "input_text", "text": "Wall time: 0.01 seconds\nOutput:"},
                       *({"type": "input_text", "text": t} for t in texts)]}


INPUT = [
    _msg("developer", "You are a coding agent running in the Codex CLI ..."),
    _msg("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
    _msg("user", "Process the batch of 3 accounts, one at a time."),
    _msg("assistant", "Starting."),
    _call("call_1", "sopbench", "investigate_account", {"account_id": "A"}),
    _ran("call_1", '{"account_id": "A", "x": 1}', "REMINDER"),
    _call("call_2", "sopbench", "submit_decision", {"account_id": "A", "action": "No Action"}),
    {"type": "function_call_output", "call_id": "call_2",
     "output": "Tool call blocked by PreToolUse hook: submit_decision is not permitted in S_investigate. "
               "Tool: mcp__sopbench__submit_decision"},
    _call("call_3", "sopbench", "get_account", {"account_id": "Z"}),
    _ran("call_3", "Error: unknown account 'Z'. Give an account_id of the batch."),
    _call("call_4", "fsm", "transition", {"target": "S_decide", "token": "t"}),
    _msg("developer", "The workflow moved to state S_decide."),
    _ran("call_4", "guard failed: investigate the account first"),
    _msg("assistant", "I will stop here."),
    _msg("user", '<hook_prompt hook_run_id="stop:0:/h/hooks.json">2 accounts left; continue with B.</hook_prompt>'),
    _msg("user", "Another language model started to solve this problem and produced a summary of its thinking "
                 "process. ... use the information in this summary to assist with your own analysis:\nSUMMARY"),
]


def test_codexs_input_reads_as_the_same_events_as_claude_codes():
    events = read_input(INPUT)
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["UserText", "Said", "ToolCall", "ToolOutcome", "ToolCall", "ToolOutcome", "ToolCall",
                     "ToolOutcome", "ToolCall", "ToolOutcome", "Said", "UserText", "UserText"]
    first, said, call = events[0], events[1], events[2]
    assert first == UserText("first", "Process the batch of 3 accounts, one at a time.")
    assert said == Said("Starting.", ends_turn=False)                 # a call follows in the same response
    assert isinstance(call, ToolCall) and (call.server, call.tool, call.account) == ("sopbench", "investigate_account", "A")
    ok, denied, error, refused = (e for e in events if isinstance(e, ToolOutcome))
    assert ok.ok and ok.data == {"account_id": "A", "x": 1} and ok.extras == ["REMINDER"]
    assert not denied.ok and denied.text.startswith("submit_decision is not permitted")
    assert not error.ok and error.text.startswith("Error: unknown account")
    assert not refused.ok and refused.call.server == "fsm"            # an FSM tool's refusal is not a JSON object
    assert refused.hook_context == ["The workflow moved to state S_decide."]
    assert events[10] == Said("I will stop here.", ends_turn=True)
    assert events[11] == UserText("stop_block", "2 accounts left; continue with B.")
    assert events[12] == UserText("summary", "SUMMARY")


def test_a_reply_is_encoded_as_codex_dispatches_it():
    reply = Reply(text="Next.", tool_uses=[ToolUse("mcp__sopbench__submit_decision", {"account_id": "A"})])
    items = output_items(reply, IdMaker("001"), 7)
    assert items[0]["type"] == "message" and items[0]["content"][0]["text"] == "Next."
    call = items[1]
    assert (call["type"], call["namespace"], call["name"]) == ("function_call", "mcp__sopbench", "submit_decision")
    assert json.loads(call["arguments"]) == {"account_id": "A"} and call["call_id"].startswith("call_sim")
    events = [json.loads(chunk.decode().split("data: ", 1)[1]) for chunk in sse_events("resp_x", "m", items, Usage(10, 5, 90))]
    assert [e["type"] for e in events][0] == "response.created" and events[-1]["type"] == "response.completed"
    done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert done == items
    # the Responses API counts the cached part inside input_tokens
    assert events[-1]["response"]["usage"] == usage_json(Usage(10, 5, 90)) == {
        "input_tokens": 100, "input_tokens_details": {"cached_tokens": 90}, "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 105}


def test_namespaced_tools_are_listed_by_their_full_names_and_the_compaction_request_is_known():
    body = {"tools": [{"type": "namespace", "name": "mcp__sopbench", "tools": [{"type": "function", "name": "list_batch"}]},
                      {"type": "function", "name": "list_mcp_resources"}], "input": INPUT}
    assert tool_names(body) == {"mcp__sopbench__list_batch", "list_mcp_resources"}
    assert not is_compaction_request(body)
    compact = {"input": [*INPUT, _msg("user", "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff "
                                              "summary for another LLM that will resume the task.")]}
    assert is_compaction_request(compact)


def _post(url: str, body: dict) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_the_server_answers_codexs_requests(tmp_path):
    prompt = [_msg("user", "Process the batch of 2 accounts, one at a time.")]
    tools = [{"type": "namespace", "name": "mcp__sopbench", "tools": [{"type": "function", "name": "list_batch"}]}]
    with SimServer("oracle", 2, tmp_path / "truth.jsonl", api="openai-responses") as sim:
        url = sim.base_url_for("openai-responses") + "/responses"
        status, data = _post(url, {"model": "gpt-5.4-mini", "stream": True, "input": prompt, "tools": tools})
        assert status == 200
        events = [json.loads(line[6:]) for line in data.decode().splitlines() if line.startswith("data: ")]
        calls = [e["item"] for e in events if e["type"] == "response.output_item.done" and e["item"]["type"] == "function_call"]
        assert [(c["namespace"], c["name"]) for c in calls] == [("mcp__sopbench", "list_batch")]
        status, data = _post(url, {"model": "gpt-5.4-mini", "stream": True, "input": [
            *prompt, _msg("user", "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary.")]})
        texts = [e["item"]["content"][0]["text"] for line in data.decode().splitlines() if line.startswith("data: ")
                 for e in [json.loads(line[6:])] if e["type"] == "response.output_item.done"]
        assert status == 200 and "<sim-memory>" in texts[0]
    with SimServer("oracle", 2, None, api="openai-responses", fault="quota") as sim:
        status, data = _post(sim.base_url_for("openai-responses") + "/responses",
                             {"stream": True, "input": prompt, "tools": tools})
        assert status == 429 and json.loads(data)["error"]["code"] == "insufficient_quota"
