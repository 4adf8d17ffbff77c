"""What the FSM runtime answers: the gates' :class:`Decision`, a transition's
:class:`TransitionResult`, and :class:`FsmRefusal` for a request it cannot serve."""

from __future__ import annotations

from dataclasses import dataclass


class FsmRefusal(ValueError):
    """An FSM request that cannot be served (the message says why and what to do)."""


@dataclass(frozen=True)
class Decision:
    """The answer of the tool-call gate or the stop gate."""

    allowed: bool
    reason: str = ""


@dataclass(frozen=True)
class TransitionResult:
    ok: bool
    reason: str
    from_state: str | None
    to_state: str | None
