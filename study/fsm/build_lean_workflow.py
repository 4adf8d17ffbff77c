"""The exploratory FSM-lean workflows (issue 16), generated with the others (``task_workflows.workflow_files``).

FSM-lean is the FSM workflow with its transitions driven by the runtime: the same states, the same
permissions (the tool-call gate), the same guards (paper Eqs. 4-6) and the same stop gate, but every
transition is ``automatic: true``: the runtime commits it right after the tool call that makes its
guard hold (see ``study/fsm/automatic.py``), so the agent never calls ``status``, ``self_check`` or
``transition``, and the runner offers it no FSM tools. Since the agent cannot call ``exit``
either, the exit state S_done is a pause state: the turn may end there, and S_done is reached
only through Eq. 6 (every item of the batch decided), exactly when FSM lets the agent exit.

``fsm_lean_bound.yaml`` (FSM-lean-bound) is the same made from ``fsm_bound.yaml``'s document:
S_decide admits the decision only for the item of the last record.

The moves from one item to the next (S_investigate -> S_decide -> S_investigate) are ``quiet``: the
agent is told nothing when the workflow makes them, since its first message's paragraph says how
the workflow moves and its per-item reminder says the procedure; a call the current state does not
admit is refused with the one thing to do next. Only the move to S_done is told: the guard's note
(the batch is complete) and S_done's short instructions (the task's ``Wording.lean``,
``study.fsm.wording``), once, in the result of the decision that completed the batch. The notes
of the per-item moves came on top of the reminder at every item (about 4% of a session's cost
under the simulator's oracle).
"""

from __future__ import annotations

from study.procedure.core import Procedure

from .wording import Wording


def header_lines(main_file_name: str) -> list[str]:
    return [
        "EXPLORATORY - NOT PART OF THE PREREGISTERED SET OF CONDITIONS (condition FSM-lean).",
        f"Like {main_file_name} (same states, permissions, guards of Eqs. 4-6 and stop gate),",
        "but every transition is automatic: the runtime commits it after the tool call that makes its guard",
        "hold, quietly between items (the agent is told only of the move to S_done). S_done is a pause",
        "state, because the agent gets no FSM tools and so cannot call exit.",
    ]


def bound_header_lines(p: Procedure, w: Wording) -> list[str]:
    return [
        "EXPLORATORY - NOT PART OF THE PREREGISTERED SET OF CONDITIONS (condition FSM-lean-bound).",
        f"fsm_lean.yaml with fsm_bound.yaml's item-bound permission: S_decide admits {p.decision_tool} only for",
        f"the {p.noun} of the last record (frame variable `{w.bind_var}`, set by the S_investigate -> S_decide guard).",
    ]


def lean_workflow(per_item: dict, name: str, p: Procedure, w: Wording) -> dict:
    """The FSM-lean workflow from an FSM workflow's document (the bound one for FSM-lean-bound)."""
    doc = dict(per_item)
    doc["workflow"] = name
    doc["description"] = (
        f"One {p.noun} at a time: investigate ({w.summary}), then decide; the "
        f"batch is done once every {p.noun} is decided. Guards: paper Eqs. 4-6. EXPLORATORY: the "
        "runtime moves between the states on its own (automatic transitions)."
    )
    doc["pause"] = [doc["exit"]]
    doc["states"] = {state: {**body, "instructions": w.lean[state]} for state, body in per_item["states"].items()}
    doc["transitions"] = [{**t, "automatic": True, **({"quiet": True} if t["to"] != doc["exit"] else {})}
                          for t in per_item["transitions"]]
    return doc
