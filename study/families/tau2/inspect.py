"""A τ²-bench session's conversation as the Inspect export carries it: the family's ``inspect``
part (layer 10; ``study export inspect`` asks it through ``study.families.registry`` and alone
imports it, with inspect-ai, an optional extra).

Its messages are the conversation: each message the agent sent the customer
(``send_message_to_customer``) is the agent's text (``metadata.to_customer``), each reply of the
customer a user message (``metadata.customer``), the workflow's controller's fresh test an
assistant message written by the harness (``metadata.controller``), the other tool calls and
their results as they were (``transcript.by_call``): the conversation as τ²-bench's own
trajectory has it, which the model events' inputs and outputs show too (so ``messages_df`` reads
it); the log's tool events keep every call as it was made. Its scores are its reading's
(``reading.inspect_scores``). ``info_title`` says in words what the family's own log records were
(``study.export.inspect_info``: the info events' text).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessageAssistant, ChatMessageTool, ChatMessageUser

from study.export.inspect_info import code
from study.export.inspect_messages import Conversation

from .events import CONTROLLER_CALL, CONVERSATION_END, CUSTOMER_MESSAGE
from .transcript import SEND, by_call, split_result


def _text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else "\n".join(getattr(c, "text", "") or "" for c in content)


def conversation(talk: Conversation, events: list[dict[str, Any]]) -> Conversation:
    """A τ²-bench session's conversation (module docstring) from ``talk`` (its transcript's): each
    successful message to the customer as the agent's text, its result as the customer's words,
    the controller's fresh tests as turns of their own; where each model response's message and
    each context's start now are. ``talk`` is left as it is."""
    said = by_call(events)
    out: list[Any] = []
    moved: dict[int, int] = {}
    sends: set[str] = set()
    for i, message in enumerate(talk.messages):
        moved[i] = len(out)
        if isinstance(message, ChatMessageAssistant) and message.tool_calls:
            mine = [c for c in message.tool_calls if c.function == SEND and c.id in said]
            if mine:
                sends.update(c.id for c in mine)
                words = [str(c.arguments.get("message", "")) for c in mine]
                text = "\n\n".join(t for t in [_text(message), *words] if t)
                rest = [c for c in message.tool_calls if c not in mine] or None
                out.append(message.model_copy(update={"content": text, "tool_calls": rest, "metadata": {
                    **(message.metadata or {}), "to_customer": [c.id for c in mine]}}))
                continue
        if isinstance(message, ChatMessageTool) and message.tool_call_id in said:
            answered = _answered(message, said[message.tool_call_id], message.tool_call_id in sends)
            notes = (message.metadata or {}).get("hook_context")
            if notes and answered:        # a hook's note after the call: with what stands for its result
                answered[-1] = answered[-1].model_copy(update={"metadata": {**(answered[-1].metadata or {}),
                                                                            "hook_context": notes}})
            out += answered
            continue
        out.append(message)
    return Conversation(messages=out, responses={rid: moved[i] for rid, i in talk.responses.items()},
                        starts=[moved[i] for i in talk.starts if i in moved])


def _answered(message: Any, found: dict[str, Any], sent: bool) -> list[Any]:
    """What stands for a call's result: the customer's reply to a message (user messages), or
    the tool's result; then the controller's request and the customer's answer to it."""
    base = {"tool_call_id": message.tool_call_id, "seq": found["seq"]}
    out: list[Any] = []
    if sent:
        out += [ChatMessageUser(id=f"{message.id}-c{i}", content=text, metadata={**base, "customer": True})
                for i, text in enumerate(found["reply"])]
    else:
        head = split_result(_text(message))[0]
        out.append(message.model_copy(update={"content": head}) if found["controller"] else message)
    if found["controller"] is not None:
        out.append(ChatMessageAssistant(id=f"{message.id}-k", content=found["controller"], metadata={
            **base, "controller": True, "written_by": "the workflow's controller (the harness), not the model"}))
        out += [ChatMessageUser(id=f"{message.id}-a{i}", content=text, metadata={**base, "customer": True,
                                                                                  "answers": "controller"})
                for i, text in enumerate(found["answer"])]
    if found["ended"] and out and isinstance(out[-1], ChatMessageUser):
        out[-1] = out[-1].model_copy(update={"metadata": {**(out[-1].metadata or {}), "conversation_end": found["ended"]}})
    return out


def info_title(kind: str, fields: dict[str, Any]) -> str | None:
    """The line in words of an info event of the family's own kinds (None: not one of them)."""
    if kind == CUSTOMER_MESSAGE:
        return "The customer said"
    if kind == CONTROLLER_CALL:
        done = "called" if fields.get("ok") is True else "called, with an error,"
        return f"The workflow's controller (the harness, not the agent) {done} {code(fields.get('tool'))}"
    if kind == CONVERSATION_END:
        return f"The conversation ended: {code(fields.get('reason'))}"
    return None
