"""One τ²-bench simulation, driven one agent message at a time, and tau2's evaluator.

tau2's own ``Orchestrator`` runs the conversation (its environment executes every tool, its user
simulator plays the customer, its loop applies the step and error limits and ends the
conversation as the benchmark does) in a thread, with tau2's ``GymAgent`` as the agent: the
orchestrator waits in ``GymAgent.generate_next_message`` until :meth:`Conversation.act` hands it
the agent's next message, then runs until it is the agent's turn again (the tool's result, or
the customer's reply after any device actions of its own) or the conversation has ended. This
is what tau2's ``AgentGymEnv`` does; it is reimplemented here (about forty lines) because
``AgentGymEnv`` builds the task from the registry on every step, takes the action as a string
it parses (a customer message that looks like ``f(x=1)`` would become a tool call), fixes the
step limit at 100 and passes no seed, and evaluates without NL assertions. The settings here
are tau2's run defaults: 200 steps, 10 errors, the seed of trial 0 under tau2's seed 300.

The record: :meth:`Conversation.simulation` is tau2's ``SimulationRun`` (what ``tau2 run``
saves), which :func:`evaluate` scores with tau2's evaluator.

The spend: every model tau2 calls (the customer, the judge) is called through LiteLLM's
``completion`` in ``tau2.utils.llm_utils``; :func:`import_tau2` wraps that one function (once per
process), so that each response's usage reaches the meter its endpoint names (a
:class:`ModelEndpoint`'s ``meter``, passed to tau2 as the LiteLLM argument ``METER_ARG``, which
the wrapper takes out before LiteLLM sees it): the runner prices it, logs it and counts it against
the session's spending cap (``study.runner.spending.SideSpend``).
"""

from __future__ import annotations

import itertools
import random
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from study.protocol.models import Usage

from .data import use_paper_data

#: tau2's defaults for ``tau2 run`` (tau2/config.py): steps, errors, seed.
MAX_STEPS = 200
MAX_ERRORS = 10
TAU2_SEED = 300
#: How long one agent action may wait for the orchestrator (a customer model's answer included).
ACT_TIMEOUT_S = 900.0
#: What tau2's agent says to end the conversation (GymAgent.STOP_TOKEN).
AGENT_STOP = "###STOP###"


def trial_seed(seed: int = TAU2_SEED, trial: int = 0) -> int:
    """The seed tau2's ``run_tasks`` gives trial ``trial`` when run with ``seed`` (tau2/run.py:
    ``random.seed(seed)``, then one ``randint(0, 1000000)`` per trial)."""
    rng = random.Random(seed)
    seeds = [rng.randint(0, 1000000) for _ in range(trial + 1)]
    return seeds[trial]


#: The LiteLLM argument naming the meter of a model tau2 calls (taken out before LiteLLM sees it).
METER_ARG = "study_meter"
#: meter id -> what to tell of each response's usage (``register_meter``)
_METERS: dict[str, Callable[[Usage], None]] = {}
_meters_lock = threading.Lock()


def import_tau2() -> None:
    """Import tau2 quietly and offline, reading the paper's data (``data.use_paper_data``), with
    its LiteLLM calls metered (``_metered``)."""
    use_paper_data()
    _metered()


def register_meter(on_usage: Callable[[Usage], None] | None) -> str | None:
    """A meter id for a :class:`ModelEndpoint`: each response of a call that names it is told to
    ``on_usage`` (None: no meter)."""
    if on_usage is None:
        return None
    meter = uuid.uuid4().hex
    with _meters_lock:
        _METERS[meter] = on_usage
    return meter


def litellm_usage(response: Any) -> Usage:
    """A LiteLLM response's usage in the price keys: the prompt less its cached and cache-written
    parts (OpenAI's ``prompt_tokens_details.cached_tokens``; Anthropic's ``cache_read_input_tokens``
    and ``cache_creation_input_tokens``, which LiteLLM counts in ``prompt_tokens``), the completion
    (reasoning included) as output."""
    usage = getattr(response, "usage", None)
    if usage is None and isinstance(response, dict):
        usage = response.get("usage")

    def tokens(obj: Any, key: str) -> int:
        value = obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
        return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else 0

    if usage is None:
        return Usage()
    key = "prompt_tokens_details"
    details = usage.get(key) if isinstance(usage, dict) else getattr(usage, key, None)
    cached = tokens(details, "cached_tokens") if details is not None else 0
    cached = cached or tokens(usage, "cache_read_input_tokens")
    written = tokens(usage, "cache_creation_input_tokens")
    prompt = tokens(usage, "prompt_tokens")
    return Usage(input=max(prompt - cached - written, 0), output=tokens(usage, "completion_tokens"),
                 cache_write_5m=written, cache_read=cached)


