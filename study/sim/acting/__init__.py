"""Scripted agents that work in a workspace with the agent CLI's own tools (docs/simulator.md,
"Agents in a workspace"): one action vocabulary for both runtimes.

- ``actions.py``: the vocabulary (``Shell``, ``WriteFile``, ``EditFile``, ``McpCall``, ``Say``,
  ``EndTurn``), an action's ``Outcome`` and the ``ContextView`` a policy decides from.
- ``wire.py``: each action as Claude Code's (``Bash``, ``Write``, ``Edit``) or Codex CLI's
  (``exec_command``, ``apply_patch``) own tool call, and a request read back into a context.
- ``responder.py``: ``WorkspaceResponder(policy)``, the simulator's ``Responder`` for a policy.
- ``executor.py``: ``Executor(folder, fsm=...)`` runs a policy's actions directly, without a CLI.
- ``policies.py``: ``Oracle`` (a plan of allowed calls) and ``Drifter`` (off-plan calls and an
  early end first), generic agents for tests.

The simulator's shared machinery: a task family's scripted agents (its ``sim`` part, found through
``study.families.registry``) act through it; nothing here knows a family.
"""

from .actions import Action, ContextView, EditFile, EndTurn, McpCall, Outcome, Say, Shell, WorkspacePolicy, WriteFile
from .executor import Executor, git_workspace
from .policies import Drifter, Oracle
from .responder import WorkspaceResponder

__all__ = ["Action", "ContextView", "Drifter", "EditFile", "EndTurn", "Executor", "McpCall", "Oracle", "Outcome", "Say",
           "Shell", "WorkspacePolicy", "WorkspaceResponder", "WriteFile", "git_workspace"]
