"""The simulator's policies of every task family, by family and role.

A SOP-Bench session's simulated model is one of ``POLICIES`` (``policies.py``), made by name by
``SimServer`` itself. Another family's simulated models are ``Responder`` objects of its own
subpackage (``study.sim.<family>``), which may play more than one role in a session (tau2-bench:
the agent and the customer). Each such subpackage has ``POLICIES``: role -> {name: description},
and ``make_policy(role, name, *, seed, **context)`` -> a Responder, where ``context`` holds what
the runner knows of the session (its study, its unit, its condition): the ground truth a
simulated model may read (a tau2 task's evaluation criteria) and nothing the agent sees.
"""

from __future__ import annotations

import importlib
from typing import Any

from .policies import POLICIES

#: The family whose simulated models are the SOP policies of ``policies.py``.
SOP_FAMILY = "sopbench"


#: Families whose simulated agents are their folder's ``sim`` part (the family face of issue 48;
#: TEMPORARY until the registry of task families lands and answers ``part(family, "sim")``).
SIM_PARTS = {"swebench": "study.families.swebench.sim"}


def _module(family: str) -> Any:
    return importlib.import_module(SIM_PARTS.get(family, f"study.sim.{family}"))


def family_policy_names(family: str, role: str = "agent") -> tuple[str, ...]:
    """The simulator's policies of ``family`` for ``role`` (an agent, a customer, ...)."""
    if family == SOP_FAMILY:
        return tuple(POLICIES) if role == "agent" else ()
    try:
        return tuple(_module(family).POLICIES.get(role, {}))
    except ModuleNotFoundError:
        return ()


def family_policy_descriptions(family: str) -> dict[str, dict[str, str]]:
    """role -> {policy: what it does} of ``family`` (for ``study sim policies``)."""
    if family == SOP_FAMILY:
        return {"agent": {name: getattr(cls, "description", "") for name, cls in POLICIES.items()}}
    return {role: dict(names) for role, names in _module(family).POLICIES.items()}


def make_family_policy(family: str, role: str, name: str, *, seed: int = 0, **context: Any) -> Any:
    """The Responder of ``family`` playing ``role`` by policy ``name`` (not for SOP-Bench's, which
    ``SimServer`` makes by name)."""
    return _module(family).make_policy(role, name, seed=seed, **context)
