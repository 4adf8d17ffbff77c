"""The frozen conditions, read from ``preregistration/conditions.yaml``: the preregistered ones
(its ``conditions`` block, the nine of the paper in its order) and the exploratory conditions
outside the preregistered set (its ``exploratory_conditions`` block).

The file is the only list of conditions: :func:`condition_names` (the runner's default matrix),
the analysis' row order (``analysis.tables.condition_order``) and the corpus generator's
conditions are read from it.

A condition is only its factors (where the SOP appears, the reminder, resumption and the
workflow with its enforcement points); the runner derives everything else from them. The
loader validates the file completely, so a typo in the frozen file stops a run before anything
starts, with the file and the fix in the message. An exploratory condition has the same factors;
``Condition.exploratory`` marks it, and every session of it is exploratory.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from study.errors import StudyError
from study.paths import prereg_dir

from .yaml_file import read_yaml_file

#: Values CLAUDE_CODE_TOTAL_TOKENS_REMINDER accepts (CLI 2.1.332), plus "default" (leave unset).
TOKEN_REMINDER_VALUES = ("default", "off", "infinite", "fixed", "countdown", "padded-countdown")


class ConditionError(StudyError, ValueError):
    """conditions.yaml is malformed, or a condition name is unknown."""


@dataclass(frozen=True)
class Condition:
    """One condition's factors (see the comments at the top of conditions.yaml)."""

    name: str
    sop_in_system_prompt: bool
    reminder: bool | str          # true: texts/reminder.md; a file name: that text of texts/ (FSM-lean's)
    resume: bool
    workflow: str | None
    tool_gate: bool
    stop_gate: bool
    fsm_paragraph: bool | str     # true: texts/fsm_paragraph.md; a file name: that text of texts/
    state_in_message: bool
    exploratory: bool = False     # from the exploratory_conditions block: outside the preregistered set
    #: optional, exploratory conditions only (FSM-propose): the agent may propose workflow changes
    #: (propose_workflow_change); never applied mid-session. Left out of as_dict() when false.
    proposals: bool = False

    @property
    def uses_fsm(self) -> bool:
        return self.workflow is not None

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "proposals" or self.proposals}


@dataclass(frozen=True)
class CliSettings:
    """Claude Code settings shared by all conditions."""

    token_reminder: str
    disable_nonessential_traffic: bool


@dataclass(frozen=True)
class ConditionsFile:
    conditions: dict[str, Condition]      # the nine preregistered conditions, in order
    cli_settings: CliSettings
    exploratory: dict[str, Condition]     # outside the preregistered set

    def get(self, name: str) -> Condition:
        """The condition called ``name`` (preregistered or exploratory); an unknown name is
        refused with the valid ones, the exploratory ones named as such."""
        found = self.conditions.get(name) or self.exploratory.get(name)
        if found is None:
            extra = (f"; exploratory (outside the preregistered set): {', '.join(self.exploratory)}"
                     if self.exploratory else "")
            raise ConditionError(f"unknown condition {name!r}; valid conditions: {', '.join(self.conditions)}{extra}")
        return found


#: Factors a condition may leave out (an exploratory condition's only), with their defaults.
_OPTIONAL_FACTORS = {"proposals": False}
_FACTORS = {f.name: f.type for f in fields(Condition) if f.name not in ("name", "exploratory", *_OPTIONAL_FACTORS)}


def _check_condition(path: Path, name: str, raw: Any, *, exploratory: bool = False) -> Condition:
    if not isinstance(raw, dict):
        raise ConditionError(f"{path}: condition {name!r} must be a mapping of its factors {sorted(_FACTORS)}")
    missing = sorted(set(_FACTORS) - set(raw))
    extra = sorted(set(raw) - set(_FACTORS) - (set(_OPTIONAL_FACTORS) if exploratory else set()))
    if missing or extra:
        raise ConditionError(
            f"{path}: condition {name!r}: missing factors {missing}, unknown factors {extra}; "
            f"each condition has exactly {sorted(_FACTORS)}"
        )
    for key, value in raw.items():
        if key == "workflow":
            if value is not None and not (isinstance(value, str) and value.endswith(".yaml")):
                raise ConditionError(f"{path}: condition {name!r}: workflow must be a .yaml file name or null, not {value!r}")
        elif key in ("fsm_paragraph", "reminder") and isinstance(value, str):
            if not value.endswith(".md"):
                raise ConditionError(f"{path}: condition {name!r}: {key} must be true, false or a .md file "
                                     f"name under texts/, not {value!r}")
        elif not isinstance(value, bool):
            raise ConditionError(f"{path}: condition {name!r}: {key} must be true or false, not {value!r}")
    cond = Condition(name=name, exploratory=exploratory, **raw)
    if cond.proposals and not cond.workflow:
        raise ConditionError(f"{path}: condition {name!r}: proposals needs a workflow to propose changes to")
    if cond.workflow is None and (cond.tool_gate or cond.stop_gate or cond.fsm_paragraph or cond.state_in_message):
        raise ConditionError(
            f"{path}: condition {name!r} uses a gate, the FSM paragraph or the state sentence without a workflow; "
            "set workflow to a file of preregistration/workflows/ or turn them off"
        )
    return cond


def load_conditions(path: Path | None = None) -> ConditionsFile:
    """Read and validate conditions.yaml (default: the preregistration's)."""
    path = Path(path) if path is not None else prereg_dir() / "conditions.yaml"
    raw = read_yaml_file(path, ConditionError)
    if not isinstance(raw, dict) or not isinstance(raw.get("conditions"), dict) or not raw["conditions"]:
        raise ConditionError(f"{path}: expected a mapping with a non-empty 'conditions' mapping")
    block = raw.get("exploratory_conditions") or {}
    if not isinstance(block, dict):
        raise ConditionError(f"{path}: exploratory_conditions must be a mapping of condition names to factors")
    odd = [name for name in (*raw["conditions"], *block) if not isinstance(name, str) or not name.strip()]
    if odd:
        raise ConditionError(f"{path}: condition names must be non-empty text, not {odd}")
    conditions = {name: _check_condition(path, name, body) for name, body in raw["conditions"].items()}
    clash = sorted(set(block) & set(conditions))
    if clash:
        raise ConditionError(f"{path}: exploratory conditions {clash} reuse preregistered names; give them other names")
    exploratory = {name: _check_condition(path, name, body, exploratory=True) for name, body in block.items()}
    settings = raw.get("cli_settings") or {}
    token_reminder = settings.get("token_reminder", "default")
    if token_reminder not in TOKEN_REMINDER_VALUES:
        raise ConditionError(f"{path}: cli_settings.token_reminder must be one of {list(TOKEN_REMINDER_VALUES)}, not {token_reminder!r}")
    traffic = settings.get("disable_nonessential_traffic", True)
    if not isinstance(traffic, bool):
        raise ConditionError(f"{path}: cli_settings.disable_nonessential_traffic must be true or false")
    return ConditionsFile(conditions=conditions, cli_settings=CliSettings(token_reminder, traffic), exploratory=exploratory)


def condition_names(path: Path | None = None) -> tuple[str, ...]:
    """The preregistered conditions, in the order of conditions.yaml (default: the preregistration's)."""
    return tuple(load_conditions(path).conditions)


def get_condition(name: str, path: Path | None = None) -> Condition:
    """Shortcut: the validated condition ``name``."""
    return load_conditions(path).get(name)
