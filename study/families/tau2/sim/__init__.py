"""The simulator's τ²-bench policies: the customer (tau2's user simulator's model) and the agents.

* ``customer.py``: :class:`Customer`, a ``Responder`` that answers tau2's user-simulator requests
  (LiteLLM's Anthropic Messages calls): it follows the task's user scenario, performs the device
  actions the agent asks for with its user tools, answers from its known information and ends the
  call (``###STOP###``) when the scenario's resolution holds (``###TRANSFER###`` after a transfer).
* ``agents.py``: the Telecom agent policies (``oracle``, ``goal-abandoner``, ``multi-repair``,
  ``adversarial``), API-neutral: ``next_action(view) -> Call | End``; ``desk.py``: Airline's and
  Retail's (``oracle``, ``adversarial``).
* ``responder.py``: :class:`AgentResponder` puts an agent policy behind the simulator for a real
  CLI (both APIs), reading what the CLI sends into the policy's view.
* ``speech.py``: how the simulated agent asks for a device action and how the customer
  recognises the request (one table, so the two agree).

The customer and the oracle may read the task's evaluation criteria (ground truth), given to them
by whoever runs the session; nothing the agent's tools, the workflow or the FSM see holds it.
"""

from typing import Any

from .agents import AGENT_POLICIES
from .customer import Customer
from .desk import DESK_POLICIES

#: The studies these policies play, as ``study sim policies`` heads their list (``study.sim.families``).
STUDIES = "a τ²-bench study (--study tau2-telecom; docs/tau2.md)"
#: The simulator's τ²-bench policies, by role (``study.sim.families``): the customer, the agents.
POLICIES: dict[str, dict[str, str]] = {
    "agent": {name: cls.description for name, cls in AGENT_POLICIES.items()},   # Airline, Retail: oracle, adversarial
    "customer": {"customer": "τ²-bench's customer (its user simulator's model): follows the task's user scenario, "
                             "performs the device actions the agent asks for with its user tools, answers from its "
                             "known information and ends the call when the scenario's resolution holds; it may read "
                             "the task's evaluation criteria, nothing the agent or the FSM sees."},
}


def make_agent(name: str, task: dict[str, Any], seed: int = 0, domain: str | None = None) -> Any:
    """The agent policy ``name`` for ``task`` (a dict); ``domain`` (default: the scenario's) picks
    Telecom's policies (``agents.py``) or the service desk's of Airline and Retail (``desk.py``)."""
    domain = domain or str(((task.get("user_scenario") or {}).get("instructions") or {}).get("domain") or "telecom")
    if domain not in ("airline", "retail"):
        from .agents import make_agent as telecom_agent

        return telecom_agent(name, task, seed)
    if name not in DESK_POLICIES:
        raise ValueError(f"the τ²-bench agent policy {name!r} is Telecom's; {domain}'s are {', '.join(DESK_POLICIES)}")
    return DESK_POLICIES[name](task, seed, domain=domain)


def study_policies(role: str, study: Any) -> tuple[str, ...]:
    """The policies sessions of ``study`` can have for ``role``: the customer; an agent of its
    domain (Telecom's, ``agents.py``; the service desk's of Airline and Retail, ``desk.py``)."""
    if role != "agent":
        return tuple(POLICIES.get(role, {}))
    params = getattr(study, "params", None)
    domain = params.get("domain") if isinstance(params, dict) else None
    return tuple(DESK_POLICIES) if domain in ("airline", "retail") else tuple(AGENT_POLICIES)


def task_truth(domain: str, task_id: str) -> dict[str, Any]:
    """The task as the simulator may read it (its user scenario and evaluation criteria)."""
    from study.families.tau2 import data

    return data.load_task(domain, task_id).model_dump(mode="json")


def make_policy(role: str, name: str, *, seed: int = 0, domain: str, task_id: str, condition: str | None = None) -> Any:
    """The Responder playing ``role`` (``agent``, ``customer``) of the session of ``task_id``."""
    task = task_truth(domain, task_id)
    if role == "customer":
        return Customer(task, seed)
    if role == "agent":
        from .responder import AgentResponder

        return AgentResponder(make_agent(name, task, seed, domain=domain))
    raise ValueError(f"the τ²-bench simulator has no {role!r} role; its roles are {', '.join(POLICIES)}")


__all__ = ["AGENT_POLICIES", "Customer", "DESK_POLICIES", "POLICIES", "make_agent", "make_policy", "study_policies",
           "task_truth"]
