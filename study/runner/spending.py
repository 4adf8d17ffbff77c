"""The spending cap, enforced by the runner while a call streams; the model never sees a budget.

Claude Code's own budget option (``max_budget_usd``) is not used: the CLI tells the model about
it (a ``USD budget: $x/$y; $z remaining`` reminder on every tool result), and the paper's agents
never saw a budget. Instead the runner asks the CLI for the raw API stream events
(``include_partial_messages``) and prices each model response's usage at the list prices of
``models.yaml`` as it arrives: ``message_start`` carries the input side (input, cache writes,
cache reads), ``message_delta`` the cumulative output tokens. The session ends with
``limit:spending`` as soon as the session's cost so far plus this running price reaches the cap.

The cost recorded in ``meta.json`` is still the CLI's own figure (differences of the cumulative
``total_cost_usd``); the running price decides when to stop, stands in for the cost of a call
that was ended before it could report one (``cost_complete: false``), and is logged after each
response (``usage`` events), so a session whose runner was killed shows what it streamed. The
session's accounts of the two are kept by ``ledger.CostLedger``.
"""

from __future__ import annotations

from typing import Any



def price_usage(usage: dict[str, Any], prices: dict[str, float]) -> float:
    """The list price in USD of one model response's ``usage`` (Anthropic Messages API fields).

    Cache writes are split into 5-minute and 1-hour writes when the usage says how
    (``cache_creation``); otherwise they are all priced as 5-minute writes.
    """
    def tokens(key: str, source: dict[str, Any] = usage) -> int:
        value = source.get(key)
        return int(value) if isinstance(value, (int, float)) else 0

    written = tokens("cache_creation_input_tokens")
    split = usage.get("cache_creation") if isinstance(usage.get("cache_creation"), dict) else {}
    written_1h = min(tokens("ephemeral_1h_input_tokens", split), written)
    return (tokens("input_tokens") * prices["input"]
            + tokens("output_tokens") * prices["output"]
            + (written - written_1h) * prices["cache_write_5m"]
            + written_1h * prices["cache_write_1h"]
            + tokens("cache_read_input_tokens") * prices["cache_read"]) / 1_000_000


class CallMeter:
    """The running list price of one ``query()`` call, from its stream events.

    Feed it every main-thread stream event (``on_event``); ``usd`` is what the call's model
    responses have cost so far. ``usd`` is None for a model without list prices (its cap can only
    be checked between calls, from the CLI's reported cost).
    """

    def __init__(self, prices: dict[str, float] | None):
        self.prices = prices
        self._finished = 0.0
        self._current: dict[str, Any] | None = None

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "message_start":
            self._finish_current()
            message = event.get("message") or {}
            self._current = dict(message.get("usage") or {})
        elif kind == "message_delta" and self._current is not None:
            # the delta's usage fields are cumulative for the message: they replace the start's
            self._current.update({k: v for k, v in (event.get("usage") or {}).items() if v is not None})

    def _finish_current(self) -> None:
        if self._current is not None and self.prices is not None:
            self._finished += price_usage(self._current, self.prices)
        self._current = None

    @property
    def usd(self) -> float | None:
        if self.prices is None:
            return None
        current = price_usage(self._current, self.prices) if self._current is not None else 0.0
        return self._finished + current
