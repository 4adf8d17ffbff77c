"""Argument validation of every tool call: each argument against the kind ``ARGUMENTS`` gives it.

A refused call raises ``_BadCall``; ``ToolBox.call`` turns it into the error result
``Error: <what was wrong>. <the valid form>`` and records nothing.
"""

from __future__ import annotations

import json
from typing import Any

from .dataset import ACTIONS
from .tool_definitions import ARGUMENTS, SCORE_KEYS, SEVERITIES, VIOLATION_TYPES


class _BadCall(Exception):
    """Internal: a call is refused; ``what`` says why, ``valid_form`` (default: the tool's
    USAGE) what to do instead."""

    def __init__(self, what: str, valid_form: str | None = None):
        super().__init__(what)
        self.what = what
        self.valid_form = valid_form


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


class ArgumentChecks:
    """The checks ``ToolBox`` runs on a call's arguments (a mixin: ``_check_account`` reads the
    box's ``task``, ``order`` and ``_batch``)."""

    def _validate(self, name: str, args: Any) -> dict[str, Any]:
        if not isinstance(args, dict):
            raise _BadCall(f"the arguments must be a JSON object, got {_type_name(args)}")
        expected = ARGUMENTS[name]
        expected_names = [arg for arg, _kind in expected]
        extra = [key for key in args if key not in expected_names]
        if extra:
            takes = "takes no arguments" if not expected else "takes only " + ", ".join(expected_names)
            raise _BadCall(f"unexpected argument {', '.join(map(repr, extra))} ({name} {takes})")
        values = {}
        for arg, kind in expected:
            if arg not in args:
                raise _BadCall(f"missing argument {arg!r}")
            values[arg] = getattr(self, f"_check_{kind}")(arg, args[arg])
        return values

    @staticmethod
    def _check_string(arg: str, value: Any) -> str:
        if not isinstance(value, str):
            raise _BadCall(f"argument {arg!r} must be a string, got {_type_name(value)} {json.dumps(value)}")
        if not value.strip():
            raise _BadCall(f"argument {arg!r} is empty")
        return value

    def _check_account(self, arg: str, value: Any) -> str:
        value = self._check_string(arg, value)
        if value not in self.task.rows:
            raise _BadCall(f"unknown account id {value!r} (call list_batch for the ids of this batch)")
        if value not in self._batch:
            raise _BadCall(f"account {value!r} is not in this batch (call list_batch for its {len(self.order)} accounts)")
        return value

    @classmethod
    def _check_choice(cls, arg: str, value: Any, choices: tuple[str, ...], what: str) -> str:
        value = cls._check_string(arg, value)
        if value not in choices:
            raise _BadCall(f"{arg} {value!r} is not {what}")
        return value

    def _check_action(self, arg: str, value: Any) -> str:
        return self._check_choice(arg, value, ACTIONS, "one of the seven enforcement actions")

    def _check_violation_type(self, arg: str, value: Any) -> str:
        return self._check_choice(arg, value, VIOLATION_TYPES, "one of the STEP 2 violation types")

    def _check_severity(self, arg: str, value: Any) -> str:
        return self._check_choice(arg, value, SEVERITIES, "one of the STEP 3 risk severities")

    @staticmethod
    def _check_scores(arg: str, value: Any) -> dict[str, int]:
        if not isinstance(value, dict):
            raise _BadCall(f"argument {arg!r} must be an object, got {_type_name(value)} {json.dumps(value)}")
        missing = [k for k in SCORE_KEYS if k not in value]
        extra = [k for k in value if k not in SCORE_KEYS]
        if missing or extra:
            problems = ([f"lacks {', '.join(missing)}"] if missing else []) + ([f"has unknown key(s) {', '.join(extra)}"] if extra else [])
            raise _BadCall(f"{arg} {' and '.join(problems)}")
        scores = {}
        for key in SCORE_KEYS:
            score = value[key]
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise _BadCall(f"{arg}.{key} must be an integer >= 0, got {_type_name(value[key])} {json.dumps(value[key])}")
            scores[key] = score
        return scores
