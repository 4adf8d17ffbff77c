"""The audit's cross-checks of a session's three records, on a real simulated session edited
consistently: each edit keeps meta.json and events.jsonl agreeing with each other, and the
cross-checks still find it. An edit that breaks one of the rules every command applies (the
reader's: a figure out of range, a cost below the streamed usage's price, meta.json's summary
against the log, the witnesses of simulated) is refused by the reader with its rule, and the audit
reports that rule (``reader_rule``)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from study.prereg.audit import audit_session
from study.prereg.record_checks import check_records
from study.session_io.meta import read_meta
from study.session_io.reader import read_session

FILES = ("meta.json", "events.jsonl", "transcript.jsonl", "sim_truth.jsonl")


@pytest.fixture(scope="module")
def real_session(tmp_path_factory) -> Path:
    """One real session: the Claude Code CLI against the simulator (early-stop, so the session
    is resumed once), Remind-loop on 4 accounts."""
    from study.runner.session import SessionSpec, run_session

    out = tmp_path_factory.mktemp("sessions")
    folder = run_session(SessionSpec(condition="Remind-loop", seed=2, accounts=4, model="sim:early-stop", out_root=out))
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    assert meta["status"] == "completed" and meta["resumes"] >= 1 and meta["decisions"] == 4
    return folder


class Copy:
    """A copy of the session's records that a test edits consistently."""

    def __init__(self, source: Path, dest: Path):
        dest.mkdir(parents=True)
        for name in FILES:
            if (source / name).exists():
                shutil.copyfile(source / name, dest / name)
        self.dir = dest

    @property
    def meta(self) -> dict:
        return json.loads((self.dir / "meta.json").read_text(encoding="utf-8"))

    @property
    def events(self) -> list[dict]:
        return [json.loads(line) for line in (self.dir / "events.jsonl").read_text(encoding="utf-8").splitlines()]

    def write(self, meta: dict | None = None, events: list[dict] | None = None) -> None:
        if meta is not None:
            (self.dir / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        if events is not None:
            for seq, event in enumerate(events):
                event["seq"] = seq
            (self.dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")

    def edit(self, *, meta: dict | None = None, start: dict | None = None, end: dict | None = None) -> None:
        """Set the same fields in meta.json and in the log's session_start / session_end."""
        events = self.events
        events[0].update(start or {})
        events[-1].update(end or {})
        self.write({**self.meta, **(meta or {})}, events)

    def check(self) -> list[str]:
        assert read_session(self.dir, strict=False).valid, "the edit must keep meta.json and the log consistent"
        return check_records(self.dir, read_meta(self.dir).to_dict()).problems

    def reader_rule(self, rule: str, says: str) -> str:
        """The reader refuses the edit by ``rule`` (every command then leaves the session out), and
        the audit fails the session naming that rule; the reader's message."""
        errors = read_session(self.dir, strict=False).errors
        found = [str(i) for i in errors if i.rule == rule and says in i.message]
        assert found, [str(i) for i in errors]
        result = audit_session(self.dir, [], None)
        assert result.verdict == "FAIL" and result.exclusion is not None and result.exclusion.kind == "invalid"
        assert any(f"[rule {rule}]" in p and says in p for p in result.problems), result.problems
        return found[0]


@pytest.fixture
def copy(real_session, tmp_path) -> Copy:
    return Copy(real_session, tmp_path / "session")


def one(problems: list[str], says: str) -> str:
    found = [p for p in problems if says in p]
    assert found, problems
    return found[0]


def test_an_untouched_session_passes_and_is_known_as_simulated(copy):
    assert copy.check() == []
    assert check_records(copy.dir, copy.meta).simulated == "its model is sim:early-stop"


def test_simulated_false_in_meta_and_log_is_caught_by_the_simulators_ids(copy):
    copy.edit(meta={"simulated": False, "model": "haiku-4.5"}, start={"simulated": False, "model": "haiku-4.5"})
    copy.reader_rule("simulated", "its tool calls carry the simulator's ids")
    (copy.dir / "sim_truth.jsonl").unlink(missing_ok=True)
    events = copy.events
    for event in events:
        if "call_id" in event:
            event["call_id"] = event["call_id"].replace("toolu_sim", "toolu_01")
    copy.write(events=events)
    # the log no longer says so, but the transcript's responses still do (and no longer match the log)
    copy.reader_rule("simulated", "its transcript's responses and tool calls carry the simulator's ids")
    one(check_records(copy.dir, copy.meta).problems, "logged tool call(s) has no tool_use in the transcript")


def test_the_audit_runs_the_cross_checks_and_titles_the_session_simulated(copy):
    copy.edit(meta={"simulated": False, "exploratory": False}, start={"simulated": False, "exploratory": False})
    copy.reader_rule("simulated", "session_start says simulated: false")
    result = audit_session(copy.dir, [], None)
    assert result.verdict == "FAIL" and result.simulated is True


@pytest.mark.parametrize("cost", [-0.5, -1e300])
def test_a_negative_cost_is_out_of_range(copy, cost):
    copy.edit(meta={"cost_usd": cost}, end={"cost_usd": cost})
    copy.reader_rule("range", f"session_end cost_usd is {cost!r}")


def test_a_tiny_cost_consistent_with_its_calls_is_caught_by_the_streamed_price(copy):
    events = copy.events
    calls = [e for e in events if e["kind"] == "call_end"]
    for call in calls:
        call["cost_usd"] = 0.000001
    events[-1]["cost_usd"] = round(0.000001 * len(calls), 6)
    copy.write({**copy.meta, "cost_usd": events[-1]["cost_usd"]}, events)
    copy.reader_rule("cost", "less than 50% of the list price of the usage the log streamed")


def test_a_tiny_cost_with_rescaled_usage_is_caught_by_the_transcript(copy):
    events = copy.events
    for event in events:
        if event["kind"] in ("usage", "call_end"):
            for key in ("priced_usd", "cost_usd", "session_cost_usd"):
                if isinstance(event.get(key), float):
                    event[key] = round(event[key] / 1000, 6)
    events[-1]["cost_usd"] = round(events[-1]["cost_usd"] / 1000, 6)
    copy.write({**copy.meta, "cost_usd": events[-1]["cost_usd"]}, events)
    one(copy.check(), "but the transcript's responses price at")


def test_the_cost_of_the_models_beside_the_agents_is_summed_from_their_model_usage_events(copy):
    """A τ²-bench session's cost is its calls' and its customer's and judge's (model_usage events,
    which session_end's side_cost_usd sums): an edit of one without the other is found (issue 49, item 2)."""
    events = copy.events
    side = {"kind": "model_usage", "t": events[-1]["t"], "role": "customer", "model": "gpt-5.4-mini",
            "model_id": "gpt-5.4-mini", "usage": {"input": 1000}, "priced_usd": 0.00075, "session_cost_usd": 0.1}
    cost = round(events[-1]["cost_usd"] + 0.00075, 6)
    events[-1].update(cost_usd=cost, side_cost_usd=0.00075)
    copy.write({**copy.meta, "cost_usd": cost}, events[:-1] + [side, events[-1]])
    assert copy.check() == []                             # the calls, the estimate and the customer add up
    events = copy.events
    events[-2]["priced_usd"] = 0.5                        # the customer said to cost more than the session's total
    copy.write(events=events)
    problems = copy.check()
    one(problems, "is not the sum of its calls' costs, the estimate and the models' beside the agent's")
    one(problems, "side_cost_usd 0.00075 is not the sum of the model_usage events' prices (0.5)")


def test_meta_cost_and_decisions_are_compared_with_the_log(copy):
    meta = copy.meta
    copy.write({**meta, "cost_usd": meta["cost_usd"] + 1.0, "decisions": meta["decisions"] + 1})
    copy.reader_rule("meta-log", "meta.json says cost_usd")
    copy.reader_rule("meta-log", "meta.json says decisions")


def test_decisions_edited_in_meta_and_log_together_are_counted_from_the_tool_calls(copy):
    decided = copy.meta["decisions"]
    copy.edit(meta={"decisions": decided - 1}, end={"decisions": decided - 1})
    one(copy.check(), f"session_end says {decided - 1} decisions but the log's tool calls decide {decided} accounts")


def test_decisions_beyond_the_batch_break_the_batch_rule(copy):
    decided = copy.meta["decisions"]     # all 4 of the batch
    copy.edit(meta={"decisions": decided + 1}, end={"decisions": decided + 1})
    copy.reader_rule("batch", f"session_end counts {decided + 1} decisions, more than the batch's 4 accounts")


def test_a_logged_tool_calls_arguments_must_match_the_transcript(copy):
    events = copy.events
    call = next(e for e in events if e["kind"] == "tool_call" and e["tool"] == "investigate_account")
    other = next(a for a in events[0]["order"] if a != call["account"])
    call["args"] = {"account_id": other}
    call["account"] = other
    copy.write(events=events)
    one(copy.check(), "differs from its tool_use in the transcript")


def test_a_tool_call_deleted_from_the_log_is_still_in_the_transcript(copy):
    events = copy.events
    index = next(i for i, e in enumerate(events) if e["kind"] == "tool_call" and e["tool"] == "get_violation_history")
    del events[index]
    copy.write(events=events)
    one(copy.check(), "tool call(s) of the transcript are not in the log")


def test_a_deleted_transcript_fails_the_cross_check(copy):
    (copy.dir / "transcript.jsonl").unlink()
    one(copy.check(), "no transcript.jsonl")
    (copy.dir / "transcript.jsonl").symlink_to("/etc/hostname")
    one(copy.check(), "transcript.jsonl is not a regular file")
    (copy.dir / "transcript.jsonl").unlink()
    os.mkfifo(copy.dir / "transcript.jsonl")   # never opened, so the audit does not block
    one(copy.check(), "transcript.jsonl is not a regular file")
