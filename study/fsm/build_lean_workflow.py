"""The exploratory FSM-lean workflows (issue 16), generated with the others by
``study fsm build-referral`` (``build_referral_workflow.generated_files`` includes it).

FSM-lean is the FSM workflow with its transitions driven by the runtime: the same states, the same
permissions (the tool-call gate), the same guards (paper Eqs. 4-6) and the same stop gate, but every
transition is ``automatic: true``: the runtime commits it right after the tool call that makes its
guard hold (see ``study/fsm/automatic.py``), so the agent never calls ``status``, ``self_check`` or
``transition``, and the runner offers it no FSM tools. Since the agent cannot call ``exit``
either, the exit state S_done is a pause state: the turn may end there, and S_done is reached
only through Eq. 6 (every account of the batch decided), exactly when FSM lets the agent exit.

``fsm_lean_bound.yaml`` (FSM-lean-bound) is the same made from ``fsm_bound.yaml``'s document:
S_decide admits ``submit_decision`` only for the account of the last record.

The states' instructions are short: the agent reads them once per state change, in the result
of the call that moved the state, after the guard's own note (which names the account).
"""

from __future__ import annotations

from pathlib import Path

from sopbench_tools.tool_definitions import DECISION_TOOL, RECORD_TOOL

LEAN_FILE = Path("workflows/exploratory/fsm_lean.yaml")
LEAN_BOUND_FILE = Path("workflows/exploratory/fsm_lean_bound.yaml")

LEAN_INSTRUCTIONS = {
    "S_investigate": f"Investigate the next undecided account: its five data sets, then {RECORD_TOOL}.",
    "S_decide": f"Call {DECISION_TOOL} for it with the action of your STEP 4.",
    "S_done": "The batch is complete: you may end your turn.",
}

HEADER_LINES = [
    "EXPLORATORY - NOT PART OF THE PREREGISTERED SET OF CONDITIONS (condition FSM-lean).",
    "Like referral_abuse_per_account.yaml (same states, permissions, guards of Eqs. 4-6 and stop gate),",
    "but every transition is automatic: the runtime commits it after the tool call that makes its guard",
    "hold. S_done is a pause state, because the agent gets no FSM tools and so cannot call exit.",
]


BOUND_HEADER_LINES = [
    "EXPLORATORY - NOT PART OF THE PREREGISTERED SET OF CONDITIONS (condition FSM-lean-bound).",
    "fsm_lean.yaml with fsm_bound.yaml's item-bound permission: S_decide admits submit_decision only for",
    "the account of the last record (frame variable `account`, set by the S_investigate -> S_decide guard).",
]


def lean_workflow(per_account: dict, name: str = "ReferralAbusePerAccountLean") -> dict:
    """The FSM-lean workflow from an FSM workflow's document (as the build script makes it; the
    bound one for FSM-lean-bound)."""
    doc = dict(per_account)
    doc["workflow"] = name
    doc["description"] = (
        "One account at a time: investigate (five data tools, STEP 1-4 record), then decide; the "
        "batch is done once every account is decided. Guards: paper Eqs. 4-6. EXPLORATORY: the "
        "runtime moves between the states on its own (automatic transitions)."
    )
    doc["pause"] = [doc["exit"]]
    doc["states"] = {name: {**state, "instructions": LEAN_INSTRUCTIONS[name]} for name, state in per_account["states"].items()}
    doc["transitions"] = [{**t, "automatic": True} for t in per_account["transitions"]]
    return doc
