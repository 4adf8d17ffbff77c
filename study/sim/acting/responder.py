"""A workspace policy on either API: the ``Responder`` the simulator hands every request.

``WorkspaceResponder(policy)`` reads each request into the agent's context (``wire.Reading``),
asks the policy for its next action (``Say`` actions gather into the text of the same response)
and answers with the runtime's own tool call for it (``wire.tool_use``), or with text alone for
``EndTurn``. It holds no state between requests: the context is read afresh from each one, so it
goes on correctly after a denial, a stop block, a resume or a restart of the CLI.

    with SimServer(WorkspaceResponder(Oracle([Shell("python3 train.py")])), api="openai-responses") as sim:
        ...   # run the CLI against sim

``contexts`` keeps every context it read (for tests: what the model was shown, denials' reasons).
A compaction request is answered with the whole context as the summary (``summarize``), so the
agent goes on where it was after the CLI compacted.
"""

from __future__ import annotations

from pathlib import Path

from study.sim.protocol import Reply

from .actions import ContextView, EndTurn, Outcome, Say, WorkspacePolicy
from .wire import Reading, is_side_request, read_tool_use, summary_text, tool_use

#: Says in a row before a policy is taken to be stuck (its response then ends the turn).
MAX_SAYS = 20


class WorkspaceResponder:
    """A :class:`~study.sim.policies.Responder` playing ``policy`` in a workspace. ``workspace``:
    its root, when the request may not state it (default: the CLI's working folder, read from
    each request)."""

    def __init__(self, policy: WorkspacePolicy, workspace: Path | str | None = None):
        self.policy = policy
        self.workspace = str(workspace) if workspace is not None else None
        self.contexts: list[ContextView] = []

    def respond(self, api: str, body: dict) -> Reply:
        if is_side_request(api, body):
            return Reply(text="Workspace session")
        reading = Reading(api, body, self.workspace)
        view = reading.view
        self.contexts.append(view)
        said: list[str] = []
        action = self.policy.next_action(view)
        while isinstance(action, Say) and len(said) < MAX_SAYS:
            said.append(action.text)
            view.steps.append((action, Outcome(True, "")))
            action = self.policy.next_action(view)
        if isinstance(action, Say):
            action = EndTurn(action.text)
        if isinstance(action, EndTurn):
            return Reply(text="\n\n".join([*said, action.text]).strip())
        use = (read_tool_use(action.path, reading.root) if reading.needs_read(action)   # type: ignore[union-attr]
               else tool_use(api, action, reading.root, reading.tools))
        return Reply(text="\n\n".join(said), tool_uses=[use])

    def summarize(self, api: str, body: dict) -> str:
        """The answer to the CLI's compaction request: the context so far, which the next request's
        summary gives back (``wire.context_of_summary``), so the policy goes on where it was."""
        return summary_text(Reading(api, body, self.workspace))

    @property
    def last(self) -> ContextView | None:
        """The context of the latest request."""
        return self.contexts[-1] if self.contexts else None
