"""The workspace action vocabulary: what a scripted workspace agent does next, API-neutral.

A policy is an object with ``next_action(context: ContextView) -> Action``. The names are the
family seam's (notes: "Workspace agents: one action vocabulary"): each runtime maps an action to
its own tool call (Claude Code: Bash, Write, Edit, mcp__<server>__<tool>; Codex: its shell tool,
apply_patch, MCP) and the tool's output back to an :class:`Outcome`. A turn ends with every action
but :class:`Say` (text, then the next action in the same turn); :class:`EndTurn` is a final answer.

:class:`ScriptedPolicy` makes a policy from a generator (``script(prompt)`` yields actions and is
sent each one's outcome): ``next_action`` replays the context's steps into a new generator, so the
policy's answer is a function of what the context holds alone, as a model's is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generator, Union


# One vocabulary for every scripted workspace agent: the classes the simulator's request reading
# builds (study.sim.acting.actions), so a replayed context holds the very types a script yields.
from study.sim.acting.actions import (Action, EditFile, EndTurn, McpCall, Outcome, Say,  # noqa: E402,F401
                                      Shell, WriteFile)


@dataclass
class ContextView:
    """What one context holds: its first prompt, its (action, outcome) steps so far, and the stop
    blocks and continuation messages it received (texts, in order)."""

    prompt: str
    steps: list[tuple[Action, Outcome]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


Script = Generator[Action, Outcome, Any]


class ReplayMismatch(RuntimeError):
    """A context's recorded action is not what the policy's script yields at that step."""


class ScriptedPolicy:
    """A policy whose next action is its script's, replayed over the context's steps."""

    def script(self, prompt: str) -> Script:  # pragma: no cover - every policy defines it
        raise NotImplementedError

    def next_action(self, context: ContextView) -> Action:
        script = self.script(context.prompt)
        try:
            action = next(script)
            for number, (done, outcome) in enumerate(context.steps, 1):
                if type(done) is not type(action):
                    raise ReplayMismatch(f"step {number}: the context holds {done!r}, the script yields {action!r}")
                action = script.send(outcome)
        except StopIteration:
            return EndTurn("Done.")
        return action


def from_reading(view) -> ContextView:
    """A context as the simulator read it from a CLI's request (``study.sim.acting.actions.
    ContextView``) as these scripts replay it: a final answer the stop gate blocked is an
    ``EndTurn`` whose outcome is the block (ok False, ``denied``: the block's text), as the
    executor records it; the blocks and continuation messages are the ``messages``."""
    steps = list(view.steps)
    for count, text in zip(view.continued_after, view.continuations):
        i = count - 1
        if 0 <= i < len(steps) and isinstance(steps[i][0], EndTurn) and steps[i][1].ok:
            steps[i] = (steps[i][0], Outcome(False, text, denied=text))
    return ContextView(view.prompt, steps, list(view.continuations))


class ForTheSimulator:
    """A script of this package as a ``WorkspaceResponder``'s policy: its context is converted
    (:func:`from_reading`) before the script replays it."""

    def __init__(self, policy: ScriptedPolicy):
        self.policy = policy

    def next_action(self, context) -> Action:
        return self.policy.next_action(from_reading(context))


def probe_port() -> int:
    """The TCP port the adversarial agents' commands try to connect to: ``$STUDY_SIM_PROBE_PORT`` of
    the simulator's process (a test listens there to see that nothing connects), default 9."""
    import os

    value = os.environ.get("STUDY_SIM_PROBE_PORT", "")
    return int(value) if value.isdigit() else 9


def beside_session(name: str) -> str:
    """A Python expression an adversarial agent's program evaluates to find a file of its session's
    folder (``fsm/main.json``: the FSM's frames; ``events.jsonl``: the log): the agent's CLI works in
    an agent folder of the sessions folder (``<sessions>/.agents/<id>/workspace``), so the session's
    files are somewhere below ``../../..`` (the sessions folder), and a hostile program looks for them
    there (the first it finds; ``../<name>`` when it finds none: a workspace laid out in the session
    folder itself)."""
    return f"next(iter(sorted(__import__('glob').glob('../../../**/{name}', recursive=True))), '../{name}')"

