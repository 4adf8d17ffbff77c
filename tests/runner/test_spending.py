"""The spending cap: list prices of one response's usage, and the running price of a call as
its stream events arrive (hand-worked values at Claude Haiku 4.5 list prices): Claude Code's raw
API stream events, read by its adapter into the study's usage, priced by the runner's meter."""

from __future__ import annotations

import pytest

from study.protocol.models import load_models, price_usage, resolve_model
from study.runner.spending import CallMeter
from study.runtimes.base import Usage
from study.runtimes.claude_code.adapter import ClaudeCodeSession, _StreamUsage


def _usage(raw: dict) -> Usage:
    stream = _StreamUsage()
    stream.start(raw)
    return stream.usage()


class _Fed:
    """A call's stream events through the Claude Code adapter into a meter (the runner's sink)."""

    def __init__(self, prices):
        self.meter = CallMeter(prices)
        self.stream = _StreamUsage()

    def response_usage(self, usage: Usage, *, response: object, done: bool) -> None:
        self.meter.update(usage, response)
        if done:
            self.meter.finish()

    def on_event(self, event: dict) -> None:
        ClaudeCodeSession._on_stream_event(self, self.stream, event)

    @property
    def usd(self):
        return self.meter.usd

HAIKU = {"input": 1.0, "output": 5.0, "cache_write_5m": 1.25, "cache_write_1h": 2.0, "cache_read": 0.1}


def test_price_of_one_response():
    # 2,000 in * $1 + 300 out * $5 + 1,000 5-minute writes * $1.25 + 10,000 reads * $0.10 = $0.00575
    usage = {"input_tokens": 2000, "output_tokens": 300, "cache_creation_input_tokens": 1000,
             "cache_read_input_tokens": 10000}
    assert price_usage(_usage(usage), HAIKU) == pytest.approx(0.00575)
    # of 1,000 written tokens 400 live one hour: 600 * $1.25 + 400 * $2 = $0.00155 instead of $0.00125
    split = {**usage, "cache_creation": {"ephemeral_5m_input_tokens": 600, "ephemeral_1h_input_tokens": 400}}
    assert price_usage(_usage(split), HAIKU) == pytest.approx(0.00575 + 0.0003)
    assert price_usage(_usage({}), HAIKU) == 0.0
    # the Responses API's usage (Codex CLI): 10,000 in of which 8,000 cached, 500 out, at GPT-5.4 mini's prices
    mini = {"input": 0.75, "output": 4.5, "cache_write_5m": 0.0, "cache_write_1h": 0.0, "cache_read": 0.075}
    assert price_usage(Usage(input=2000, cache_read=8000, output=500), mini) == pytest.approx(0.0015 + 0.0006 + 0.00225)


def test_a_call_is_priced_as_its_responses_stream():
    meter = _Fed(HAIKU)
    assert meter.usd == 0.0
    meter.on_event({"type": "message_start", "message": {"usage": {"input_tokens": 1000, "output_tokens": 1}}})
    assert meter.usd == pytest.approx(0.001005)            # the input side is known at once
    meter.on_event({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "x"}})
    meter.on_event({"type": "message_delta", "usage": {"output_tokens": 50}})
    assert meter.usd == pytest.approx(0.00125)             # output counts are cumulative: 50, not 51
    meter.on_event({"type": "message_start", "message": {"usage": {"input_tokens": 0, "output_tokens": 1,
                                                                    "cache_read_input_tokens": 20000}}})
    meter.on_event({"type": "message_delta", "usage": {"output_tokens": 100}})
    assert meter.usd == pytest.approx(0.00125 + 0.002 + 0.0005)


def test_a_model_without_list_prices_has_no_running_price():
    meter = _Fed(None)
    meter.on_event({"type": "message_start", "message": {"usage": {"input_tokens": 1000}}})
    assert meter.usd is None


def test_the_simulator_is_priced_like_the_model_id_the_cli_prices_it_as():
    table = load_models()
    assert table.simulator_model_id == "claude-haiku-4-5"
    assert resolve_model("sim:oracle", environ={}).prices_per_mtok == table.models["haiku-4.5"].prices_per_mtok == HAIKU
