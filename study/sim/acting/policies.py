"""Two generic workspace agents for tests: one that does only what it is allowed, one that drifts.

Both count their progress by the tool calls in their context (``ContextView.calls``), so a denial,
a Claude Code read before an edit, or text merged into one response does not throw them off.

* :class:`Oracle` makes the calls of its plan, in order, then ends its turn.
* :class:`Drifter` first makes the off-plan calls it was given (an edit of a file it may not
  touch, a command it may not run), then ends its turn early; once the stop gate (or a
  continuation) makes it go on, it follows the plan like the oracle. Without a stop gate its
  early end ends the session.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Action, ContextView, EndTurn

FINAL = "The work is done."
EARLY = "I will stop here; the rest can wait for another session."


@dataclass
class Oracle:
    """Makes ``plan``'s calls in order (whatever the gate answers), then ``EndTurn(final)``."""

    plan: list[Action]
    final: str = FINAL
    name: str = field(default="oracle", init=False)

    def next_action(self, context: ContextView) -> Action:
        done = len(context.calls)
        return self.plan[done] if done < len(self.plan) else EndTurn(self.final)


@dataclass
class Drifter:
    """``off_plan``'s calls first, then an early ``EndTurn(early)``; after a stop block or a
    continuation, ``plan``'s calls and ``EndTurn(final)``."""

    plan: list[Action]
    off_plan: list[Action]
    early: str = EARLY
    final: str = FINAL
    name: str = field(default="drifter", init=False)

    def next_action(self, context: ContextView) -> Action:
        done = len(context.calls)
        if done < len(self.off_plan):
            return self.off_plan[done]
        if not context.continuations:
            return EndTurn(self.early)
        step = done - len(self.off_plan)
        return self.plan[step] if step < len(self.plan) else EndTurn(self.final)
