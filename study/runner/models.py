"""Moved to :mod:`study.protocol.models` (the readers of the preregistration live there); re-exported here
so the runner's old import path keeps working."""

from study.protocol.models import (  # noqa: F401
    SIM_PREFIX,
    PRICE_KEYS,
    ModelError,
    ModelEntry,
    ResolvedModel,
    ModelsTable,
    load_models,
    resolve_model,
)

__all__ = ["SIM_PREFIX", "PRICE_KEYS", "ModelError", "ModelEntry", "ResolvedModel", "ModelsTable", "load_models", "resolve_model"]
