"""Each model response of a session as an Inspect ``ModelEvent``, the way Inspect's own agents
log a generation: its input (the conversation the model was sent, from the start of its context:
the first message, or the last compaction's summary), its output (the response's assistant
message), its token usage and cost, and its time.

The responses and their usage are the transcript's (``study.transcripts``: ``responses``, the
form the audit checks the log's ``usage`` events against); each response's cost is its usage at
the session's list prices (``session_start.prices_per_mtok``), as the runner priced it when it
streamed (``usage.priced_usd`` is the running sum of these). A response with no message (a
compaction's request) is an event with an empty output: its usage counts, its input is the
conversation it summarised. Its time: ``timestamp`` when its first part was written,
``completed`` when its last was (the transcript's clock).

This module imports inspect-ai (an optional extra): only ``study export inspect`` imports it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from inspect_ai.event import ModelEvent
from inspect_ai.model import ChatCompletionChoice, ChatMessageAssistant, GenerateConfig, ModelOutput, ModelUsage

from study.protocol.models import Usage, price_usage

from .inspect_messages import Conversation


def model_usage(usage: Usage, prices: dict[str, float] | None) -> ModelUsage:
    """A response's usage in Inspect's terms: ``input_tokens`` the uncached input (as Inspect
    counts it), cache writes and reads apart, ``total_tokens`` all of them and the output, and
    ``total_cost`` its price (None without prices)."""
    written = usage.cache_write_5m + usage.cache_write_1h
    cost = None
    if isinstance(prices, dict):
        try:
            cost = price_usage(usage, prices)
        except (KeyError, TypeError, ValueError):
            cost = None
    return ModelUsage(input_tokens=usage.input, output_tokens=usage.output,
                      total_tokens=usage.input + written + usage.cache_read + usage.output,
                      input_tokens_cache_write=written or None, input_tokens_cache_read=usage.cache_read or None,
                      total_cost=cost)


def _time(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return None


def model_events(responses: list[dict[str, Any]], talk: Conversation, turns: list[dict[str, Any]], model: str,
                 prices: dict[str, float] | None, t0: datetime, prefix: str) -> list[ModelEvent]:
    """One ``ModelEvent`` per response, in order (see the module docstring); ``t0`` is the
    session's start (for ``working_start``)."""
    first_t: dict[str, Any] = {}
    for turn in turns:
        if turn.get("response") is not None:
            first_t.setdefault(str(turn["response"]), turn.get("t"))
    messages = talk.messages
    out: list[ModelEvent] = []
    position = 0   # where the conversation stood at the previous response
    for k, response in enumerate(responses):
        rid = str(response.get("id"))
        index = talk.responses.get(rid)
        if index is None:   # no message: the conversation up to the next model message
            while position < len(messages) and not isinstance(messages[position], ChatMessageAssistant):
                position += 1
            end, message = position, None
        else:
            end, message = index, messages[index]
            position = index + 1
        start = max((s for s in talk.starts if s <= end), default=0)
        ended = _time(response.get("t"))
        began = _time(first_t.get(rid)) or ended
        usage = model_usage(response["usage"], prices)
        seconds = (ended - began).total_seconds() if began and ended else None
        choice = [ChatCompletionChoice(message=message, stop_reason="tool_calls" if message.tool_calls else "stop")
                  ] if message is not None else []
        out.append(ModelEvent(
            uuid=f"{prefix}-model-{k}", timestamp=began or t0, completed=ended,
            working_start=max(0.0, ((began or t0) - t0).total_seconds()), working_time=seconds,
            model=model, input=messages[start:end], tools=[], tool_choice="auto", config=GenerateConfig(),
            output=ModelOutput(model=model, choices=choice, usage=usage, time=seconds, response_id=rid),
            metadata={"response": rid}))
    return out


def usage_of(events: list[ModelEvent]) -> ModelUsage | None:
    """The sum of the events' usage (None: no event)."""
    total: ModelUsage | None = None
    for event in events:
        if event.output.usage is not None:
            total = event.output.usage if total is None else total + event.output.usage
    return total
