"""The session's cost ledger: the CLI's reported cost per call, the running call's streamed price,
the estimated part of calls ended before they reported, and the complete flag (Haiku list prices:
each response below costs $0.00125, 1,000 tokens in and 50 out)."""

from __future__ import annotations

import pytest

from study.runner.ledger import CostLedger
from study.runtimes.base import Usage

HAIKU = {"input": 1.0, "output": 5.0, "cache_write_5m": 1.25, "cache_write_1h": 2.0, "cache_read": 0.1}


_RESPONSES = iter(range(1, 10_000))


def _response(ledger: CostLedger) -> None:
    """One response as the runtime adapter reports it: the input side first, then the output so
    far, then complete."""
    response = next(_RESPONSES)
    ledger.on_usage(Usage(input=1000, output=1), response, False)
    ledger.on_usage(Usage(input=1000, output=50), response, False)
    ledger.on_usage(Usage(input=1000, output=50), response, True)


def test_reported_calls_cost_the_difference_of_the_cli_totals():
    ledger = CostLedger(HAIKU)
    ledger.new_call()
    _response(ledger)
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
    ledger.on_usage(Usage(input=1000, output=1), "r", False)
    assert not ledger.cap_reached(0.0023) and ledger.cap_reached(0.00225)


def test_a_model_without_list_prices_is_capped_between_calls_only():
    ledger = CostLedger(None)
    _response(ledger)
    assert ledger.running_usd is None and not ledger.cap_reached(0.0)
    ledger.unreported()
    assert ledger.cost_usd == 0.0 and not ledger.complete


def test_a_runtime_that_reports_no_cost_is_charged_the_list_price_of_its_streamed_usage():
    # Codex CLI reports token usage, never a cost: each call costs its responses at list price
    ledger = CostLedger(HAIKU)
    ledger.new_call()
    _response(ledger)
    _response(ledger)
    assert ledger.on_result(None, reports_cost=False) == (pytest.approx(0.0025), pytest.approx(0.0025))
    ledger.new_call()
    _response(ledger)
    assert ledger.on_result(None, reports_cost=False)[0] == pytest.approx(0.00125)
    assert ledger.cost_usd == pytest.approx(0.00375) and ledger.complete and ledger.estimated_usd == 0.0
