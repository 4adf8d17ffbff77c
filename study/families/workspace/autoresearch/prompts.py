"""The first message of each fresh context of an AutoResearch run, per condition.

Plain: the procedure in the prompt (``texts/plain.md``); FSM: the same, plus how to move between
the workflow's states (``texts/fsm.md``). Both end with the context's paragraph
(``texts/context.md``): contexts are fresh, the workspace holds the earlier ones' work, one stage
per context.
"""

from __future__ import annotations

from pathlib import Path

from .protocol import Plan
from .workspace import protocol_text

TEXTS = Path(__file__).resolve().with_name("texts")
CONDITIONS = ("plain", "fsm")


def first_message(condition: str, plan: Plan, number: int, contexts: int) -> str:
    """The first message of context ``number`` (1-based) of at most ``contexts``."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}: use one of {', '.join(CONDITIONS)}")
    context = (TEXTS / "context.md").read_text(encoding="utf-8").format(number=number, contexts=contexts, total=plan.total)
    protocol = protocol_text(plan).split("\n", 1)[1].strip()  # without its title line
    return (TEXTS / f"{condition}.md").read_text(encoding="utf-8").format(protocol=protocol, context=context.strip())
