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

from .agents import AGENT_POLICIES, make_agent
from .customer import Customer

__all__ = ["AGENT_POLICIES", "Customer", "make_agent"]
