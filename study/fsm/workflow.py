"""Workflow YAML: the format and the validated workflow it becomes.

A workflow is one YAML file::

    workflow: Review                 # its name (what `enter` takes)
    description: ...                 # optional
    tools: [read_doc, write_note, submit]   # the tool vocabulary every rule must draw from
    check_modules: [my_project.checks]      # optional: modules that register named checks
    variables: {batch: []}           # optional: frame variables and their defaults
    initial: S_read
    exit: S_done
    pause: []                        # states where the agent may end its turn
    states:
      S_read:
        instructions: Read the document.
        exit_conditions: [You have read every section.]   # optional, shown by self_check
        allow: [read_*, {tool: write_note, args: {doc: {equals_var: doc}}}]
        deny: [{tool: read_doc, args: {doc: {equals: secret}}, reason: "never read it"}]
      S_submit:
        allow: [submit]
      S_done: {}
    transitions:
      - from: S_read
        to: S_submit
        guard:
          hard:
            - check: notes_written           # a named Python check (see checks.py)
              with: {min_notes: 1}
            - command: "./checks/lint.sh"    # a shell check; exit 0 passes
              timeout: 5
          soft: {prompt: "Are the notes faithful?"}   # needs a reviewer; off by default
      - {from: S_submit, to: S_done, automatic: true}   # the runtime moves on its own

:meth:`Workflow.load` refuses a broken file with :class:`WorkflowError`, which lists every
problem with its line and what to fix: malformed YAML, unknown or missing keys, duplicate
states, unreachable states, states with no path to the exit, transitions out of the exit, rules
naming tools outside ``tools``, guards naming checks nobody registered, bad check parameters.
The loading and validation live in ``workflow_loader.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from study.errors import StudyError

from .checks import RegisteredCheck
from .permissions import Permissions


@dataclass(frozen=True)
class Problem:
    line: int | None
    message: str


class WorkflowError(StudyError, ValueError):
    """A workflow file that cannot be used. ``problems`` lists each (line, what to fix)."""

    def __init__(self, file: str | Path, problems: list[Problem]):
        self.file = str(file)
        self.problems = problems
        self.line = problems[0].line if problems else None
        self.fix = problems[0].message if problems else ""
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.file}:{p.line if p.line is not None else '?'}: {p.message}" for p in self.problems]
        return "\n".join(lines)


@dataclass(frozen=True)
class NamedCheck:
    """A guard's call of a registered Python check."""

    name: str
    params: Mapping[str, Any]
    registered: RegisteredCheck
    line: int


@dataclass(frozen=True)
class ShellCheck:
    """A guard's shell command: exit 0 passes."""

    command: str
    timeout_s: float
    line: int


@dataclass(frozen=True)
class SoftCheck:
    prompt: str
    line: int


@dataclass(frozen=True)
class Transition:
    source: str
    target: str
    hard: tuple[NamedCheck | ShellCheck, ...]
    soft: SoftCheck | None
    description: str
    line: int
    #: committed by the runtime right after the tool call that makes the guard hold (no self-check)
    automatic: bool = False


@dataclass(frozen=True)
class State:
    name: str
    instructions: str
    exit_conditions: tuple[str, ...]
    permissions: Permissions
    line: int


@dataclass(frozen=True)
class Workflow:
    """A validated workflow. Immutable: the workflow never changes during a run."""

    name: str
    file: str
    sha256: str
    description: str
    tools: tuple[str, ...]
    variables: Mapping[str, Any]
    initial: str
    exit: str
    pause: frozenset[str]
    states: Mapping[str, State]
    transitions: Mapping[tuple[str, str], Transition]
    _tool_set: frozenset[str] = field(default=frozenset(), compare=False)

    @classmethod
    def load(cls, path: str | Path) -> "Workflow":
        """Read and validate a workflow file; raise WorkflowError listing every problem."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise WorkflowError(path, [Problem(None, f"cannot read the workflow file: {exc.strerror or exc}")]) from None
        return cls.from_text(text, file=str(path))

    @classmethod
    def from_text(cls, text: str, file: str = "<workflow>") -> "Workflow":
        from .workflow_loader import _Loader  # here, not at the top: the loader imports this module

        return _Loader(text, file).build()

    def knows_tool(self, tool: str) -> bool:
        return tool in self._tool_set

    def transitions_from(self, state: str) -> list[Transition]:
        return [t for (src, _), t in self.transitions.items() if src == state]

    def automatic_from(self, state: str) -> list[Transition]:
        """The automatic transitions out of ``state``, in the file's order."""
        return [t for t in self.transitions_from(state) if t.automatic]

    @property
    def needs_agent_moves(self) -> bool:
        """Whether the agent needs the FSM tools: some transition is not automatic, or the turn can
        end only after ``exit`` (the exit state is not a pause state)."""
        return any(not t.automatic for t in self.transitions.values()) or self.exit not in self.pause
