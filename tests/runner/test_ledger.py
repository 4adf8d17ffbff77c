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


def test_the_models_beside_the_agents_are_priced_logged_and_count_against_the_cap(tmp_path):
    """A τ²-bench customer's (or judge's) responses (issue 49, item 2): each at its own list prices,
    in the session's cost, a ``model_usage`` event, and the cap reached by them ends the session's
    call as the agent's own spend does; the judge is asked only while the cap leaves room."""
    import json

    from study.runner.spending import SideSpend
    from study.session_io.writer import EventLog

    gpt = {"input": 0.75, "output": 4.5, "cache_write_5m": 0.0, "cache_write_1h": 0.0, "cache_read": 0.075}
    ledger = CostLedger(HAIKU)
    ledger.new_call()
    _response(ledger)
    ledger.on_result(0.00125)                                       # the agent: $0.00125
    capped = []
    with EventLog(tmp_path / "events.jsonl") as log:
        side = SideSpend(ledger, log.emit, 0.004, on_cap=lambda: capped.append(ledger.cost_usd))
        side.record("customer", "gpt-5.4-mini", "gpt-5.4-mini", gpt, Usage(input=1000, output=100, cache_read=2000))
        assert ledger.side_usd == pytest.approx(0.00075 + 0.00045 + 0.00015) and side.open() and not capped
        assert ledger.cost_usd == pytest.approx(0.00125 + 0.00135)
        ledger.new_call()
        ledger.on_usage(Usage(input=1000, output=1), "r", False)    # the agent's running call: $0.001005
        side.record("judge", "gpt-5.4-mini", "gpt-5.4-mini", gpt, Usage(input=400, output=20))   # $0.00039
        assert capped == [] and ledger.so_far_usd == pytest.approx(0.003995) and side.open()
        side.record("customer", "gpt-5.4-mini", "gpt-5.4-mini", gpt, Usage(input=10))
        assert len(capped) == 1 and not side.open() and ledger.cap_reached(0.004)
        side.record("customer", "qwen3.8-flash", "qwen3.8-flash", None, Usage(input=10))      # no list prices
    events = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [(e["kind"], e["role"], e["priced_usd"]) for e in events] == [
        ("model_usage", "customer", 0.00135), ("model_usage", "judge", 0.00039), ("model_usage", "customer", 0.000008),
        ("model_usage", "customer", None)]
    assert events[0]["usage"] == {"input": 1000, "output": 100, "cache_read": 2000}
    assert events[0]["session_cost_usd"] == 0.0026 and events[2]["session_cost_usd"] == pytest.approx(0.0040025, abs=1e-6)
