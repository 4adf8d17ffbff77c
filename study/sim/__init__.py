"""The offline simulator: a scripted model behind the Anthropic and OpenAI APIs, for a real CLI.
Layer 7: may import the foundations and layers 1-6 (docs/architecture.md).

Only the model is simulated: the real Claude Code CLI, the MCP tools, the hooks and the FSM run
as in a real session. ``SimServer`` is the server (``server.py``); the policies are in
``policies.py`` and ``plans.py`` (and ``proposer.py``); ``truth.py`` writes and reads the ground truth
(``sim_truth.jsonl``, ``route_counts``); ``faults.py`` the forced compaction and faults;
``cli.py`` the ``study sim`` command. Another task family's simulated models (the agent, a
customer beside it, an agent in a workspace) are ``Responder`` policies of the family's ``sim``
part (``study.families.<family>.sim``, found through ``study.families.registry``: ``families.py``),
which may act through ``acting/`` (scripted agents that work with the CLI's own tools). Numbers
from simulated sessions are never results.
"""

from .policies import POLICIES, make_policy
from . import proposer  # noqa: F401  (registers the ``proposer`` policy)
from .families import family_policy_names, make_family_policy
from .server import DEFAULT_MODEL_ID, SimServer
from .truth import route_counts

__all__ = ["SimServer", "POLICIES", "make_policy", "route_counts", "DEFAULT_MODEL_ID", "family_policy_names",
           "make_family_policy"]
