"""Moved to :mod:`study.protocol.conditions` (the readers of the preregistration live there); re-exported here
so the runner's old import path keeps working."""

from study.protocol.conditions import (  # noqa: F401
    TOKEN_REMINDER_VALUES,
    ConditionError,
    Condition,
    CliSettings,
    ConditionsFile,
    load_conditions,
    condition_names,
    get_condition,
)

__all__ = ["TOKEN_REMINDER_VALUES", "ConditionError", "Condition", "CliSettings", "ConditionsFile", "load_conditions", "condition_names", "get_condition"]
