"""The models table (``preregistration/models.yaml``) and how a session reaches its model.

A model is an alias of the table (the runtime it runs on and the API that runtime speaks, the API
model id, endpoint, list prices, the environment variable holding the key) or ``sim:<policy>``,
the built-in simulator, which needs neither key nor network and runs on any runtime (the table
gives, per runtime, the model id its CLI sends the simulator and the list prices it is charged
at). The list prices are what the runner's spending cap is priced with
(``study/runner/spending.py``). Any endpoint of the runtime's API can replace the table's one via
``--base-url`` or the runtime's variable (``ANTHROPIC_BASE_URL`` for Claude Code,
``OPENAI_BASE_URL`` for Codex CLI). A real model without an API key stops before anything starts;
the form of the key and of the URL (and whether the endpoint answers at all) is checked by
``study/runner/preflight.py``.

An alias (and a simulator stand-in) may give the generation settings its runtime passes to the
CLI (``settings``: ``MODEL_SETTINGS`` lists each runtime's, each checked against what the pinned
CLI really sends the model API); none: the CLI's own defaults, as the paper's Claude Code runs had.

A table written before the runtime seam (no ``runtime:`` keys, one ``simulator:`` entry) is read
as it always was: every model on Claude Code.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from study.errors import StudyError
from study.paths import prereg_dir

from .runtimes import DEFAULT_RUNTIME, RUNTIMES, runtime_named
from .yaml_file import read_yaml_file

SIM_PREFIX = "sim:"
#: The list prices a model needs (USD per million tokens) for the runner's spending cap to be applied mid-call.
PRICE_KEYS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")
#: The generation settings a models.yaml alias may give (``settings:``), per runtime: each key with
#: the values it takes (``int``: a whole number > 0). What each runtime's adapter makes of them, each
#: checked against the pinned CLI's requests to the simulator (docs/runtimes.md, "Generation
#: settings"): Codex CLI 0.169.0 ``reasoning_effort`` -> config.toml ``model_reasoning_effort`` (the
#: Responses API's ``reasoning.effort``), ``reasoning_summary`` -> ``model_reasoning_summary``
#: (``reasoning.summary``); Claude Code 2.1.332 ``reasoning_effort`` -> ``--effort``
#: (``output_config.effort``, sent for the models that take one: not Claude Haiku 4.5),
#: ``thinking`` -> ``--thinking`` (``thinking.type``), ``thinking_budget`` -> ``--max-thinking-tokens``
#: (``thinking.budget_tokens``, for the models with a fixed budget).
MODEL_SETTINGS: dict[str, dict[str, tuple[str, ...] | type]] = {
    "codex": {"reasoning_effort": ("none", "minimal", "low", "medium", "high", "xhigh"),
              "reasoning_summary": ("auto", "concise", "detailed", "none")},
    "claude-code": {"reasoning_effort": ("low", "medium", "high", "xhigh", "max"),
                    "thinking": ("adaptive", "disabled"), "thinking_budget": int},
}


class ModelError(StudyError, ValueError):
    """Unknown model alias, missing endpoint or missing API key."""


@dataclass(frozen=True)
class Usage:
    """The token usage of one model response, in the price keys: uncached input, output, cache
    writes (5-minute and 1-hour lifetime) and cache reads. Each runtime's adapter reads its own
    API's usage into this form; :func:`price_usage` prices it (the runner's spending cap,
    the audit's check of a session's cost)."""

    input: int = 0
    output: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0
    cache_read: int = 0


def price_usage(usage: Usage, prices: dict[str, float]) -> float:
    """The list price in USD of one model response's usage (``prices``: a model's ``prices`` of
    models.yaml, USD per million tokens of each key)."""
    return (usage.input * prices["input"]
            + usage.output * prices["output"]
            + usage.cache_write_5m * prices["cache_write_5m"]
            + usage.cache_write_1h * prices["cache_write_1h"]
            + usage.cache_read * prices["cache_read"]) / 1_000_000


@dataclass(frozen=True)
class ModelEntry:
    alias: str
    model_id: str
    endpoint: str | None
    api_key_env: str
    prices_per_mtok: dict[str, float] | None
    runtime: str = DEFAULT_RUNTIME
    api: str = RUNTIMES[DEFAULT_RUNTIME].api
    #: the generation settings its runtime passes to the CLI (``MODEL_SETTINGS``; empty: the CLI's defaults)
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StandIn:
    """The model a runtime's CLI is told it talks to when it talks to the simulator (with the
    settings of the model it stands in for, so that the simulated sessions pass them as real ones do)."""

    model_id: str
    prices_per_mtok: dict[str, float]
    settings: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ResolvedModel:
    """Everything a session needs to reach its model."""

    name: str                 # as given: an alias or sim:<policy>
    model_id: str             # what the CLI sends as "model"
    base_url: str | None      # None for the simulator (its port is known only when it starts)
    api_key: str
    simulated: bool
    policy: str | None        # the simulator policy, or None
    prices_per_mtok: dict[str, float] | None
    api_key_env: str | None = None      # the variable the key came from (None for the simulator)
    base_url_source: str | None = None  # where base_url came from: --base-url, the runtime's variable or models.yaml
    runtime: str = DEFAULT_RUNTIME      # the agent runtime the session runs on
    api: str = RUNTIMES[DEFAULT_RUNTIME].api   # the model API that runtime speaks
    #: the generation settings the runtime passes to its CLI (models.yaml's ``settings``; empty: its defaults)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def folder_name(self) -> str:
        """The model's folder under sessions/ (``sim:oracle`` -> ``sim-oracle``). The simulator on
        another runtime than Claude Code gets the runtime after an ``@`` (``sim-oracle@codex``):
        a real alias names its runtime itself."""
        folder = self.name.replace(":", "-").replace("/", "-")
        return f"{folder}@{self.runtime}" if self.simulated and self.runtime != DEFAULT_RUNTIME else folder


@dataclass(frozen=True)
class ModelsTable:
    default: str
    models: dict[str, ModelEntry]
    #: runtime -> the simulator's stand-in model on that runtime
    simulators: dict[str, StandIn]

    @property
    def simulator_model_id(self) -> str:
        """The stand-in model id Claude Code sends the simulator."""
        return self.simulators[DEFAULT_RUNTIME].model_id

    @property
    def simulator_prices(self) -> dict[str, float]:
        return self.simulators[DEFAULT_RUNTIME].prices_per_mtok


def _prices(path: Path, owner: str, raw: object, *, required: bool) -> dict[str, float] | None:
    """A validated ``prices_per_mtok`` mapping (``null`` allowed unless ``required``)."""
    if raw is None and not required:
        return None
    if not isinstance(raw, dict) or sorted(raw) != sorted(PRICE_KEYS) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in raw.values()):
        raise ModelError(f"{path}: {owner}: prices_per_mtok must map exactly {list(PRICE_KEYS)} to USD per "
                         f"million tokens (numbers >= 0){'' if required else ', or be null'}; got {raw!r}")
    return {k: float(v) for k, v in raw.items()}


def _settings(path: Path, owner: str, runtime: str, raw: object) -> dict[str, Any]:
    """A validated ``settings`` mapping of a model on ``runtime`` (None or absent: {})."""
    if raw is None:
        return {}
    known = MODEL_SETTINGS.get(runtime, {})
    if not isinstance(raw, dict):
        raise ModelError(f"{path}: {owner}: settings must map generation settings to values ({', '.join(known)} "
                         f"on {runtime}); got {raw!r}")
    for key, value in raw.items():
        allowed = known.get(key)
        if allowed is None:
            raise ModelError(f"{path}: {owner}: {key!r} is no generation setting {runtime} passes; its settings are "
                             f"{', '.join(known) or 'none'}")
        if allowed is int:
            good = isinstance(value, int) and not isinstance(value, bool) and value > 0
        else:
            good = isinstance(value, str) and value in allowed
        if not good:
            kinds = "a whole number > 0" if allowed is int else f"one of {', '.join(allowed)}"  # type: ignore[arg-type]
            raise ModelError(f"{path}: {owner}: settings.{key} must be {kinds} on {runtime}, not {value!r}")
    if raw.get("thinking") == "disabled" and "thinking_budget" in raw:
        raise ModelError(f"{path}: {owner}: settings give a thinking_budget with thinking disabled; leave one out")
    return dict(raw)


def _runtime_of(path: Path, owner: str, body: dict) -> tuple[str, str]:
    """The runtime a model entry names (default: Claude Code) and the API it gives (which must be
    the runtime's)."""
    name = body.get("runtime", DEFAULT_RUNTIME)
    try:
        runtime = runtime_named(name if isinstance(name, str) else repr(name))
    except KeyError as exc:
        raise ModelError(f"{path}: {owner}: {exc.args[0]}") from None
    api = body.get("api", runtime.api)
    if api != runtime.api:
        raise ModelError(f"{path}: {owner}: runtime {runtime.name} speaks the {runtime.api} API, not {api!r}; "
                         f"write api: {runtime.api} or leave it out")
    return runtime.name, runtime.api


def _simulators(path: Path, raw: object) -> dict[str, StandIn]:
    """``simulator:`` as one stand-in (a table written before the runtime seam: Claude Code's) or
    one per runtime name."""
    if not isinstance(raw, dict):
        raise KeyError("simulator")
    entries = {DEFAULT_RUNTIME: raw} if "model_id" in raw else raw
    out: dict[str, StandIn] = {}
    for name, body in entries.items():
        if name not in RUNTIMES:
            raise ModelError(f"{path}: simulator: unknown runtime {name!r}; the runtimes are {', '.join(RUNTIMES)}")
        out[name] = StandIn(str(body["model_id"]), _prices(path, f"simulator on {name}", body.get("prices_per_mtok"),
                                                             required=True),
                            _settings(path, f"simulator on {name}", name, body.get("settings")))
    if DEFAULT_RUNTIME not in out:
        raise ModelError(f"{path}: simulator: needs a stand-in for {DEFAULT_RUNTIME}")
    return out


def load_models(path: Path | None = None) -> ModelsTable:
    path = Path(path) if path is not None else prereg_dir() / "models.yaml"
    raw = read_yaml_file(path, ModelError)
    try:
        models = {}
        for alias, body in raw["models"].items():
            runtime, api = _runtime_of(path, alias, body)
            models[alias] = ModelEntry(
                alias=alias,
                model_id=str(body["model_id"]),
                endpoint=body.get("endpoint"),
                api_key_env=str(body.get("api_key_env", "ANTHROPIC_API_KEY")),
                prices_per_mtok=_prices(path, alias, body.get("prices_per_mtok"), required=False),
                runtime=runtime, api=api, settings=_settings(path, alias, runtime, body.get("settings")),
            )
        table = ModelsTable(default=raw["default"], models=models, simulators=_simulators(path, raw["simulator"]))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"{path}: malformed models table ({exc!r}); each model needs model_id, endpoint, api_key_env, prices_per_mtok") from None
    if table.default not in models:
        raise ModelError(f"{path}: default model {table.default!r} is not in the table")
    return table


