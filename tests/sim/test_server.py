"""The HTTP server: request kinds, streaming and JSON answers, forced compaction and faults."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request

import pytest

from study.sim import SimServer
from study.sim.faults import ForcedEvents

TOOLS = [{"name": "mcp__sopbench__list_batch", "input_schema": {"type": "object"}}]
MAIN = {"anthropic-beta": "claude-code-20250219"}


def post(sim, body, headers=None, path="/v1/messages?beta=true"):
    request = urllib.request.Request(sim.base_url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("Content-Type"), response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type"), err.read().decode()


def first_request(stream=True):
    return {"model": "claude-haiku-4-5", "stream": stream, "tools": TOOLS,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Process the batch."}]}]}


def sse_data(text):
    return [json.loads(line[len("data: "):]) for line in text.splitlines() if line.startswith("data: ")]


def test_a_main_loop_request_gets_a_streamed_tool_call_with_usage():
    with SimServer("oracle", 1, None) as sim:
        status, ctype, text = post(sim, first_request(), MAIN)
    assert status == 200 and ctype == "text/event-stream"
    events = sse_data(text)
    assert [e["type"] for e in events] == ["message_start", "content_block_start", "content_block_delta",
                                           "content_block_stop", "message_delta", "message_stop"]
    assert events[1]["content_block"]["name"] == "mcp__sopbench__list_batch"
    assert events[4]["delta"]["stop_reason"] == "tool_use"
    usage = events[0]["message"]["usage"]
    assert usage["input_tokens"] > 0 and events[4]["usage"]["output_tokens"] > 0


def test_non_streaming_side_and_compaction_requests():
    with SimServer("oracle", 1, None) as sim:
        status, ctype, text = post(sim, first_request(stream=False), MAIN)
        assert status == 200 and ctype == "application/json"
        assert json.loads(text)["content"][0]["name"] == "mcp__sopbench__list_batch"
        side = {"model": "m", "messages": [{"role": "user", "content": "Write a title"}]}
        assert json.loads(post(sim, side)[2])["content"] == [{"type": "text", "text": "Simulated batch session"}]
        compact = first_request(stream=False)
        compact["messages"][0]["content"].append({"type": "text", "text": "Your task is to create a detailed summary "
                                                  "of the conversation so far"})
        summary = json.loads(post(sim, compact)[2])["content"][0]["text"]
        assert "<summary>" in summary and "<sim-memory>" in summary
        assert (sim.requests, sim.main_requests, sim.summaries) == (3, 1, 1)


def test_bad_requests_get_clear_errors():
    with SimServer("oracle", 1, None) as sim:
        status, _, text = post(sim, first_request(), path="/v1/other")
        assert status == 404 and "POST /v1/messages" in json.loads(text)["error"]["message"]
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(sim.base_url + "/v1/models", timeout=5)
        assert err.value.code == 404
        request = urllib.request.Request(sim.base_url + "/v1/messages", data=b"{not json", method="POST")
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=5)
        assert err.value.code == 400


@pytest.mark.parametrize("fault, status, words", [("http500", 500, "server error"), ("quota", 429, "quota")])
def test_faults_start_at_the_configured_request_and_persist(tmp_path, fault, status, words):
    with SimServer("oracle", 1, tmp_path / "t.jsonl", fault=fault, fault_at=2) as sim:
        assert post(sim, first_request(), MAIN)[0] == 200
        for _ in range(2):  # the CLI's retries fail too
            code, _, text = post(sim, first_request(), MAIN)
            assert code == status and words in json.loads(text)["error"]["message"].lower()
    assert '"fault": "' + fault in (tmp_path / "t.jsonl").read_text()


def test_a_dropped_connection_gives_no_complete_answer():
    with SimServer("oracle", 1, None, fault="drop") as sim:
        try:
            _, _, text = post(sim, first_request(), MAIN)
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException):
            return
    assert "message_stop" not in text


def test_forced_compaction_answers_prompt_too_long_once():
    with SimServer("oracle", 1, None, compact_after=0) as sim:
        code, _, text = post(sim, first_request(), MAIN)
        assert code == 400 and "prompt is too long" in json.loads(text)["error"]["message"]
        assert post(sim, first_request(), MAIN)[0] == 200


def test_usage_mode_reports_a_full_context_and_tells_the_cli_its_window():
    with SimServer("oracle", 1, None, compact_after=0, compact_mode="usage") as sim:
        events = sse_data(post(sim, first_request(), MAIN)[2])
        assert events[0]["message"]["usage"]["input_tokens"] == 190_000
        assert sim.cli_env()["CLAUDE_CODE_AUTO_COMPACT_WINDOW"] == "200000"
        assert sim.cli_env()["ANTHROPIC_BASE_URL"] == sim.base_url


def test_a_prompt_beyond_the_context_window_is_refused_as_too_long():
    with SimServer("oracle", 1, None, context_window=10) as sim:
        code, _, text = post(sim, first_request(), MAIN)
    assert code == 400 and "prompt is too long" in text


def test_bad_options_are_refused_with_the_valid_choices():
    with pytest.raises(ValueError, match="http500"):
        ForcedEvents(fault="boom")
    with pytest.raises(ValueError, match="http400"):
        ForcedEvents(compact_mode="sometimes")
    with pytest.raises(ValueError, match="unknown simulator policy 'genius'.*oracle"):
        SimServer("genius")
    with pytest.raises(RuntimeError, match="not running"):
        SimServer("oracle").base_url


class _Script:
    """A policy object (not one of POLICIES): sees each request, answers from a list."""

    def __init__(self, replies):
        self.replies, self.seen = list(replies), []

    def see_request(self, body):
        self.seen.append(body)

    def reply(self, memory, tools):
        return self.replies.pop(0)


def test_a_policy_object_sees_the_request_and_can_set_usage_a_delay_or_an_api_error():
    import threading
    import time

    from study.sim.protocol import ApiError, Reply, Usage

    script = _Script([Reply(text="hi", usage=Usage(1000, 50)),
                      Reply(error=ApiError(429, "Your quota is exhausted", "rate_limit_error")),
                      Reply(error=ApiError(500, "boom")),
                      Reply(text="late", delay_s=3.0)])
    with SimServer(script) as sim:
        events = sse_data(post(sim, first_request(), MAIN)[2])
        assert events[0]["message"]["usage"]["input_tokens"] == 1000 and events[4]["usage"]["output_tokens"] == 50
        assert script.seen == [first_request()]
        status, _, text = post(sim, first_request(), MAIN)
        assert status == 429 and json.loads(text)["error"] == {"type": "rate_limit_error", "message": "Your quota is exhausted"}
        status, _, text = post(sim, first_request(), MAIN)
        assert status == 500 and json.loads(text)["error"]["type"] == "api_error"
        # the delayed answer does not hold up other requests (the handler waits, not the server)
        late: list = []
        worker = threading.Thread(target=lambda: late.append(post(sim, first_request(), MAIN)))
        started = time.monotonic()
        worker.start()
        side = {"model": "m", "messages": [{"role": "user", "content": "Write a title"}]}
        while len(script.seen) < 4:  # the delayed request has been answered by the policy
            time.sleep(0.01)
        assert post(sim, side)[0] == 200 and not late
        worker.join()
        assert time.monotonic() - started >= 3.0 and "late" in late[0][2]


def test_a_client_that_hangs_up_before_its_answer_leaves_no_traceback(capfd):
    """A CLI killed mid-request (a signal, a timeout) is normal: the server says nothing on stderr,
    which a test's CliRunner may be capturing in the same process (CI of stop 52), and keeps serving."""
    import socket
    import struct
    import time

    from study.sim.protocol import Reply

    script = _Script([Reply(text="nobody hears this", delay_s=0.5), Reply(text="still here")])
    with SimServer(script) as sim:
        data = json.dumps(first_request()).encode()
        client = socket.create_connection(("127.0.0.1", sim.port))
        client.sendall(b"POST /v1/messages?beta=true HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"anthropic-beta: claude-code-20250219\r\n"
                       + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        while not script.seen:  # the server has read the request and is waiting to answer
            time.sleep(0.01)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # hang up with a reset
        client.close()
        time.sleep(1.0)  # the answer is written to the closed connection
        assert "still here" in post(sim, first_request(), MAIN)[2]
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err and "Error" not in captured.err, captured.err
