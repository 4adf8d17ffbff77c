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


@dataclass(frozen=True)
class Shell:
    command: str


@dataclass(frozen=True)
class WriteFile:
    path: str
    content: str


@dataclass(frozen=True)
class EditFile:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class McpCall:
    server: str
    tool: str
    args: dict


@dataclass(frozen=True)
class Say:
    text: str


@dataclass(frozen=True)
class EndTurn:
    text: str


Action = Union[Shell, WriteFile, EditFile, McpCall, Say, EndTurn]


@dataclass(frozen=True)
class Outcome:
    """What the agent sees of an action: ``ok``, the output ``text``, and ``denied``: the gate's
    reason when the action was refused (None: it ran). A blocked :class:`EndTurn`'s outcome is the
    stop block: ok False, its text the block's."""

    ok: bool
    text: str
    denied: str | None = None


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
