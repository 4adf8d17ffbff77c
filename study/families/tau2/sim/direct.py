"""Play a τ²-bench agent policy against a session's ``Work`` directly, without a CLI.

For tests and benchmarks: each action of the policy goes through what a session's bridge would
do (the FSM's tool-call gate, the provider's ``call``, the FSM's record of the completed call
with its result, the stop gate at the end of a turn), in process, so a 40-task run takes seconds.
``work`` is any object with the family's ``Work`` methods used here (``first_message``,
``servers``, ``accounts_left``, ``continuation_message``, ``finish``); ``fsm`` an
``study.fsm.FsmRuntime`` whose workflow is entered (None: Control).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .agents import Call, End, Outcome, View

#: Stop blocks in a row after which the driver lets the turn end (as the CLI caps them).
STOP_BLOCK_CAP = 8


@dataclass
class Played:
    view: View
    denied: list[tuple[Call, str]] = field(default_factory=list)
    stops_blocked: int = 0
    actions: int = 0
    outcome: dict[str, Any] = field(default_factory=dict)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def play(work: Any, policy: Any, *, fsm: Any = None, server: str = "tau2", max_actions: int = 400) -> Played:
    """Run ``policy`` on ``work`` until it ends its turn (and the stop gate lets it) or the action
    budget is spent; then ``work.finish`` scores the conversation. Returns what happened."""
    events: list[tuple[str, dict[str, Any]]] = []
    work.attach(lambda kind, **fields: events.append((kind, fields)))
    view = View(first=work.first_message(fsm is not None))
    played = Played(view, events=events)
    provider = work.servers[server]
    blocks_in_a_row = 0
    for _ in range(max_actions):
        action = policy.next_action(view)
        played.actions += 1
        if isinstance(action, End):
            if fsm is not None and work.accounts_left > 0 and blocks_in_a_row < STOP_BLOCK_CAP:
                decision = fsm.stop_gate()
                if not decision.allowed:
                    blocks_in_a_row += 1
                    played.stops_blocked += 1
                    view.blocks.append(decision.reason + "\n" + work.continuation_message(fsm.state))
                    continue
            break
        blocks_in_a_row = 0
        if fsm is not None:
            decision = fsm.gate(action.tool, action.args)
            if not decision.allowed:
                played.denied.append((action, decision.reason))
                view.steps.append((action, Outcome(False, decision.reason, denied=decision.reason)))
                continue
        result = provider.call(action.tool, action.args)
        note = ""
        if fsm is not None:
            moved, note = fsm.observe_and_tell(action.tool, action.args, result.ok, result=result.text)
        text = result.text + (f"\n\n{note}" if note else "")
        view.steps.append((action, Outcome(result.ok, text)))
    played.outcome = work.finish(None)
    return played
