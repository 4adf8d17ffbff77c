"""A file's problems, each with its line and what to fix, and the error that lists them.

``WorkflowError`` refuses a workflow file (``study.fsm``, which re-exports it) and is the base of
``sopbench_tools.tasks.TaskError``, which refuses a task manifest: both read YAML by line
(``yaml_lines``) and report every problem of a file at once, so their error is here, below both.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from study.errors import StudyError


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
