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
                                                        # (quiet: true: and tells the agent nothing)

:meth:`Workflow.load` refuses a broken file with :class:`WorkflowError`, which lists every
problem with its line and what to fix: malformed YAML, unknown or missing keys, duplicate
states, unreachable states, states with no path to the exit, transitions out of the exit, rules
naming tools outside ``tools``, guards naming checks nobody registered, bad check parameters.
The loading and validation live in ``workflow_loader.py``; the parts a workflow is made of
(``State``, ``Transition``, the guards' checks) and ``WorkflowError`` in ``workflow_parts.py``
(all re-exported here).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .builtin_tools import uses_vocabulary
from .workflow_loader import _Loader
from .workflow_parts import Problem, State, Transition, WorkflowError
# re-exported with the four above: the parts are imported from here across the package and by its users
from .workflow_parts import NamedCheck, ShellCheck, SoftCheck  # noqa: F401


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
    #: observers (study.fsm.rule_checks) run after every completed call, in order
    observers: tuple[str, ...] = ()

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
        """Validate a workflow's text (``file`` names it in problems); raise WorkflowError listing
        every problem. The loader (``workflow_loader._Loader``) gives the validated fields."""
        return cls(**_Loader(text, file).fields())

    def knows_tool(self, tool: str) -> bool:
        return tool in self._tool_set

    @property
    def builtin_vocabulary(self) -> bool:
        """Whether the workflow gates the CLI's own tools by the built-in vocabulary (its ``tools``
        name ``shell``, ``read``, ``edit`` or ``write``; builtin_tools.py); otherwise a built-in
        call is judged by the runtime's own tool name (``Bash``, ``Edit``, ...)."""
        return uses_vocabulary(self.tools)

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
