"""A τ²-bench agent policy behind the simulator, for a real CLI on either API.

The agent policies (``agents.py``) decide from a :class:`~study.families.tau2.sim.agents.View` (the first
message, every call with its outcome, the stop blocks and continuation messages); a real CLI's
request is read into the same context the workspace agents read (``study.sim.acting``: the
first prompt, each call of an MCP tool with its output or the gate's reason, the stop blocks), and
the policy's call goes out as a call of the ``tau2`` server's tool, its end as text alone. So one
reading of each runtime's wire serves every family's scripted agents.
"""

from __future__ import annotations

from typing import Any

from study.sim.acting.actions import ContextView, EndTurn, McpCall
from study.sim.acting.responder import WorkspaceResponder

from .agents import Call, End, Outcome, View

#: The MCP server the family's tools are on (``study.families.tau2.tools.SERVER``).
SERVER = "tau2"


class _AsWorkspacePolicy:
    """A τ²-bench agent policy spoken in the workspace agents' actions."""

    def __init__(self, policy: Any):
        self.policy = policy

    def next_action(self, context: ContextView) -> Any:
        steps = [(Call(action.tool, dict(action.args)), Outcome(outcome.ok, outcome.text, outcome.denied))
                 for action, outcome in context.steps if isinstance(action, McpCall) and action.server == SERVER]
        view = View(first=context.prompt, steps=steps, blocks=list(context.continuations))
        action = self.policy.next_action(view)
        if isinstance(action, End):
            return EndTurn(action.text)
        return McpCall(SERVER, action.tool, dict(action.args))


class AgentResponder(WorkspaceResponder):
    """The Responder of a simulated τ²-bench agent (``policy``: ``agents.make_agent``'s)."""

    def __init__(self, policy: Any):
        super().__init__(_AsWorkspacePolicy(policy))
        self.agent = policy
