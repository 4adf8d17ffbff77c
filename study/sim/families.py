"""The simulator's policies of every task family, by family and role.

A session of the default family (SOP-Bench's batches) has one of ``POLICIES`` (``policies.py``) as
its simulated model, made by name by ``SimServer`` itself. Another family's simulated models are
``Responder`` objects of its ``sim`` part (``study.families.<family>.sim``, found through
``study.families.registry``), which may play more than one role in a session (a customer beside
the agent, say). Each such part has ``POLICIES``: role -> {name: description}, ``STUDIES``: the
words ``study sim policies`` heads its list with (which studies the policies play), and
``make_policy(role, name, *, seed, **context)`` -> a Responder, where ``context`` holds what the
runner knows of the session (its study, its unit, its condition): the ground truth a simulated
model may read (a benchmark task's evaluation criteria) and nothing the agent sees. A part whose
policies differ by its studies' protocol or domain (a family of two protocols, each with agents
of its own) also has ``study_policies(role, study)``: the names
sessions of that study can have, which the runner's preflight checks a ``sim:`` model against
before anything is created.
"""

from __future__ import annotations

from typing import Any

from study.families.registry import DEFAULT_FAMILY, part_of, parts

from .policies import POLICIES


def _module(family: str) -> Any:
    found = part_of(family, "sim")
    if found is None:
        raise ModuleNotFoundError(f"the task family {family!r} has no simulated agents (no sim part)")
    return found


def family_policy_names(family: str, role: str = "agent", study: Any = None) -> tuple[str, ...]:
    """The simulator's policies of ``family`` for ``role`` (an agent, a customer, ...); with
    ``study`` (a ``study.protocol.studies`` study of the family), only those its sessions can have
    (its protocol's, its domain's: the part's ``study_policies``, where it has one)."""
    if family == DEFAULT_FAMILY:
        return tuple(POLICIES) if role == "agent" else ()
    try:
        module = _module(family)
    except ModuleNotFoundError:
        return ()
    of_study = getattr(module, "study_policies", None)
    if study is not None and of_study is not None:
        return tuple(of_study(role, study))
    return tuple(module.POLICIES.get(role, {}))


def family_policy_descriptions(family: str) -> dict[str, dict[str, str]]:
    """role -> {policy: what it does} of ``family`` (for ``study sim policies``)."""
    if family == DEFAULT_FAMILY:
        return {"agent": {name: getattr(cls, "description", "") for name, cls in POLICIES.items()}}
    return {role: dict(names) for role, names in _module(family).POLICIES.items()}


def family_studies() -> list[tuple[str, str]]:
    """(family, which studies its policies play) of every family with simulated agents of its own,
    in the registry's order (``study sim policies``)."""
    return [(family, module.STUDIES) for family, module in parts("sim")]


def make_family_policy(family: str, role: str, name: str, *, seed: int = 0, **context: Any) -> Any:
    """The Responder of ``family`` playing ``role`` by policy ``name`` (not for SOP-Bench's, which
    ``SimServer`` makes by name)."""
    return _module(family).make_policy(role, name, seed=seed, **context)
