"""The ``proposer`` policy: the oracle, but first it proposes two changes to the workflow.

Offered ``propose_workflow_change`` (``study fsm serve --proposals``, or the exploratory
condition FSM-propose), once it has read the FSM's status it proposes, in this order:

1. a malformed change: a state ``S_escalate`` for a human review, reached from ``S_decide``,
   whose rule names a tool the workflow does not have and which has no way on to the exit (the
   checks refuse it, naming the lines);
2. a sensible one: the exit conditions ``self_check`` shows for ``S_investigate`` and ``S_decide``
   (empty in the study's workflow) spelled out from the SOP's order of work.

Then it follows the procedure like the oracle. Without the tool it is the oracle. What it has
proposed is in the memory's ``tricks`` (``proposal_1``, ``proposal_2``), so it proposes each once,
after a resume or a compaction too.
"""

from __future__ import annotations

from .memory import Memory
from .policies import POLICIES, Oracle, fsm
from .protocol import Reply

PROPOSE_TOOL = "propose_workflow_change"

MALFORMED = {
    "reason": "Some accounts need a second opinion before a decision; add a human review step after S_decide.",
    "evidence": ["self_check S_decide: the workflow has no way to ask for a review of a hard case"],
    "edits": [
        {"op": "add_state", "state": "S_escalate",
         "definition": {"instructions": "Ask a human reviewer about the account.", "allow": ["escalate_to_human"]}},
        {"op": "add_transition", "from": "S_decide", "to": "S_escalate"},
    ],
}

SENSIBLE = {
    "reason": "self_check lists no exit conditions, so it cannot tell me what the guard will check; "
              "spell them out as the guards check them.",
    "evidence": ["self_check S_decide returned exit_conditions: []",
                 "self_check S_investigate returned exit_conditions: []"],
    "edits": [
        {"op": "alter_state", "state": "S_investigate", "set": {"exit_conditions": [
            "All five data tools returned for this account, and no other account's data was retrieved since.",
            "record_analysis was called for the account after those five calls."]}},
        {"op": "alter_state", "state": "S_decide", "set": {"exit_conditions": [
            "submit_decision was called for the account just recorded."]}},
    ],
}

PROPOSALS = (MALFORMED, SENSIBLE)


def proposals_made(m: Memory) -> int:
    return sum(1 for t in m.tricks if t.startswith("proposal_"))


class Proposer(Oracle):
    name = "proposer"
    description = ("The oracle, but once it has read the FSM's status and is offered propose_workflow_change it "
                   "proposes two changes: a malformed one (a review state with an unknown tool and no way to the "
                   "exit, refused by the checks with its lines), then a sensible one (the exit conditions of "
                   "S_investigate and S_decide spelled out); then it follows the procedure.")

    def reply(self, memory: Memory, tools: set[str]) -> Reply:
        m = memory
        made = proposals_made(m)
        offered = f"mcp__fsm__{PROPOSE_TOOL}" in tools
        if offered and m.order and m.fsm_seen and not m.fsm_exited and not m.needs_sync and made < len(PROPOSALS):
            return fsm(PROPOSE_TOOL, **PROPOSALS[made])
        return super().reply(memory, tools)


POLICIES[Proposer.name] = Proposer
