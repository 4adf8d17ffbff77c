"""Runtime checks of JSON values against the annotations of the typed records (events, meta).

A JSON value read back from a file is one of: str, int, float, bool, None, list, dict. The
records of ``events`` and ``meta`` annotate their fields with those types (``X | None`` for a
nullable field, ``list[str]`` for a list of strings); ``checker(annotation)`` turns an
annotation into a predicate. ``bool`` is never accepted for a number (``True`` is an ``int`` in
Python, never in a record), and ``int`` is accepted for ``float`` (JSON does not tell ``1`` from
``1.0``). ``StrEnum`` annotations accept exactly the enum's values.
"""

from __future__ import annotations

import types
import typing
from enum import Enum
from typing import Any, Callable

Check = Callable[[Any], bool]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_float(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_SIMPLE: dict[Any, Check] = {
    str: lambda v: isinstance(v, str),
    int: _is_int,
    float: _is_float,
    bool: lambda v: isinstance(v, bool),
    dict: lambda v: isinstance(v, dict),
    list: lambda v: isinstance(v, list),
    Any: lambda v: True,
    type(None): lambda v: v is None,
}


#: The exact Python types a JSON value of each simple annotation has (``float`` admits ``int``).
_EXACT: dict[Any, tuple[type, ...]] = {str: (str,), int: (int,), float: (int, float), bool: (bool,),
                                       dict: (dict,), list: (list,), type(None): (type(None),)}


def checker(annotation: Any) -> Check:
    """A predicate telling whether a JSON value fits ``annotation``.

    Values of the exact JSON types (what a parser returns) are checked by one set lookup; others
    (a ``StrEnum`` member handed to the writer, say) by the careful check."""
    careful = _careful(annotation)
    exact = exact_types(annotation)
    if exact is None:
        return careful
    return lambda v: type(v) in exact or careful(v)


def exact_types(annotation: Any) -> frozenset[type] | None:
    """The exact Python types the JSON values of ``annotation`` have, if the type alone decides
    (None for a list of strings, an enum, a literal)."""
    if annotation in _EXACT:
        return frozenset(_EXACT[annotation])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        parts = [exact_types(a) for a in typing.get_args(annotation)]
        if all(p is not None for p in parts):
            return frozenset().union(*parts)
    return None


def _careful(annotation: Any) -> Check:
    if annotation in _SIMPLE:
        return _SIMPLE[annotation]
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        values = frozenset(m.value for m in annotation)
        return lambda v: isinstance(v, str) and v in values
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = tuple(_careful(a) for a in args)
        return lambda v: any(p(v) for p in parts)
    if origin is list:
        item = checker(args[0]) if args else _SIMPLE[Any]
        return lambda v: isinstance(v, list) and all(item(x) for x in v)
    if origin is dict:
        return _SIMPLE[dict]
    if origin is typing.Literal:
        allowed = frozenset(args)
        return lambda v: isinstance(v, str) and v in allowed
    raise TypeError(f"no JSON check for annotation {annotation!r}")


def describe(annotation: Any) -> str:
    """The annotation in words for an error message (``a string or null``)."""
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "one of " + ", ".join(repr(m.value) for m in annotation)
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
             dict: "an object", list: "a list", Any: "any value"}
    if annotation in names:
        return names[annotation]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(describe(a) for a in args)
    if origin is list:
        return f"a list of {describe(args[0]).removeprefix('a ').removeprefix('an ')}s" if args else "a list"
    if origin is dict:
        return "an object"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    return repr(annotation)


def shown(value: Any) -> str:
    """A value as an error message shows it (its JSON type named for clarity)."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    kind = {str: "the string", bool: "the boolean", int: "the integer", float: "the number",
            list: "a list", dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)
    return kind if isinstance(value, (list, dict)) or value is None else f"{kind} {text}"
