"""Which route each account takes: the plan of a segmented policy, from (policy, seed, batch).

A plan cuts the batch order into segments, each handled by one route (``follow``, ``blind``,
``partial``, ``batch``, ``interleave``, ``wrong-account``, ``stop``; see ``policies.PlannedRoutes``).
It is a pure function of the policy, the seed, the order and which accounts' data came with the
harness's reminder, all of which the model can read from its conversation, so the same plan
comes out on every request, after a resume and after a compaction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

#: The routes ``drifting`` chooses among when it leaves the procedure.
DRIFT_ROUTES = ("blind", "partial", "batch", "interleave", "wrong-account", "stop")
#: How many accounts a group route takes.
GROUP_SIZE = {"batch": 3, "interleave": 2, "wrong-account": 2}
#: Single-route policies and the route they take on every account (or group).
SINGLE_ROUTE = {"blind": "blind", "partial": "partial", "batcher": "batch", "interleaver": "interleave",
                "wrong-account": "wrong-account"}


@dataclass(frozen=True)
class Segment:
    """Consecutive accounts handled by one route; ``size`` is the number of data sets the
    ``partial`` route retrieves (1 to 4)."""

    route: str
    accounts: tuple[str, ...]
    size: int = 5


def _rng(seed: int, *parts: object) -> random.Random:
    return random.Random(":".join(str(p) for p in (seed, *parts)))


def _segment(route: str, seed: int, order: list[str], i: int, params: dict) -> Segment:
    width = int(params.get("group", GROUP_SIZE[route])) if route in GROUP_SIZE else 1
    accounts = tuple(order[i:i + width])
    size = _rng(seed, "partial", accounts[0]).randint(1, 4) if route == "partial" else 5
    return Segment(route, accounts, size)


def drift_probability(position: int, n: int, reminded_before: bool, p_max: float) -> float:
    """The chance that ``drifting`` leaves the procedure at ``position`` (0-based) of ``n``:
    growing linearly from 0 to ``p_max`` over the batch, halved right after a reminder."""
    p = p_max * (position / (n - 1) if n > 1 else 0.0)
    return p / 2 if reminded_before else p


def make_plan(policy: str, seed: int, order: list[str], reminded: list[str], params: dict) -> list[Segment]:
    """The segments of ``order`` for ``policy`` (an unplanned policy follows the procedure)."""
    plan: list[Segment] = []
    i, n = 0, len(order)
    reminded_set = set(reminded)
    p_max = float(params.get("p_max", 0.8))
    while i < n:
        if policy in SINGLE_ROUTE:
            route = SINGLE_ROUTE[policy]
        elif policy == "drifting":
            rng = _rng(seed, "drifting", order[i])
            p = drift_probability(i, n, i > 0 and order[i - 1] in reminded_set, p_max)
            route = rng.choice(DRIFT_ROUTES) if rng.random() < p else "follow"
        else:
            route = "follow"
        segment = _segment(route, seed, order, i, params) if route != "follow" else Segment("follow", (order[i],))
        plan.append(segment)
        i += len(segment.accounts)
    return plan