def _metered() -> None:
    """Wrap ``tau2.utils.llm_utils.completion`` (what tau2's ``generate`` calls for the customer and
    the judge) so that a call naming a meter (``METER_ARG``) tells it the response's usage."""
    from tau2.utils import llm_utils

    with _meters_lock:
        if getattr(llm_utils.completion, "study_metered", False):
            return
        completion = llm_utils.completion

        def metered(*args: Any, **kwargs: Any) -> Any:
            meter = _METERS.get(kwargs.pop(METER_ARG, None) or "")
            response = completion(*args, **kwargs)
            if meter is not None:
                meter(litellm_usage(response))
            return response

        metered.study_metered = True  # type: ignore[attr-defined]
        llm_utils.completion = metered


@dataclass(frozen=True)
class ModelEndpoint:
    """A model tau2 reaches through LiteLLM: the customer (user simulator) or the NL-assertion judge.

    ``model``: the model id at the endpoint; ``api``: ``anthropic-messages`` (LiteLLM's
    ``anthropic/<model>``: the simulator, or Anthropic) or ``openai-chat`` (``openai/<model>``:
    OpenAI or any Chat Completions endpoint); ``base_url``: None for the provider's own;
    ``api_key``: None to use the provider's environment variable (the simulator takes any);
    ``args``: further LiteLLM arguments (``temperature``, ``reasoning_effort``); ``meter``: where
    each response's usage goes (``register_meter``; None: nowhere)."""

    model: str
    api: str = "anthropic-messages"
    base_url: str | None = None
    api_key: str | None = None
    args: tuple[tuple[str, Any], ...] = ()
    meter: str | None = None

    def litellm(self) -> tuple[str, dict[str, Any]]:
        """The LiteLLM model string and arguments tau2's ``generate`` is given."""
        prefix = {"anthropic-messages": "anthropic", "openai-chat": "openai"}.get(self.api)
        if prefix is None:
            raise ValueError(f"unknown model API {self.api!r}; choose anthropic-messages or openai-chat")
        args: dict[str, Any] = {"temperature": 0.0, **dict(self.args)}
        if self.base_url:
            args["api_base"] = self.base_url
        if self.api_key:
            args["api_key"] = self.api_key
        elif self.base_url and prefix == "anthropic":
            args["api_key"] = "sim-no-key"  # a local endpoint takes any key; LiteLLM insists on one
        if self.meter is not None:
            args[METER_ARG] = self.meter
        return f"{prefix}/{self.model}", args

    def describe(self) -> dict[str, Any]:
        """For the log: everything but the key."""
        return {"model": self.model, "api": self.api, "base_url": self.base_url, "args": dict(self.args)}


class ConversationError(RuntimeError):
    """The orchestrator failed (a customer model that cannot be reached, a tau2 error)."""


