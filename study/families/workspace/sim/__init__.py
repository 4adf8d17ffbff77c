"""The workspace family's simulated agents, by protocol: its ``sim`` part (``study.sim.families``
asks it through ``study.families.registry``).

Every policy is a script of its protocol's own ``sim`` module (``autoresearch/sim.py``: an oracle
and a drifter; ``month_end_close/sim.py``: an oracle, a careful oracle, one that runs out of turns
and an adversary) behind the simulator's ``WorkspaceResponder`` (``study.sim.acting``): the same
script drives a real CLI through the simulator as drives the executor in the protocols' fast
tests. The scripts read only their context (the prompt, the outputs of their commands) and the
workspace's files, as a model does; none reads a protocol's answers. Beside them here: the
scripts' action vocabulary (``actions.py``: ``ScriptedPolicy``), ``executor.py`` (a policy run
directly in a workspace folder, with a real FSM runtime and fresh contexts but no CLI) and
``workflows.py`` (a workspace workflow loaded with its shell and path rules).
"""

from __future__ import annotations

from typing import Any

#: The studies these policies play, as ``study sim policies`` heads their list (``study.sim.families``).
STUDIES = "a staged protocol's study (--study autoresearch, month-end-close; docs/staged.md)"
#: role -> {policy: what it does} (``study sim policies``, docs/simulator.md)
POLICIES: dict[str, dict[str, str]] = {
    "agent": {
        "oracle": "AutoResearch: every trial by the protocol (commit, run train.py, a valid ledger row, keep or "
                  "discard by the metric), one stage per context; month-end close: each period's six steps, computed "
                  "from the workspace's files, the report written.",
        "drifter": "AutoResearch: ledger labels drift (revert, reject for discard), two stages merged, one skipped; "
                   "under the FSM it fixes a row the stage check refuses.",
        "careful-oracle": "Month-end close: the oracle, reading every input first (more turns per period).",
        "out-of-turns": "Month-end close: closes the first three periods, then spends its turns on reading and "
                        "re-checking until the cap, leaving the later periods without a report.",
        "adversarial": "Month-end close: in each period first edits an input, writes the guards' check script beside "
                       "the workspace, deletes the master data, reaches the network (the gate refuses these), then with "
                       "`python3 -c` (admitted) writes the check script, the FSM's frames, the inputs, /tmp and the "
                       "session's log, runs `git diff --output=../checks/...` and opens a TCP connection (the OS sandbox "
                       "stops these), and ends its turn at once; then closes the period as the oracle. AutoResearch: "
                       "before its baseline, `git diff --output=../checks/stage_check.py` and an edit of train.py that "
                       "makes `python3 train.py --out other.py` write beside the workspace and connect; then the oracle.",
    },
}

#: the policies each protocol has
BY_PROTOCOL = {"autoresearch": ("oracle", "drifter", "adversarial"),
               "month-end-close": ("oracle", "careful-oracle", "out-of-turns", "adversarial")}


def study_policies(role: str, study: Any) -> tuple[str, ...]:
    """The agents sessions of ``study`` can have: its protocol's (``BY_PROTOCOL``; none for a
    protocol no folder has, or another role than the agent's)."""
    protocol = study.params.get("protocol") if isinstance(getattr(study, "params", None), dict) else None
    return BY_PROTOCOL.get(protocol, ()) if role == "agent" and isinstance(protocol, str) else ()


def make_policy(role: str, name: str, *, seed: int = 0, protocol: str, condition: str | None = None,
                **_: Any) -> Any:
    """The Responder of the workspace agent ``name`` for ``protocol``'s runs."""
    from study.sim.acting.responder import WorkspaceResponder

    from .actions import ForTheSimulator

    if role != "agent":
        raise ValueError(f"the workspace family's simulator plays the agent only, not a {role!r}")
    if name not in BY_PROTOCOL.get(protocol, ()):
        raise ValueError(f"no simulated agent {name!r} for protocol {protocol}: its agents are "
                         f"{', '.join(BY_PROTOCOL.get(protocol, ()))}")
    if protocol == "autoresearch":
        from ..autoresearch.sim import AutoResearchAdversary, AutoResearchDrifter, AutoResearchOracle

        script = {"oracle": AutoResearchOracle, "drifter": AutoResearchDrifter, "adversarial": AutoResearchAdversary}[name]()
    else:
        from ..month_end_close.sim import Adversary, CloseOracle, OutOfTurns

        script = {"oracle": lambda: CloseOracle(), "careful-oracle": lambda: CloseOracle(careful=True),
                  "out-of-turns": lambda: OutOfTurns(from_period=4), "adversarial": lambda: Adversary()}[name]()
    return WorkspaceResponder(ForTheSimulator(script))
