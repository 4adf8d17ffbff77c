"""The parts a validated workflow is made of, and the error that refuses a broken workflow file.

:class:`State`, :class:`Transition` and the checks of a transition's guard (:class:`NamedCheck`,
:class:`ShellCheck`, :class:`SoftCheck`); :class:`WorkflowError`, which lists every
:class:`Problem` of a file with its line and what to fix (both defined in
``study.protocol.problems``, below the task manifests' loader, whose ``TaskError`` derives from
it). Two modules use them: ``workflow.py`` (``Workflow``, made of them; it re-exports every one)
and ``workflow_loader.py``, which builds them from the YAML and reports the problems; so they are
here, where both can import them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from study.protocol.problems import Problem, WorkflowError  # noqa: F401  (the workflow's; re-exported)

from .checks import RegisteredCheck
from .permissions import Permissions


@dataclass(frozen=True)
class NamedCheck:
    """A guard's call of a registered Python check."""

    name: str
    params: Mapping[str, Any]
    registered: RegisteredCheck
    line: int


@dataclass(frozen=True)
class ShellCheck:
    """A guard's shell command: exit 0 passes. ``sha256``: (path, hex digest) of each file the
    command runs, checked before every run (a path relative to the folder the command runs in)."""

    command: str
    timeout_s: float
    line: int
    sha256: tuple[tuple[str, str], ...] = ()


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
    #: (automatic ones only) the agent is not told of this move: no note in the call's result
    quiet: bool = False


@dataclass(frozen=True)
class State:
    name: str
    instructions: str
    exit_conditions: tuple[str, ...]
    permissions: Permissions
    line: int
