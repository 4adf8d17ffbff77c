"""Argument validation of every tool call, generic over the task.

The study's tools (and a ``columns``-backend task's tools) are checked argument by argument
against the kinds ``task_tools.ToolDefs.arguments`` gives them. An ``upstream``-backend task's
tools are checked for what upstream's own code would refuse anyway or what the study must
guard: a JSON object, no argument outside the ``toolspecs.json`` input schema's properties, and
the arguments that identify the item (``TaskTool.item_args``) naming an item of this batch.
The schemas' types, patterns, enums and required lists are shown to the agent but not enforced:
upstream's data contradicts them (dangerous_goods' ids "P1_3191" against the pattern
``^P_[0-9]{5}$`` (as ``\\d{5}``), traffic_spoofing's ``registered_websites`` strings typed ``array``,
video_annotation objects outside their enum, ...), and upstream's tools answer such calls, so
refusing them would change the results; a call upstream cannot answer gets upstream's error.

A refused call raises ``_BadCall``; ``ToolBox.call`` turns it into the error result
``Error: <what was wrong>. <the valid form>`` and records nothing.
"""

from __future__ import annotations

import json
from typing import Any


class _BadCall(Exception):
    """Internal: a call is refused; ``what`` says why, ``valid_form`` (default: the tool's
    usage) what to do instead."""

    def __init__(self, what: str, valid_form: str | None = None):
        super().__init__(what)
        self.what = what
        self.valid_form = valid_form


def _type_name(value: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)


class ArgumentChecks:
    """The checks ``ToolBox`` runs on a call's arguments (a mixin: it reads the box's ``task``,
    ``defs``, ``order`` and ``_batch``)."""

    def _validate(self, name: str, args: Any) -> dict[str, Any]:
        if not isinstance(args, dict):
            raise _BadCall(f"the arguments must be a JSON object, got {_type_name(args)}")
        if name in self.defs.schemas:
            return self._validate_schema(name, args)
        expected = self.defs.arguments[name]
        expected_names = [arg for arg, _kind in expected]
        extra = [key for key in args if key not in expected_names]
        if extra:
            takes = "takes no arguments" if not expected else "takes only " + ", ".join(expected_names)
            raise _BadCall(f"unexpected argument {', '.join(map(repr, extra))} ({name} {takes})")
        values = {}
        for arg, kind in expected:
            if arg not in args:
                raise _BadCall(f"missing argument {arg!r}")
            values[arg] = self._check_kind(kind, arg, args[arg])
        return values

    def _check_kind(self, kind: str, arg: str, value: Any) -> Any:
        if kind == "item":
            return self._check_item(arg, value)
        group, _, name = kind.partition(":")
        if group == "decision":
            column = next(c for c in self.task.decision.columns if c.argument == name)
            return self._check_choice(arg, value, column.labels, column.what or f"one of the labels of {column.column}")
        field = next(f for f in self.task.record.fields if f.name == name)
        if field.kind == "choice":
            return self._check_choice(arg, value, field.choices, field.what or f"one of {', '.join(field.choices)}")
        if field.kind == "scores":
            return self._check_scores(arg, value, field.choices)
        return self._check_simple(arg, value, field.kind)

    def _validate_schema(self, name: str, args: dict) -> dict[str, Any]:
        schema = self.defs.schemas[name]
        known = list(schema.get("properties", {}))
        extra = [key for key in args if key not in known]
        if extra:
            raise _BadCall(f"unexpected argument {', '.join(map(repr, extra))} ({name} takes only {', '.join(known)})")
        tool = self.task.tool(name)
        for arg in tool.item_args:
            if arg in args:
                self._check_item(arg, args[arg])
        return dict(args)

    @staticmethod
    def _check_string(arg: str, value: Any) -> str:
        if not isinstance(value, str):
            raise _BadCall(f"argument {arg!r} must be a string, got {_type_name(value)} {json.dumps(value)}")
        if not value.strip():
            raise _BadCall(f"argument {arg!r} is empty")
        return value

    def _check_item(self, arg: str, value: Any) -> str:
        """``value`` must name an item of this batch: by its id, or by another identifying column."""
        noun, item = self.task.item.noun, self.task.item
        if arg != item.id_column:
            matches = [i for i in self.order if str(self.task.rows[i].get(arg)) == str(value)]
            if not matches:
                raise _BadCall(f"{arg} {json.dumps(value)} names no {noun} of this batch "
                               f"(call list_batch for its {len(self.order)} {item.plural})")
            return value
        value = self._check_string(arg, value)
        if value not in self.task.rows:
            raise _BadCall(f"unknown {noun} id {value!r} (call list_batch for the ids of this batch)")
        if value not in self._batch:
            raise _BadCall(f"{noun} {value!r} is not in this batch (call list_batch for its {len(self.order)} {item.plural})")
        return value

    @classmethod
    def _check_choice(cls, arg: str, value: Any, choices: tuple[str, ...], what: str) -> str:
        value = cls._check_string(arg, value)
        if value not in choices:
            raise _BadCall(f"{arg} {value!r} is not {what}")
        return value

    @staticmethod
    def _check_simple(arg: str, value: Any, kind: str) -> Any:
        ok = {"string": lambda v: isinstance(v, str),
              "boolean": lambda v: isinstance(v, bool),
              "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)}[kind](value)
        if not ok:
            raise _BadCall(f"argument {arg!r} must be {'an' if kind == 'integer' else 'a'} {kind}, "
                           f"got {_type_name(value)} {json.dumps(value)}")
        return value

    @staticmethod
    def _check_scores(arg: str, value: Any, keys: tuple[str, ...]) -> dict[str, int]:
        if not isinstance(value, dict):
            raise _BadCall(f"argument {arg!r} must be an object, got {_type_name(value)} {json.dumps(value)}")
        missing = [k for k in keys if k not in value]
        extra = [k for k in value if k not in keys]
        if missing or extra:
            problems = ([f"lacks {', '.join(missing)}"] if missing else []) + ([f"has unknown key(s) {', '.join(extra)}"] if extra else [])
            raise _BadCall(f"{arg} {' and '.join(problems)}")
        scores = {}
        for key in keys:
            score = value[key]
            if isinstance(score, float) and score.is_integer():
                score = int(score)
            if isinstance(score, bool) or not isinstance(score, int) or score < 0:
                raise _BadCall(f"{arg}.{key} must be an integer >= 0, got {_type_name(value[key])} {json.dumps(value[key])}")
            scores[key] = score
        return scores
