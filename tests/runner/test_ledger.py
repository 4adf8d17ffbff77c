"""The session's cost ledger: the CLI's reported cost per call, the running call's streamed price,
the estimated part of calls ended before they reported, and the complete flag (Haiku list prices:
each response below costs $0.00125, 1,000 tokens in and 50 out)."""

from __future__ import annotations

import pytest

from study.runner.ledger import CostLedger

HAIKU = {"input": 1.0, "output": 5.0, "cache_write_5m": 1.25, "cache_write_1h": 2.0, "cache_read": 0.1}


def _response(ledger: CostLedger) -> list[bool]:
    return [ledger.on_stream_event({"type": "message_start", "message": {"usage": {"input_tokens": 1000, "output_tokens": 1}}}),
            ledger.on_stream_event({"type": "message_delta", "usage": {"output_tokens": 50}}),
            ledger.on_stream_event({"type": "message_stop"})]


def test_reported_calls_cost_the_difference_of_the_cli_totals():
    ledger = CostLedger(HAIKU)
    ledger.new_call()
    assert _response(ledger) == [False, False, True]   # the response completes at message_stop
    assert ledger.running_usd == pytest.approx(0.00125) and ledger.so_far_usd == pytest.approx(0.00125)
    assert ledger.cost_usd == 0.0
    assert ledger.on_result(0.002) == (pytest.approx(0.002), pytest.approx(0.00125))
    assert ledger.running_usd == 0.0 and ledger.cost_usd == pytest.approx(0.002)   # the call is accounted for
    ledger.new_call()
    _response(ledger)
    assert ledger.on_result(0.0035)[0] == pytest.approx(0.0015)   # cumulative over the session
    assert ledger.complete and ledger.estimated_usd == 0.0 and ledger.reported_usd == pytest.approx(0.0035)


def test_a_call_ended_before_it_reported_is_estimated_from_its_stream():
    ledger = CostLedger(HAIKU)
    ledger.new_call()
    _response(ledger)
    ledger.on_result(0.00125)
    ledger.new_call()
    _response(ledger)
    _response(ledger)
    assert ledger.so_far_usd == pytest.approx(0.00375)
    ledger.unreported()
    assert not ledger.complete
    assert ledger.estimated_usd == pytest.approx(0.0025) and ledger.cost_usd == pytest.approx(0.00375)
    assert ledger.so_far_usd == ledger.cost_usd   # not counted twice


def test_the_cap_counts_the_earlier_calls_and_the_running_one():
    ledger = CostLedger(HAIKU)
    ledger.new_call()
    _response(ledger)
    ledger.on_result(0.00125)
    ledger.new_call()
    ledger.on_stream_event({"type": "message_start", "message": {"usage": {"input_tokens": 1000, "output_tokens": 1}}})
    assert not ledger.cap_reached(0.0023) and ledger.cap_reached(0.00225)


def test_a_model_without_list_prices_is_capped_between_calls_only():
    ledger = CostLedger(None)
    _response(ledger)
    assert ledger.running_usd is None and not ledger.cap_reached(0.0)
    ledger.unreported()
    assert ledger.cost_usd == 0.0 and not ledger.complete