def resolve_model(name: str | None, base_url: str | None = None, environ: Mapping[str, str] | None = None,
                  table: ModelsTable | None = None, runtime: str | None = None) -> ResolvedModel:
    """Resolve ``name`` to a runtime, an endpoint and a key; raise ModelError saying what to do if
    it cannot. ``runtime`` (``--runtime``) chooses the simulator's runtime; for a real alias it
    must be the alias's own (the table says which runtime a model runs on)."""
    env = os.environ if environ is None else environ
    table = table or load_models()
    name = name or table.default
    if runtime is not None and runtime not in RUNTIMES:
        raise ModelError(f"unknown runtime {runtime!r}; the runtimes are {', '.join(RUNTIMES)}")
    if name.startswith(SIM_PREFIX):
        policy = name[len(SIM_PREFIX):]
        if not policy:
            raise ModelError("sim: needs a policy, e.g. --model sim:oracle (see `study sim --help`)")
        on = runtime_named(runtime)
        stand_in = table.simulators.get(on.name)
        if stand_in is None:
            raise ModelError(f"the models table has no simulator stand-in for {on.name}: add one under "
                             f"simulator: in preregistration/models.yaml")
        return ResolvedModel(name=name, model_id=stand_in.model_id, base_url=None, api_key="sim-no-key",
                             simulated=True, policy=policy, prices_per_mtok=stand_in.prices_per_mtok,
                             runtime=on.name, api=on.api, settings=dict(stand_in.settings))
    entry = table.models.get(name)
    if entry is None:
        raise ModelError(
            f"unknown model {name!r}; models of preregistration/models.yaml: {', '.join(table.models)}; "
            "or sim:<policy> for the offline simulator (e.g. sim:oracle)"
        )
    if runtime is not None and runtime != entry.runtime:
        raise ModelError(f"model {name!r} runs on {entry.runtime} (preregistration/models.yaml), not on {runtime}: "
                         f"leave --runtime out, or run the simulator there (--model sim:<policy> --runtime {runtime})")
    url_env = runtime_named(entry.runtime).base_url_env
    if base_url:
        url, source = base_url, "--base-url"
    elif env.get(url_env):
        url, source = env[url_env], url_env
    else:
        url, source = entry.endpoint, f"the endpoint of {name} in preregistration/models.yaml"
    if not url:
        raise ModelError(
            f"model {name!r} has no default endpoint: give --base-url URL or set {url_env} to an "
            f"endpoint of the {entry.api} API (a relay or a local server)"
        )
    key = env.get(entry.api_key_env)
    if not key:
        raise ModelError(
            f"model {name!r} needs an API key: set {entry.api_key_env} (export {entry.api_key_env}=...) "
            f"for {url}. To run offline without a key, use the simulator: --model sim:oracle "
            "(or `study demo`)."
        )
    return ResolvedModel(name=name, model_id=entry.model_id, base_url=url, api_key=key, simulated=False,
                         policy=None, prices_per_mtok=entry.prices_per_mtok, api_key_env=entry.api_key_env,
                         base_url_source=source, runtime=entry.runtime, api=entry.api, settings=dict(entry.settings))
