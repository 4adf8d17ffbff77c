"""The models table (``preregistration/models.yaml``) and how a session reaches its model.

A model is an alias of the table (API model id, endpoint, list prices, the environment variable
holding the key) or ``sim:<policy>``, the built-in simulator, which needs neither key nor
network (the table gives its model id and the list prices the CLI charges it at). The list
prices are what the runner's spending cap is priced with (``study/runner/spending.py``). Any
Anthropic-compatible endpoint can replace the table's one via ``--base-url`` or
``ANTHROPIC_BASE_URL``. A real model without an API key stops before anything starts; the form
of the key and of the URL (and whether the endpoint answers at all) is checked by
``study/runner/preflight.py``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from study.errors import StudyError
from study.paths import prereg_dir

from .yaml_file import read_yaml_file

SIM_PREFIX = "sim:"
#: The list prices a model needs (USD per million tokens) for the runner's spending cap to be applied mid-call.
PRICE_KEYS = ("input", "output", "cache_write_5m", "cache_write_1h", "cache_read")


class ModelError(StudyError, ValueError):
    """Unknown model alias, missing endpoint or missing API key."""


@dataclass(frozen=True)
class ModelEntry:
    alias: str
    model_id: str
    endpoint: str | None
    api_key_env: str
    prices_per_mtok: dict[str, float] | None


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
    base_url_source: str | None = None  # where base_url came from: --base-url, ANTHROPIC_BASE_URL or models.yaml

    @property
    def folder_name(self) -> str:
        """The model's folder under sessions/ (``sim:oracle`` -> ``sim-oracle``)."""
        return self.name.replace(":", "-").replace("/", "-")


@dataclass(frozen=True)
class ModelsTable:
    default: str
    models: dict[str, ModelEntry]
    simulator_model_id: str
    simulator_prices: dict[str, float]


def _prices(path: Path, owner: str, raw: object, *, required: bool) -> dict[str, float] | None:
    """A validated ``prices_per_mtok`` mapping (``null`` allowed unless ``required``)."""
    if raw is None and not required:
        return None
    if not isinstance(raw, dict) or sorted(raw) != sorted(PRICE_KEYS) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 for v in raw.values()):
        raise ModelError(f"{path}: {owner}: prices_per_mtok must map exactly {list(PRICE_KEYS)} to USD per "
                         f"million tokens (numbers >= 0){'' if required else ', or be null'}; got {raw!r}")
    return {k: float(v) for k, v in raw.items()}


def load_models(path: Path | None = None) -> ModelsTable:
    path = Path(path) if path is not None else prereg_dir() / "models.yaml"
    raw = read_yaml_file(path, ModelError)
    try:
        models = {
            alias: ModelEntry(
                alias=alias,
                model_id=str(body["model_id"]),
                endpoint=body.get("endpoint"),
                api_key_env=str(body.get("api_key_env", "ANTHROPIC_API_KEY")),
                prices_per_mtok=_prices(path, alias, body.get("prices_per_mtok"), required=False),
            )
            for alias, body in raw["models"].items()
        }
        table = ModelsTable(default=raw["default"], models=models, simulator_model_id=raw["simulator"]["model_id"],
                            simulator_prices=_prices(path, "simulator", raw["simulator"].get("prices_per_mtok"),
                                                     required=True))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ModelError(f"{path}: malformed models table ({exc!r}); each model needs model_id, endpoint, api_key_env, prices_per_mtok") from None
    if table.default not in models:
        raise ModelError(f"{path}: default model {table.default!r} is not in the table")
    return table


def resolve_model(name: str | None, base_url: str | None = None, environ: Mapping[str, str] | None = None,
                  table: ModelsTable | None = None) -> ResolvedModel:
    """Resolve ``name`` to an endpoint and key; raise ModelError saying what to do if it cannot."""
    env = os.environ if environ is None else environ
    table = table or load_models()
    name = name or table.default
    if name.startswith(SIM_PREFIX):
        policy = name[len(SIM_PREFIX):]
        if not policy:
            raise ModelError("sim: needs a policy, e.g. --model sim:oracle (see `study sim --help`)")
        return ResolvedModel(name=name, model_id=table.simulator_model_id, base_url=None, api_key="sim-no-key",
                             simulated=True, policy=policy, prices_per_mtok=table.simulator_prices)
    entry = table.models.get(name)
    if entry is None:
        raise ModelError(
            f"unknown model {name!r}; models of preregistration/models.yaml: {', '.join(table.models)}; "
            "or sim:<policy> for the offline simulator (e.g. sim:oracle)"
        )
    if base_url:
        url, source = base_url, "--base-url"
    elif env.get("ANTHROPIC_BASE_URL"):
        url, source = env["ANTHROPIC_BASE_URL"], "ANTHROPIC_BASE_URL"
    else:
        url, source = entry.endpoint, f"the endpoint of {name} in preregistration/models.yaml"
    if not url:
        raise ModelError(
            f"model {name!r} has no default endpoint: give --base-url URL or set ANTHROPIC_BASE_URL to an "
            "Anthropic-compatible endpoint (a relay or a local server)"
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
                         base_url_source=source)
