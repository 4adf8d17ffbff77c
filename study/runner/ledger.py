"""A session's cost: what the CLI reported, what the runner priced from the stream, and which
part of the total is the runner's estimate.

- ``reported_usd``: the cost of the calls that reported their end: the CLI's own figures where
  it reports one (Claude Code's ``total_cost_usd`` is cumulative over the session, also across
  resumes, so a call costs the difference to the previous total; a fresh context is a new CLI
  session whose total starts at 0: ``new_cli_session``), else (a runtime that reports
  no cost, Codex CLI) the list price of the call's streamed usage;
- ``running_usd``: the list price of the running call's responses so far (``spending.CallMeter``,
  fed with the usage the runtime adapter reports);
- ``estimated_usd``: the streamed price of calls that were ended (a limit, a signal) before they
  could report a cost; ``complete`` is False once there is such a call;
- ``side_usd``: what the models the session calls beside the agent's have cost (a benchmark
  customer, its judge: ``spending.SideSpend``, each response at list price as it comes);
- ``cost_usd`` = reported + estimated + side (what ``session_end`` and ``meta.json`` record), and
  ``so_far_usd`` adds the running call (what the spending cap and the ``usage`` events use).
"""

from __future__ import annotations

from study.runtimes.base import Usage

from .spending import CallMeter


class CostLedger:
    def __init__(self, prices: dict[str, float] | None):
        self.prices = prices
        self.reported_usd = 0.0
        self.estimated_usd = 0.0
        self.side_usd = 0.0
        self.complete = True
        self.meter = CallMeter(prices)
        self._last_total = 0.0

    @property
    def cost_usd(self) -> float:
        """The session's cost of the calls that ended (reported, or estimated when unreported) and
        of the models beside the agent's."""
        return self.reported_usd + self.estimated_usd + self.side_usd

    def on_side(self, usd: float) -> None:
        """A response of a model beside the agent's, at its list price."""
        self.side_usd += usd

    @property
    def running_usd(self) -> float | None:
        """The streamed price of the running call so far (None: the model has no list prices)."""
        return self.meter.usd

    @property
    def so_far_usd(self) -> float:
        """The session's cost including what the running call has streamed."""
        return self.cost_usd + (self.meter.usd or 0.0)

    def new_cli_session(self) -> None:
        """A fresh context starts a new CLI session, whose reported total starts again at 0 (the
        cost of its first call is then its own total, not the difference to the last context's)."""
        self._last_total = 0.0

    def new_call(self) -> None:
        """The running call's price starts again at 0."""
        self.meter = CallMeter(self.prices)

    def on_usage(self, usage: Usage, response: object, done: bool) -> None:
        """Response ``response``'s usage so far; ``done``: the response is complete."""
        self.meter.update(usage, response)
        if done:
            self.meter.finish()

    def cap_reached(self, cap_usd: float) -> bool:
        """The running call has brought the session to the spending cap (checked as it streams)."""
        priced = self.meter.usd
        return priced is not None and self.cost_usd + priced >= cap_usd

    def on_result(self, total_cost_usd: float | None, *, reports_cost: bool = True) -> tuple[float, float | None]:
        """A call reported its end, with the session's cumulative cost where the runtime reports
        one (``reports_cost``; else the streamed price is the call's cost). Returns the call's own
        cost and its streamed price; the call is then accounted for (``running_usd`` starts again
        at 0)."""
        priced = self.meter.usd
        self.new_call()
        if not reports_cost:
            self.reported_usd += priced or 0.0
            return priced or 0.0, priced
        if total_cost_usd is None:
            return 0.0, priced
        call_cost = max(total_cost_usd - self._last_total, 0.0)
        self.reported_usd += call_cost
        self._last_total = total_cost_usd
        return call_cost, priced

    def unreported(self) -> None:
        """The running call was ended before it reported a cost: its streamed price stands in."""
        self.complete = False
        self.estimated_usd += self.meter.usd or 0.0
        self.new_call()
