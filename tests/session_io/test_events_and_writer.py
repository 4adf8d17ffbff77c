"""The typed events: one definition per kind, used by the writer and the validator alike."""

from __future__ import annotations

import json
import typing

import pytest

from study.session_io.events import EVENT_TYPES, READABLE_SCHEMAS, REQUIRED_FIELDS, SCHEMA_VERSION, field_problems
from study.session_io.reader import read_log
from study.session_io.vocabulary import EventKind
from study.session_io.writer import EventLog

START = dict(schema=SCHEMA_VERSION, condition="FSM", seed=2, model="sim:oracle", simulated=True,
             manifest_sha256="unchecked", code_version="x", runtime="claude-code", cli_version="2.1.332",
             order=["A", "B"], limits={})


def test_every_kind_has_one_typed_definition_and_the_required_fields_come_from_it():
    # the common kinds and each task family's own (its events part, study.families.registry)
    from study.families.registry import parts

    assert set(EVENT_TYPES) == set(EventKind) | {kind for _f, events in parts("events") for kind in events.EVENT_TYPES}
    for kind, td in EVENT_TYPES.items():
        assert typing.is_typeddict(td)
        assert set(REQUIRED_FIELDS[kind]) == set(td.__required_keys__)
    assert SCHEMA_VERSION == 3 and READABLE_SCHEMAS == (1, 2, 3)
    assert REQUIRED_FIELDS[EventKind.CALL_END] == ("n", "cost_usd", "session_cost_usd")
    assert REQUIRED_FIELDS[EventKind.USAGE] == ("call", "priced_usd", "session_cost_usd")


def test_the_writer_refuses_unknown_kinds_missing_and_wrongly_typed_fields_and_writes_nothing(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventLog(path) as log:
        with pytest.raises(ValueError, match="unknown event kind 'call_started'"):
            log.emit("call_started", n=0)
        with pytest.raises(ValueError, match="tool_call lacks required field 'ok'"):
            log.emit(EventKind.TOOL_CALL, tool="list_batch", args={}, account=None, allowed=True, state=None)
        with pytest.raises(ValueError, match="'simulated' must be true or false, not the string 'false'"):
            log.emit(EventKind.SESSION_START, **{**START, "simulated": "false"})
        with pytest.raises(ValueError, match="'seed' must be an integer, not the boolean True"):
            log.emit(EventKind.SESSION_START, **{**START, "seed": True})
        with pytest.raises(ValueError, match="'status' must be one of"):
            log.emit(EventKind.SESSION_END, status="done", cost_usd=0.0, turns=0, duration_s=0.0)
    assert path.read_text() == ""


def test_what_the_writer_writes_the_reader_accepts_call_end_and_usage_included(tmp_path):
    path = tmp_path / "events.jsonl"
    with EventLog(path) as log:
        log.emit(EventKind.SESSION_START, **START)
        log.emit(EventKind.TOOL_CALL, server="sopbench", tool="investigate_account", args={"account_id": "A"},
                 account="A", allowed=True, ok=True, state=None, result="{}")
        log.emit(EventKind.USAGE, call=0, priced_usd=0.01, session_cost_usd=0.01)
        log.emit(EventKind.CALL_END, n=0, cost_usd=0.02, session_cost_usd=0.02, subtype="success")
        log.emit(EventKind.TRANSITION, **{"from": None, "to": "S_investigate", "ok": True, "reason": None})
        log.emit(EventKind.SESSION_END, status="interrupted", cost_usd=0.02, turns=1, duration_s=1.5)
    read = read_log(path)
    assert read.valid and [e["seq"] for e in read.events] == list(range(6))
    assert read.end["status"] == "interrupted"


def _log(tmp_path, events: list[dict]):
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps({"seq": n, "t": "2026-11-30T12:00:00.000000Z", **e}) + "\n"
                            for n, e in enumerate(events)))
    return read_log(path, strict=False)


def _rules(read) -> set[str]:
    return {i.rule for i in read.errors}


def test_schemas_one_to_three_are_read_usage_needs_schema_two_and_the_runtime_schema_three(tmp_path):
    start = {"kind": "session_start", **START}
    earlier = {k: v for k, v in start.items() if k != "runtime"}
    end = {"kind": "session_end", "status": "completed", "cost_usd": 0.0, "turns": 0, "duration_s": 0.0}
    usage = {"kind": "usage", "call": 0, "priced_usd": None, "session_cost_usd": 0.0}
    assert _log(tmp_path, [{**earlier, "schema": 1}, end]).valid
    assert _log(tmp_path, [{**earlier, "schema": 2}, usage, end]).valid
    assert _log(tmp_path, [{**start, "schema": 2}, usage, end]).valid            # claude-code: the only runtime then
    assert _rules(_log(tmp_path, [{**earlier, "schema": 1}, usage, end])) == {"schema"}
    assert _log(tmp_path, [{**start, "schema": 3}, usage, end]).valid
    assert _log(tmp_path, [{**start, "schema": 3, "runtime": "codex"}, usage, end]).valid
    assert _rules(_log(tmp_path, [{**earlier, "schema": 3}, end])) == {"schema"}   # schema 3 names its runtime
    assert _rules(_log(tmp_path, [{**start, "schema": 2, "runtime": "codex"}, end])) == {"schema"}
    assert _rules(_log(tmp_path, [{**start, "schema": 4}, end])) == {"schema"}


def test_a_successful_call_for_an_account_outside_the_batch_breaks_the_batch_rule(tmp_path):
    start = {"kind": "session_start", **START}
    call = {"kind": "tool_call", "server": "sopbench", "tool": "submit_decision", "args": {}, "allowed": True,
            "state": None}
    assert _log(tmp_path, [start, {**call, "account": "A", "ok": True}]).valid
    assert _log(tmp_path, [start, {**call, "account": "ZZZ", "ok": False}]).valid     # a failed call may name anything
    assert _rules(_log(tmp_path, [start, {**call, "account": "ZZZ", "ok": True}])) == {"batch"}


def test_unknown_kinds_missing_fields_and_a_second_start_are_errors(tmp_path):
    start = {"kind": "session_start", **START}
    assert _rules(_log(tmp_path, [start, {"kind": "call_started"}])) == {"event"}
    assert _rules(_log(tmp_path, [start, {"kind": "stop", "outcome": "ended"}])) == {"event"}
    assert _rules(_log(tmp_path, [start, start])) == {"start"}
    assert _rules(_log(tmp_path, [{"kind": "resume", "n": 1}, start])) == {"start"}
    assert _rules(_log(tmp_path, [])) == {"empty"}


def test_field_problems_name_each_problem():
    assert field_problems("resume", {"n": "1"}) == ["resume field 'n' must be an integer, not the string '1'"]
    assert field_problems(EventKind.COMPACTION, {}) == ["compaction lacks required field 'trigger'"]
