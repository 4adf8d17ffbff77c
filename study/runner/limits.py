"""The external limits of a session, read from ``preregistration/limits.yaml``.

Each limit ends the session with status ``limit:<name>``, ``<name>`` being one of ``LIMIT_NAMES``.
Tests and development runs pass overrides (tiny values) instead of editing the frozen file; the
effective values are recorded in the session's ``session_start`` event, and a session with
overrides is exploratory.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

import yaml

from study.paths import prereg_dir

#: Limit names as they appear in statuses (``limit:<name>``).
LIMIT_NAMES = (
    "spending", "turns", "no_decision", "stop_blocks", "resumes", "resumes_without_decision", "wall_time",
)


class LimitsError(ValueError):
    """limits.yaml is malformed, or an override names an unknown limit."""


@dataclass(frozen=True)
class Limits:
    """The effective limits of one session (for one model)."""

    spending_usd: float            # spending cap of the session, at list price
    turns: int                     # max_turns of each query() call
    no_decision_s: float           # end after this long without a new decision
    stop_blocks: int               # consecutive stop-gate blocks (CLAUDE_CODE_STOP_HOOK_BLOCK_CAP)
    resumes: int                   # resumes per session
    resumes_without_decision: int  # consecutive resumes without a new decision
    wall_time_s: float             # wall time of the session

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


#: Override keys, for ``load_limits(overrides=...)`` and ``--limit name=value``.
OVERRIDE_KEYS = tuple(f.name for f in fields(Limits))


def _per_model(path: Path, raw: dict, key: str, model: str) -> float:
    value = raw.get(key)
    if isinstance(value, dict):
        if model in value:
            value = value[model]
        elif "default" in value:
            value = value["default"]
        else:
            raise LimitsError(f"{path}: {key} has no entry for model {model!r} and no 'default'")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
        raise LimitsError(f"{path}: {key} must be a positive number (or a mapping of model -> number), not {value!r}")
    return float(value)


def load_limits(model: str, overrides: dict[str, float] | None = None, path: Path | None = None) -> Limits:
    """The limits for ``model`` (an alias of models.yaml or ``sim:<policy>``), with overrides."""
    path = Path(path) if path is not None else prereg_dir() / "limits.yaml"
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LimitsError(f"{path} is missing; restore it from the repository (git checkout -- {path})") from None
    if not isinstance(raw, dict):
        raise LimitsError(f"{path}: expected a mapping of limits")
    limits = Limits(
        spending_usd=_per_model(path, raw, "spending", model),
        turns=int(_per_model(path, raw, "turns", model)),
        no_decision_s=60 * _per_model(path, raw, "no_decision_minutes", model),
        stop_blocks=int(_per_model(path, raw, "stop_blocks", model)),
        resumes=int(_per_model(path, raw, "resumes", model)),
        resumes_without_decision=int(_per_model(path, raw, "resumes_without_decision", model)),
        wall_time_s=3600 * _per_model(path, raw, "wall_time_hours", model),
    )
    if overrides:
        unknown = sorted(set(overrides) - set(OVERRIDE_KEYS))
        if unknown:
            raise LimitsError(f"unknown limit override(s) {unknown}; valid: {list(OVERRIDE_KEYS)}")
        typed = {k: (int(v) if k in ("turns", "stop_blocks", "resumes", "resumes_without_decision") else float(v))
                 for k, v in overrides.items()}
        limits = replace(limits, **typed)
    return limits


def parse_override(text: str) -> tuple[str, float]:
    """``name=value`` from the command line, e.g. ``no_decision_s=30``."""
    name, sep, value = text.partition("=")
    if not sep or name not in OVERRIDE_KEYS:
        raise LimitsError(f"--limit expects name=value with name one of {list(OVERRIDE_KEYS)}, got {text!r}")
    try:
        return name, float(value)
    except ValueError:
        raise LimitsError(f"--limit {name}: {value!r} is not a number") from None
