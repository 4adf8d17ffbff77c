"""The external limits of a session, read from ``preregistration/limits.yaml``.

Each limit ends the session with status ``limit:<name>``. The names come from one place,
``study.session_io.vocabulary.Limit``: ``Limit.X.value`` is the name a status carries,
``Limit.X.yaml_key`` the key in limits.yaml, ``Limit.X.field`` the attribute of ``Limits`` and the
``--limit NAME=VALUE`` override key. Every value, from the file or an override, must be a finite
positive number (a whole number for the counted limits): ``nan`` would switch a cap off and ``0``
or ``-1`` would end the session at once.

``EXPLORATORY_ONLY`` limits (``exploratory_gate_refusals_without_decision``) apply to the
exploratory conditions alone: a session of the nine preregistered conditions never has them.

Tests and development runs pass overrides (tiny values) instead of editing the frozen file; the
effective values are recorded in the session's ``session_start`` event, and a session with
overrides is exploratory.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from study.errors import StudyError
from study.paths import prereg_dir
from study.session_io.vocabulary import Limit

from .yaml_file import read_yaml_file


class LimitsError(StudyError, ValueError):
    """limits.yaml is malformed, or an override names an unknown limit or a value that is not a
    finite positive number."""


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
    #: consecutive tool-gate refusals without a new decision (exploratory conditions only; None: no such limit)
    gate_refusals: int | None = None
    #: a run of fresh contexts: its budget, checked before each context starts (None: no such limit)
    budget_usd: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The limits as recorded; a limit the session does not have (None) is left out."""
        return {k: v for k, v in asdict(self).items() if v is not None or k not in _OPTIONAL}


#: Override keys, for ``load_limits(overrides=...)`` and ``--limit name=value`` (the ``Limits`` fields).
OVERRIDE_KEYS = tuple(limit.field for limit in Limit)

#: limits.yaml gives these in minutes or hours; ``Limits`` holds seconds.
_SECONDS_PER_UNIT = {Limit.NO_DECISION: 60, Limit.WALL_TIME: 3600}
#: Counted limits: whole numbers.
_COUNTED = frozenset({Limit.TURNS, Limit.STOP_BLOCKS, Limit.RESUMES, Limit.RESUMES_WITHOUT_DECISION,
                      Limit.GATE_REFUSALS})
#: Limits of the exploratory conditions only: a preregistered condition never has them (unless
#: overridden, which makes the session exploratory), and limits.yaml may leave them out.
EXPLORATORY_ONLY = frozenset({Limit.GATE_REFUSALS})
#: Limits a session has only where limits.yaml sets them: the budget of a run of fresh contexts
#: (the staged protocols' studies).
WHERE_SET = frozenset({Limit.BUDGET})
_OPTIONAL = frozenset(limit.field for limit in EXPLORATORY_ONLY | WHERE_SET)
_BY_FIELD = {limit.field: limit for limit in Limit}


def _checked(limit: Limit, value: object, where: str) -> float:
    """``value`` as a finite positive number (whole for counted limits), else LimitsError naming ``where``."""
    number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    if number is None or not math.isfinite(number) or number <= 0:
        raise LimitsError(f"{where} must be a finite number > 0, not {value!r}")
    if limit in _COUNTED and number != int(number):
        raise LimitsError(f"{where} is a count: give a whole number >= 1, not {value!r}")
    return float(number)


def _per_model(path: Path, raw: dict, limit: Limit, model: str) -> float:
    key = limit.yaml_key
    value = raw.get(key)
    if isinstance(value, dict):
        if model in value:
            value = value[model]
        elif "default" in value:
            value = value["default"]
        else:
            raise LimitsError(f"{path}: {key} has no entry for model {model!r} and no 'default'")
    return _checked(limit, value, f"{path}: {key} (for {model})")


def _typed(limit: Limit, value: float) -> int | float:
    return int(value) if limit in _COUNTED else float(value)


def load_limits(model: str, overrides: dict[str, float] | None = None, path: Path | None = None, *,
                exploratory_condition: bool = False) -> Limits:
    """The limits for ``model`` (an alias of models.yaml or ``sim:<policy>``), with overrides;
    the ``EXPLORATORY_ONLY`` ones only for an exploratory condition (and only if limits.yaml has them)."""
    path = Path(path) if path is not None else prereg_dir() / "limits.yaml"
    raw = read_yaml_file(path, LimitsError,
                         invalid="{path} is not valid YAML (line {line}: {message}); restore it from the repository")
    if not isinstance(raw, dict):
        raise LimitsError(f"{path}: expected a mapping of limits")
    values = {limit.field: _typed(limit, _per_model(path, raw, limit, model) * _SECONDS_PER_UNIT.get(limit, 1))
              for limit in Limit if (limit not in EXPLORATORY_ONLY and limit not in WHERE_SET)
              or (limit in WHERE_SET and raw.get(limit.yaml_key) is not None)
              or (exploratory_condition and limit in EXPLORATORY_ONLY and raw.get(limit.yaml_key) is not None)}
    for name, value in (overrides or {}).items():
        limit = _BY_FIELD.get(name)
        if limit is None:
            raise LimitsError(f"unknown limit override {name!r}; valid: {list(OVERRIDE_KEYS)}")
        values[name] = _typed(limit, _checked(limit, value, f"--limit {name}"))
    return Limits(**values)


def parse_override(text: str) -> tuple[str, float]:
    """``name=value`` from the command line, e.g. ``no_decision_s=30``: a known name and a finite
    positive number (whole for counted limits)."""
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or name not in _BY_FIELD:
        raise LimitsError(f"--limit expects name=value with name one of {list(OVERRIDE_KEYS)}, got {text!r}")
    try:
        number = float(value)
    except ValueError:
        raise LimitsError(f"--limit {name}: {value!r} is not a number; give a finite number > 0") from None
    return name, _checked(_BY_FIELD[name], number, f"--limit {name}")
