"""The spending cap, enforced by the runner while a call streams; the model never sees a budget.

A CLI's own budget option is not used: Claude Code's (``max_budget_usd``) tells the model about
it (a ``USD budget: $x/$y; $z remaining`` reminder on every tool result), and the paper's agents
never saw a budget. Instead the runtime adapter reports each model response's token usage as it
arrives (``study.runtimes.base.Usage``: Claude Code's raw API stream events, Codex CLI's rollout),
and the runner prices it at the list prices of ``models.yaml``
(``study.protocol.models.price_usage``). The session ends with
``limit:spending`` as soon as the session's cost so far plus this running price reaches the cap.

The cost recorded in ``meta.json`` is the CLI's own figure where it reports one (Claude Code: the
differences of the cumulative ``total_cost_usd``), else the priced usage (Codex CLI reports no
cost); the running price decides when to stop, stands in for the cost of a call that was ended
before it could report one (``cost_complete: false``), and is logged after each response
(``usage`` events), so a session whose runner was killed shows what it streamed. The session's
accounts of the two are kept by ``ledger.CostLedger``.
"""

from __future__ import annotations

from study.protocol.models import Usage, price_usage


class CallMeter:
    """The running list price of one call, from the usage of its responses.

    ``update(usage, response)`` reports the usage of response ``response`` being streamed (each
    report replaces the previous one of that response; another response's report closes it first);
    ``finish()`` closes it. ``usd`` is what the call's model
    responses have cost so far; None for a model without list prices (its cap can only be
    checked between calls, from the CLI's reported cost).
    """

    def __init__(self, prices: dict[str, float] | None):
        self.prices = prices
        self._finished = 0.0
        self._current: Usage | None = None
        self._response: object = None

    def update(self, usage: Usage, response: object = None) -> None:
        if self._current is not None and response != self._response:
            self.finish()
        self._current, self._response = usage, response

    def finish(self) -> None:
        if self._current is not None and self.prices is not None:
            self._finished += price_usage(self._current, self.prices)
        self._current = None

    @property
    def usd(self) -> float | None:
        if self.prices is None:
            return None
        current = price_usage(self._current, self.prices) if self._current is not None else 0.0
        return self._finished + current
