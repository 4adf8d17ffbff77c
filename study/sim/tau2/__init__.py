"""The simulator's τ²-bench policies: the customer (tau2's user simulator's model) and the agents.

* ``customer.py``: :class:`Customer`, a ``Responder`` that answers tau2's user-simulator requests
  (LiteLLM's Anthropic Messages calls): it follows the task's user scenario, performs the device
  actions the agent asks for with its user tools, answers from its known information and ends the
  call (``###STOP###``) when the scenario's resolution holds (``###TRANSFER###`` after a transfer).
* ``agents.py``: the agent policies (``oracle``, ``goal-abandoner``, ``multi-repair``,
  ``adversarial``), API-neutral: ``next_action(view) -> Call | End``.
* ``responder.py``: :class:`AgentResponder` puts an agent policy behind the simulator for a real
  CLI (both APIs), reading what the CLI sends into the policy's view.
* ``speech.py``: how the simulated agent asks for a device action and how the customer
  recognises the request (one table, so the two agree).

The customer and the oracle may read the task's evaluation criteria (ground truth), given to them
by whoever runs the session; nothing the agent's tools, the workflow or the FSM see holds it.
"""

from typing import Any

from .agents import AGENT_POLICIES, make_agent
from .customer import Customer

#: The simulator's τ²-bench policies, by role (``study.sim.families``): the customer, the agents.
POLICIES: dict[str, dict[str, str]] = {
    "agent": {name: cls.description for name, cls in AGENT_POLICIES.items()},
    "customer": {"customer": "τ²-bench's customer (its user simulator's model): follows the task's user scenario, "
                             "performs the device actions the agent asks for with its user tools, answers from its "
                             "known information and ends the call when the scenario's resolution holds; it may read "
                             "the task's evaluation criteria, nothing the agent or the FSM sees."},
}


def task_truth(domain: str, task_id: str) -> dict[str, Any]:
    """The task as the simulator may read it (its user scenario and evaluation criteria)."""
    from study.families.tau2 import data

    return data.load_task(domain, task_id).model_dump(mode="json")


def make_policy(role: str, name: str, *, seed: int = 0, domain: str, task_id: str, condition: str | None = None) -> Any:
    """The Responder playing ``role`` (``agent``, ``customer``) of the session of ``task_id``."""
    task = task_truth(domain, task_id)
    if role == "customer":
        return Customer(task)
    if role == "agent":
        from .responder import AgentResponder

        return AgentResponder(make_agent(name, task, seed))
    raise ValueError(f"the τ²-bench simulator has no {role!r} role; its roles are {', '.join(POLICIES)}")


__all__ = ["AGENT_POLICIES", "Customer", "POLICIES", "make_agent", "make_policy", "task_truth"]
