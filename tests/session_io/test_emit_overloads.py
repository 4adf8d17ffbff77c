"""``EventLog.emit``'s typed overloads are the kinds' definitions of ``events``, for type checkers.

Each overload names one kind every family's log may hold (its ``EventKind`` member and its
string; a task family's own kinds are written by name, checked the same) and takes that kind's
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


def test_one_overload_per_common_kind_in_the_order_of_the_definitions_by_member_and_by_string():
    assert [_kind_of(o) for o in OVERLOADS] == [(kind, kind.value) for kind in EVENT_TYPES if kind in set(EventKind)]
    assert len(OVERLOADS) == len(EventKind) == 17


def test_a_familys_own_kinds_are_defined_and_checked_but_have_no_overload():
    """A task family's kinds (its events part, through the registry) are in EVENT_TYPES, listed
    before ``outcome`` as the format always listed them, and carry no EventKind member."""
    kinds = [str(kind) for kind in EVENT_TYPES]
    own = [kind for kind in kinds if kind not in set(EventKind)]
    assert own == ["customer_message", "conversation_end", "controller_call"]
    assert kinds.index("context_end") < kinds.index("customer_message") < kinds.index("outcome")


def test_emit_writes_a_familys_kind_by_name_and_refuses_it_malformed(tmp_path):
    with EventLog(tmp_path / "events.jsonl") as log:
        assert log.emit("conversation_end", reason="user_stop")["kind"] == "conversation_end"
        with pytest.raises(ValueError, match="conversation_end lacks required field 'reason'"):
            log.emit("conversation_end")
        with pytest.raises(ValueError, match="controller_call field 'ok' must be"):
            log.emit("controller_call", tool="t", args={}, ok="yes", result="")


@pytest.mark.parametrize("kind", [kind for kind in EVENT_TYPES if kind in set(EventKind)], ids=str)
def test_the_overload_of_each_kind_takes_exactly_its_defined_fields(kind):
    definition = EVENT_TYPES[kind]
    overload = OVERLOADS[[k for k in EVENT_TYPES if k in set(EventKind)].index(kind)]
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