class Conversation:
    """One task's conversation; see the module docstring. Not thread-safe: one caller acts."""

    def __init__(self, domain: str, task: Any, customer: ModelEndpoint, *, max_steps: int = MAX_STEPS,
                 max_errors: int = MAX_ERRORS, seed: int | None = None):
        import_tau2()
        from tau2.gym.gym_agent import GymAgent
        from tau2.orchestrator.orchestrator import Orchestrator
        from tau2.registry import registry
        from tau2.user.user_simulator import UserSimulator

        self.domain = domain
        self.task = task
        self.customer = customer
        self.seed = trial_seed() if seed is None else seed
        self.max_steps = max_steps
        self.max_errors = max_errors
        environment = registry.get_env_constructor(domain)()
        self.tools = environment.get_tools()
        self.policy = environment.get_policy()
        try:
            user_tools = environment.get_user_tools()
        except ValueError:  # airline, retail: the customer has no tools
            user_tools = None
        model, args = customer.litellm()
        self.agent = GymAgent(tools=list(self.tools), domain_policy=self.policy)
        self.user = UserSimulator(tools=user_tools, instructions=str(task.user_scenario), llm=model, llm_args=args)
        self.orchestrator = Orchestrator(domain=domain, agent=self.agent, user=self.user, environment=environment,
                                         task=task, max_steps=max_steps, max_errors=max_errors, seed=self.seed)
        self._done = threading.Event()
        self._run: Any = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self.started_at: float | None = None

    # ----- running -----------------------------------------------------------------------------

    def _target(self) -> None:
        try:
            self._run = self.orchestrator.run()
        except BaseException as exc:  # noqa: BLE001 -- kept and reported by the caller, never lost
            self._error = exc
        finally:
            self._done.set()

    def _wait_for_agent_turn(self) -> None:
        deadline = time.monotonic() + ACT_TIMEOUT_S
        while not self._done.is_set() and not self.agent.is_agent_turn:
            if time.monotonic() > deadline:
                raise ConversationError(f"the conversation did not come back to the agent within {ACT_TIMEOUT_S:.0f} s")
            self._done.wait(0.005)

    def start(self) -> list[Any]:
        """Start the conversation: tau2's greeting goes to the customer; returns the messages
        up to the agent's first turn (the greeting and the customer's opening)."""
        if self._thread is not None:
            raise RuntimeError("the conversation has already started")
        self.started_at = time.monotonic()
        self._thread = threading.Thread(target=self._target, name="tau2-orchestrator", daemon=True)
        self._thread.start()
        self._wait_for_agent_turn()
        return list(self.orchestrator.trajectory)

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def act(self, message: Any) -> list[Any]:
        """Hand tau2 the agent's next message (an ``AssistantMessage``); return the messages the
        conversation added after it (the tool's result; or the customer's device actions, their
        results and its reply), once it is the agent's turn again or the conversation ended."""
        if not self.started:
            self.start()
        if self.done:
            raise ConversationError("the conversation has ended")
        before = len(self.orchestrator.trajectory)
        self.agent.set_action(message)
        self._wait_for_agent_turn()
        if self._error is not None:
            raise ConversationError(f"τ²-bench's orchestrator failed: {type(self._error).__name__}: {self._error}")
        return list(self.orchestrator.trajectory[before + 1:])

    def tool_call(self, name: str, arguments: dict[str, Any]) -> Any:
        """An ``AssistantMessage`` calling one tool."""
        from tau2.data_model.message import AssistantMessage, ToolCall

        call = ToolCall(id=f"call_{next(self._ids)}", name=name, arguments=dict(arguments), requestor="assistant")
        return AssistantMessage(role="assistant", content=None, tool_calls=[call])

    @staticmethod
    def text(content: str) -> Any:
        """An ``AssistantMessage`` saying ``content`` to the customer."""
        from tau2.data_model.message import AssistantMessage

        return AssistantMessage(role="assistant", content=content)

    def stop_as_agent(self) -> None:
        """End the conversation as tau2's agent does (``###STOP###``), if it has not ended."""
        if not self.started:
            self.start()
        if not self.done:
            self.act(self.text(AGENT_STOP))
        self.join()

    def join(self, timeout: float = 30.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # ----- the record --------------------------------------------------------------------------

    @property
    def error(self) -> BaseException | None:
        return self._error

    @property
    def termination_reason(self) -> str | None:
        """tau2's name for why the conversation ended (``user_stop``, ``agent_stop``,
        ``max_steps``, ``too_many_errors``, ...); ``error`` if the orchestrator failed; None while
        it runs."""
        if not self.done:
            return None
        if self._run is None:
            return "error"
        return str(getattr(self._run.termination_reason, "value", self._run.termination_reason))

    def simulation(self) -> Any:
        """tau2's ``SimulationRun`` of the ended conversation (for a failed orchestrator, one built
        from the trajectory so far, ``termination_reason`` ``agent_error``, as ``tau2 run`` records
        a failed sample, with the error in ``info``)."""
        if self._run is not None:
            return self._run
        from tau2.data_model.simulation import SimulationRun, TerminationReason
        from tau2.utils.utils import get_now

        now = get_now()
        return SimulationRun(id=f"{self.task.id}_failed", task_id=self.task.id, start_time=now, end_time=now,
                             duration=0.0, termination_reason=TerminationReason.AGENT_ERROR,
                             messages=list(self.orchestrator.trajectory), seed=self.seed)

    def trajectory(self) -> list[Any]:
        """Every message so far (tau2's orchestrator's trajectory)."""
        return list(self.orchestrator.trajectory)
