"""The events of ``events.jsonl`` as typed structs, decoded and type-checked in C (msgspec).

One struct class per kind, derived from the ``TypedDict`` definitions of ``events`` (there is
one definition per kind; nothing here restates a field). Each struct has ``seq`` and ``t``,
every field of its definition, and the kind as the class attribute ``kind``:

- a required field has no default, so an event without it does not decode;
- a ``NotRequired`` field defaults to ``msgspec.UNSET`` (absent), except where the contract
  gives the absent field a meaning (``DEFAULTS``: a tool call without ``server`` is a
  ``sopbench`` call);
- further fields are allowed, as the contract says, and skipped unread.

msgspec checks the JSON types exactly as ``jsontypes`` does (no ``bool`` for a number, an
``int`` accepted for a ``float``, a ``StrEnum`` or a ``Literal`` by its values), and the
reference reading parses with msgspec too (``log_lines.JSON``), so both read every number and
string alike. One thing msgspec does not look at: the bytes of a field a struct skips, so a log
that is not UTF-8 throughout never takes this path (``decodable``).

Why a second reading of the same file: building a dict per event and then checking its keys
and types in Python cost as much as the parse itself (issue 21); decoding straight into these
structs does both at the speed of the parse. The reader uses it as a fast path only: a log
that fails to decode, or breaks any rule, is read again the reference way, which names every
issue (``reader.read_log``), and a test checks that the two ways agree on valid and broken logs.
"""

from __future__ import annotations

import keyword
import typing
from typing import Any

import msgspec

from .events import EVENT_TYPES
from .vocabulary import EventKind

#: What an absent ``NotRequired`` field means where the contract says so (docs/contracts.md).
DEFAULTS: dict[str, dict[str, Any]] = {EventKind.TOOL_CALL: {"server": "sopbench"}}

UNSET = msgspec.UNSET


def _struct(kind: str, td: type) -> type[msgspec.Struct]:
    hints = typing.get_type_hints(td)
    defaults = DEFAULTS.get(kind, {})
    required = [(name, hint) for name, hint in hints.items() if name in td.__required_keys__]
    optional = [(name, hint | msgspec.UnsetType, defaults.get(name, UNSET))
                for name, hint in hints.items() if name not in td.__required_keys__]
    # a field named by a Python keyword ("from" of a transition) is the attribute ``from_``
    rename = {f"{name}_": name for name in hints if keyword.iskeyword(name)}
    fields = [("seq", int), ("t", str), *required, *optional]
    fields = [(f"{f[0]}_", *f[1:]) if keyword.iskeyword(f[0]) else f for f in fields]
    return msgspec.defstruct(td.__name__, fields, tag=str(kind), tag_field="kind", rename=rename or None,
                             namespace={"kind": str(kind)}, gc=False, frozen=True)


#: The struct of each kind.
STRUCTS: dict[str, type[msgspec.Struct]] = {kind: _struct(kind, td) for kind, td in EVENT_TYPES.items()}
SessionStart = STRUCTS[EventKind.SESSION_START]
ToolCall = STRUCTS[EventKind.TOOL_CALL]
SessionEnd = STRUCTS[EventKind.SESSION_END]
Event = typing.Union[tuple(STRUCTS.values())]  # noqa: UP007 (a runtime union of the classes)

_LINE = msgspec.json.Decoder(Event)
_EVENTS = list[Event]

def decodable(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 throughout (msgspec skips an unknown field unread)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_lines(data: bytes) -> list[Any] | None:
    """Every line of ``data`` as its event struct, or None if any line does not decode (not
    JSON, an unknown kind, a missing field, a wrongly typed one) or ``data`` is not
    ``decodable``. Blank lines are skipped, and a line may hold several values: the caller
    counts lines. Nested deeper than msgspec reads (about 1,000 levels): None too."""
    if not decodable(data):
        return None
    try:
        return _LINE.decode_lines(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None


def from_dict(event: dict[str, Any]) -> Any | None:
    """One event read as a dict as its struct, or None if it is not one of the contract's."""
    try:
        return msgspec.convert(event, Event)
    except msgspec.ValidationError:
        return None


def from_dicts(events: list[dict[str, Any]]) -> list[Any]:
    """Events read as dicts (or built in code) as their structs; raises ``msgspec.ValidationError``
    naming the first event that is not one of the contract's."""
    return msgspec.convert(events, _EVENTS)


__all__ = ["DEFAULTS", "Event", "STRUCTS", "SessionEnd", "SessionStart", "ToolCall", "UNSET", "decodable",
           "decode_lines", "from_dict", "from_dicts"]
