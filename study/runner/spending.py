"""The spending cap, enforced by the runner while a call streams; the model never sees a budget.

A CLI's own budget option is not used: Claude Code's (``max_budget_usd``) tells the model about
it (a ``USD budget: $x/$y; $z remaining`` reminder on every tool result), and the paper's agents
never saw a budget. Instead the runtime adapter reports each model response's token usage as it
arrives (``study.runtimes.base.Usage``: Claude Code's raw API stream events, Codex CLI's rollout),
and the runner prices it at the list prices of ``models.yaml``
(``study.protocol.models.price_usage``). The session ends with
``limit:spending`` as soon as the session's cost so far plus this running price reaches the cap.

The models a session calls beside the agent's (a benchmark study's customer and judge) count too:
``SideSpend`` prices each of their responses as it comes, adds it to the session's cost, logs it
(``model_usage``) and ends the running call when it brings the session to the cap.

The cost recorded in ``meta.json`` is the CLI's own figure where it reports one (Claude Code: the
differences of the cumulative ``total_cost_usd``), else the priced usage (Codex CLI reports no
cost), plus the models' beside the agent's; the running price decides when to stop, stands in for the cost of a call that was ended
before it could report one (``cost_complete: false``), and is logged after each response
(``usage`` events), so a session whose runner was killed shows what it streamed. The session's
accounts of the two are kept by ``ledger.CostLedger``.
"""

from __future__ import annotations

import threading
from dataclasses import asdict
from typing import Any, Callable

from study.protocol.models import Usage, price_usage
from study.session_io.vocabulary import EventKind


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


class SideSpend:
    """The spend of the models a session calls beside the agent's (a benchmark study's customer and
    judge, ``study.runner.wiring``'s side models): each response's usage, reported by the family's
    model client as it arrives (from whatever thread calls the model), is priced at its alias's
    list prices, added to the session's cost (``ledger.CostLedger.on_side``), logged as a
    ``model_usage`` event and counted against the spending cap: ``on_cap()`` once the session's
    cost so far reaches it (the runner then ends the running call, ``limit:spending``).
    ``open()`` says whether the cap leaves room (a judge is asked only while it does)."""

    def __init__(self, ledger: Any, emit: Callable[..., Any], cap_usd: float, on_cap: Callable[[], None]):
        self.ledger = ledger
        self.emit = emit
        self.cap_usd = cap_usd
        self.on_cap = on_cap
        self._lock = threading.Lock()

    def open(self) -> bool:
        return self.ledger.so_far_usd < self.cap_usd

    def record(self, role: str, model: str, model_id: str, prices: dict[str, float] | None, usage: Usage) -> None:
        with self._lock:
            priced = price_usage(usage, prices) if prices is not None else None
            self.ledger.on_side(priced or 0.0)
            so_far = self.ledger.so_far_usd
            self.emit(EventKind.MODEL_USAGE, role=role, model=model, model_id=model_id,
                      usage={k: v for k, v in asdict(usage).items() if v},
                      priced_usd=None if priced is None else round(priced, 6), session_cost_usd=round(so_far, 6))
        if so_far >= self.cap_usd:
            self.on_cap()
