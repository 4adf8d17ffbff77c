"""What a scripted agent in a workspace does, API-neutral: its actions, their outcomes, and what it
sees of its context (docs/simulator.md, "Agents in a workspace").

A policy decides its next action from a :class:`ContextView` (the context's first prompt, every
(action, outcome) so far, the stop blocks and continuation messages received); the responder
(``responder.py``) puts the action on the runtime's wire as the CLI's own tool call, and the
executor (``executor.py``) runs it directly in a folder. Paths are relative to the workspace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Union


@dataclass(frozen=True)
class Shell:
    """Run a shell command in the workspace (Claude Code: ``Bash``; Codex: ``exec_command``)."""

    command: str


@dataclass(frozen=True)
class WriteFile:
    """Create or replace a file (Claude Code: ``Write``; Codex: ``apply_patch``'s ``Add File``,
    which replaces a file that exists)."""

    path: str
    content: str


@dataclass(frozen=True)
class EditFile:
    """Replace the text ``old`` by ``new`` in a file (Claude Code: ``Edit``; Codex: ``apply_patch``'s
    ``Update File``). ``old`` is whole lines of the file, once (Codex's patches match lines)."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class McpCall:
    """Call a tool of an MCP server, e.g. the FSM's (``server`` "fsm")."""

    server: str
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Say:
    """Text, then the next action in the same turn."""

    text: str


@dataclass(frozen=True)
class EndTurn:
    """A final answer: the turn ends (unless the stop gate blocks it)."""

    text: str


Action = Union[Shell, WriteFile, EditFile, McpCall, Say, EndTurn]
#: Actions that are tool calls (each has an outcome from the workspace or the gate).
CALLS = (Shell, WriteFile, EditFile, McpCall)


@dataclass(frozen=True)
class Outcome:
    """What came of one action: ``ok`` whether it succeeded (a command's exit code 0, an edit
    made); ``text`` the output the model sees; ``denied`` the tool-call gate's reason when the
    gate refused it (then nothing ran). A ``Say`` or ``EndTurn`` has ``Outcome(True, "")``."""

    ok: bool
    text: str
    denied: str | None = None

    @property
    def ran(self) -> bool:
        return self.denied is None


@dataclass
class ContextView:
    """One context as the agent sees it: its first prompt, the (action, outcome) pairs so far,
    and the stop blocks and continuation messages received (``continuations``; the i-th came after
    ``continued_after[i]`` steps)."""

    prompt: str = ""
    steps: list[tuple[Action, Outcome]] = field(default_factory=list)
    continuations: list[str] = field(default_factory=list)
    continued_after: list[int] = field(default_factory=list)

    def continued(self, text: str) -> None:
        self.continuations.append(text)
        self.continued_after.append(len(self.steps))

    @property
    def calls(self) -> list[tuple[Action, Outcome]]:
        """The steps that were tool calls."""
        return [(a, o) for a, o in self.steps if isinstance(a, CALLS)]

    @property
    def denials(self) -> list[tuple[Action, str]]:
        """Every call the gate refused, with its reason."""
        return [(a, o.denied) for a, o in self.steps if o.denied is not None]

    def done(self, action: Action) -> bool:
        """Whether ``action`` was made and succeeded."""
        return any(a == action and o.ok for a, o in self.steps)

    def tried(self, action: Action) -> bool:
        """Whether ``action`` was made, whatever came of it."""
        return any(a == action for a, _ in self.steps)


class WorkspacePolicy(Protocol):
    """A scripted agent in a workspace: its next action given the context so far."""

    def next_action(self, context: ContextView) -> Action: ...
