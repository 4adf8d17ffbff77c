"""How a cost is printed: a simulated session's cost says it is priced as the model the simulator
stands in for (``models.yaml``'s ``simulator.model_id``), never as a real cost."""

from __future__ import annotations


def simulated_note(model_id: str | None) -> str:
    """``simulated, priced as claude-haiku-4-5``."""
    return f"simulated, priced as {model_id or 'the simulator model of models.yaml'}"


def cost_text(usd: float | None, *, simulated: bool, model_id: str | None = None) -> str:
    """``$2.07`` for a real session, ``$2.07 (simulated, priced as claude-haiku-4-5)`` for a simulated one;
    ``-`` when there is no cost (a model without list prices)."""
    text = "-" if usd is None else f"${usd:.2f}"
    return f"{text} ({simulated_note(model_id)})" if simulated else text
