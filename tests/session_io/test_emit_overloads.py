"""``EventLog.emit``'s typed overloads are the kinds' definitions of ``events``, for type checkers.

Each overload names one kind (its ``EventKind`` member and its string) and takes that kind's
fields as keyword parameters, in the definition's order, required ones without a default and
``NotRequired`` ones with one, each of the definition's type; ``**more`` takes the further
fields the contract allows (and transition's ``from``, a Python keyword). A field added to a definition and not to its overload (or the
other way round) fails here."""

from __future__ import annotations

import inspect
import json
import keyword
import typing

import pytest

from study.session_io.events import EVENT_TYPES
from study.session_io.vocabulary import EventKind
from study.session_io.writer import EventLog

OVERLOADS = typing.get_overloads(EventLog.emit)


def _kind_of(overload) -> tuple:
    return typing.get_args(typing.get_type_hints(overload)["kind"])


def test_one_overload_per_kind_in_the_order_of_the_definitions_by_member_and_by_string():
    assert [_kind_of(o) for o in OVERLOADS] == [(kind, kind.value) for kind in EVENT_TYPES]
    assert len(OVERLOADS) == len(EventKind) == 20


@pytest.mark.parametrize("kind", list(EVENT_TYPES), ids=str)
def test_the_overload_of_each_kind_takes_exactly_its_defined_fields(kind):
    definition = EVENT_TYPES[kind]
    overload = OVERLOADS[list(EVENT_TYPES).index(kind)]
    self_, kind_param, *named, more = inspect.signature(overload).parameters.values()
    assert (self_.name, kind_param.name) == ("self", "kind")
    assert (more.name, more.kind) == ("more", inspect.Parameter.VAR_KEYWORD)
    fields = typing.get_type_hints(definition)
    assert not {"self", "kind", "more"} & set(fields)
    nameable = [name for name in fields if not keyword.iskeyword(name)]   # transition's "from" cannot be one
    assert [p.name for p in named] == nameable
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in named)
    required = {p.name for p in named if p.default is inspect.Parameter.empty}
    assert required == set(definition.__required_keys__) & set(nameable)
    assert {p.name for p in named} - required == set(definition.__optional_keys__) & set(nameable)
    hints = typing.get_type_hints(overload)
    assert {p.name: hints[p.name] for p in named} == {name: fields[name] for name in nameable}


def test_only_transition_has_a_field_that_cannot_be_a_keyword_parameter():
    assert [kind for kind, td in EVENT_TYPES.items() if any(map(keyword.iskeyword, td.__annotations__))] == [
        EventKind.TRANSITION]
    assert list(inspect.signature(OVERLOADS[2]).parameters) == ["self", "kind", "to", "ok", "reason", "more"]


def test_emit_fields_writes_what_emit_writes_and_refuses_what_it_refuses(tmp_path):
    fields = {"tool": "list_batch", "args": {}, "account": None, "allowed": True, "ok": True, "state": None,
              "result": "[]", "extra": "é"}
    with EventLog(tmp_path / "events.jsonl") as log:
        by_keywords = log.emit(EventKind.TOOL_CALL, **fields)
        by_mapping = log.emit_fields("tool_call", fields)
        with pytest.raises(ValueError, match="tool_call lacks required field 'ok'"):
            log.emit_fields(EventKind.TOOL_CALL, {k: v for k, v in fields.items() if k != "ok"})
    lines = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines == [by_keywords, by_mapping]
    assert [list(e) for e in lines] == [["seq", "t", "kind", *fields]] * 2
    assert [{k: v for k, v in e.items() if k not in ("seq", "t")} for e in lines] == [
        {"kind": "tool_call", **fields}] * 2
    assert [e["seq"] for e in lines] == [0, 1]
