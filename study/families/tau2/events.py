"""The τ²-bench family's own kinds of ``events.jsonl`` lines: its ``events`` part (layer 1).

``study.session_io`` validates them like its own (``events.EVENT_TYPES`` takes each family's
``EVENT_TYPES`` through ``study.families.registry``): each kind is a ``TypedDict`` of the fields its
line carries besides ``seq``, ``t`` and ``kind`` (docs/contracts.md, "Session log"). The family's
work writes them (``work.py``, ``conversation.py``); its reading, transcript and tables read them.
Nothing here imports anything of the study's: the log format sits below every family.
"""

from __future__ import annotations

from typing import Any, TypedDict

#: What the customer (τ²-bench's user simulator) said to the agent.
CUSTOMER_MESSAGE = "customer_message"
#: The conversation ended, as the benchmark ends it.
CONVERSATION_END = "conversation_end"
#: A tool call the workflow's controller made itself.
CONTROLLER_CALL = "controller_call"


class CustomerMessage(TypedDict):
    """What the customer (its user simulator) said to the agent."""

    text: str


class ConversationEnd(TypedDict):
    """The conversation ended as the benchmark ends it (the customer stopped, a transfer to a
    human, its step limit, the agent stopped)."""

    reason: str


class ControllerCall(TypedDict):
    """A call of the domain's tools the workflow's controller made itself, not the agent (the
    Telecom FSM's scope step): a turn of the benchmark's trajectory, counted in the outcome's
    ``controller_turns``. ``result`` is the tool's answer (its error when not ``ok``)."""

    tool: str
    args: dict[str, Any]
    ok: bool
    result: str


#: The definition of each of the family's kinds, in the order the log format lists them.
EVENT_TYPES: dict[str, type] = {
    CUSTOMER_MESSAGE: CustomerMessage,
    CONVERSATION_END: ConversationEnd,
    CONTROLLER_CALL: ControllerCall,
}
