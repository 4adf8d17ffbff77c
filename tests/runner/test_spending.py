"""The spending cap: list prices of one response's usage, and the running price of a call as
its stream events arrive (hand-worked values at Claude Haiku 4.5 list prices)."""

from __future__ import annotations

import pytest

from study.protocol.models import load_models, resolve_model
from study.runner.spending import CallMeter, price_usage

HAIKU = {"input": 1.0, "output": 5.0, "cache_write_5m": 1.25, "cache_write_1h": 2.0, "cache_read": 0.1}


def test_price_of_one_response():
    # 2,000 in * $1 + 300 out * $5 + 1,000 5-minute writes * $1.25 + 10,000 reads * $0.10 = $0.00575
    usage = {"input_tokens": 2000, "output_tokens": 300, "cache_creation_input_tokens": 1000,
             "cache_read_input_tokens": 10000}
    assert price_usage(usage, HAIKU) == pytest.approx(0.00575)
    # of 1,000 written tokens 400 live one hour: 600 * $1.25 + 400 * $2 = $0.00155 instead of $0.00125
    split = {**usage, "cache_creation": {"ephemeral_5m_input_tokens": 600, "ephemeral_1h_input_tokens": 400}}
    assert price_usage(split, HAIKU) == pytest.approx(0.00575 + 0.0003)
    assert price_usage({}, HAIKU) == 0.0


def test_a_call_is_priced_as_its_responses_stream():
    meter = CallMeter(HAIKU)
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
    meter = CallMeter(None)
    meter.on_event({"type": "message_start", "message": {"usage": {"input_tokens": 1000}}})
    assert meter.usd is None


def test_the_simulator_is_priced_like_the_model_id_the_cli_prices_it_as():
    table = load_models()
    assert table.simulator_model_id == "claude-haiku-4-5"
    assert resolve_model("sim:oracle", environ={}).prices_per_mtok == table.models["haiku-4.5"].prices_per_mtok == HAIKU
