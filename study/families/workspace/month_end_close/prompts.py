"""The first message of each period's fresh context of a month-end close run, per condition.

Plain: the close procedure in the prompt (``texts/plain.md``); FSM: the same, plus how to move
between the workflow's states (``texts/fsm.md``). Both end with the period's paragraph
(``texts/context.md``): which period, that contexts are fresh, the turn cap.
"""

from __future__ import annotations

from pathlib import Path

from .workspace import PROCEDURE

TEXTS = Path(__file__).resolve().with_name("texts")
CONDITIONS = ("plain", "fsm")


def first_message(condition: str, period: str, number: int, periods: int, turns: int) -> str:
    """The first message of period ``period``'s context, number ``number`` (1-based) of ``periods``."""
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r}: use one of {', '.join(CONDITIONS)}")
    context = (TEXTS / "context.md").read_text(encoding="utf-8").format(period=period, number=number, periods=periods, turns=turns)
    procedure = PROCEDURE.read_text(encoding="utf-8").split("\n", 1)[1].strip()  # without its title line
    return (TEXTS / f"{condition}.md").read_text(encoding="utf-8").format(procedure=procedure, context=context.strip())
