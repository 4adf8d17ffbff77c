"""Forged session records are never counted (issue 33).

A sweep of forged records (both meta.json and events.jsonl edited consistently, then score,
tables and audit) found the audit strong but the tables trusting what the audit would reject.
Each forgery here is made on a copy of one real session (the Claude Code CLI against the
simulator, made once per module; on Codex CLI too where it is installed) and must be refused by
``study score`` and ``study tables`` naming its rule (the reader's rules, ``study.session_io``:
every command applies them) and by the audit, or, for what only the audit can check, be printed
by the tables with the line saying their numbers are unaudited, and fail the audit.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg.audit import audit_session
from study.runtimes.codex import pin
from study.session_io.reader import read_session

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("forged-records")]

RUNTIMES = ["claude-code"] + (["codex"] if pin.problem() is None else [])
FILES = ("meta.json", "events.jsonl", "transcript.jsonl", "sim_truth.jsonl")


@pytest.fixture(scope="module")
def real(tmp_path_factory) -> dict[str, Path]:
    """One real session per runtime: sim:oracle under Remind-loop on 4 accounts (usage events,
    calls' costs, a transcript and the simulator's truth file)."""
    from study.runner.session import SessionSpec, run_session

    out = tmp_path_factory.mktemp("real")
    made = {}
    for runtime in RUNTIMES:
        folder = run_session(SessionSpec(condition="Remind-loop", seed=2, accounts=4, model="sim:oracle",
                                         out_root=out / runtime, runtime=runtime))
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        assert meta["status"] == "completed" and meta["decisions"] == 4
        made[runtime] = folder
    return made


class Forged:
    """A sessions folder holding an untouched copy of the real session and a copy to forge."""

    def __init__(self, source: Path, root: Path):
        self.root = root
        self.intact = self._copy(source, root / "exploratory" / "intact" / "Remind-loop" / "seed-2-first-4")
        self.dir = self._copy(source, root / "exploratory" / "forged" / "Remind-loop" / "seed-2-first-4")

    @staticmethod
    def _copy(source: Path, dest: Path) -> Path:
        dest.mkdir(parents=True)
        for name in FILES:
            if (source / name).exists():
                shutil.copyfile(source / name, dest / name)
        return dest

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
            (self.dir / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")

    def both(self, *, meta: dict, start: dict | None = None, end: dict | None = None) -> None:
        """The same edit in meta.json and in the log's session_start / session_end."""
        events = self.events
        events[0].update(start or {})
        events[-1].update(end or {})
        self.write({**self.meta, **meta}, events)

    def study(self, *args: str):
        return CliRunner().invoke(main, list(args), env={"STUDY_CACHE_DIR": str(self.root.parent / "cache")})

    def refused_everywhere(self, rule: str, says: str) -> None:
        """Refused by score, tables (listed as invalid with its rule, never counted), status and
        the audit, naming ``rule``."""
        tag = f"[rule {rule}]"
        scored = self.study("score", str(self.dir))
        assert scored.exit_code == 1 and tag in scored.output and says in scored.output, scored.output
        tables = self.study("tables", "--sessions", str(self.root), "--include-exploratory")
        assert tables.exit_code == 0, tables.output
        listed = [line for line in tables.stderr.splitlines() if "forged" in line]
        assert listed and "invalid records, never scored" in listed[0] and tag in listed[0], tables.stderr
        status = self.study("status", "--sessions", str(self.root))
        assert "BROKEN RECORDS" in status.output and tag in status.output, status.output
        issue = [i for i in read_session(self.dir, strict=False).errors if i.rule == rule]
        assert issue and says in issue[0].message
        audited = audit_session(self.dir, [], None)
        assert audited.verdict == "FAIL" and any(tag in p and says in p for p in audited.problems), audited.problems


@pytest.fixture(params=RUNTIMES)
def forged(request, real, tmp_path) -> Forged:
    return Forged(real[request.param], tmp_path / "sessions")


def test_an_untouched_copy_is_counted(forged):
    assert read_session(forged.dir, strict=False).valid
    tables = forged.study("tables", "--sessions", str(forged.root), "--include-exploratory")
    assert tables.exit_code == 1 and "two analysable sessions" in tables.output   # both copies count
    shutil.rmtree(forged.intact.parent.parent)
    tables = forged.study("tables", "--sessions", str(forged.root), "--include-exploratory")
    assert tables.exit_code == 0 and "invalid" not in tables.stderr and "| Remind-loop" in tables.stdout


def test_a_negative_session_cost_in_both_files(forged):
    forged.both(meta={"cost_usd": -5.0}, end={"cost_usd": -5.0})
    forged.refused_everywhere("range", "session_end cost_usd is -5.0")


def test_a_usage_event_with_negative_token_counts(forged):
    events = forged.events
    usage = next(e for e in events if e["kind"] == "usage")
    usage["input_tokens"] = -1200                # a field the contract does not name: still a token count
    forged.write(events=events)
    forged.refused_everywhere("range", "usage input_tokens is -1200")


def test_a_usage_event_with_a_negative_price(forged):
    events = forged.events
    usage = next(e for e in events if e["kind"] == "usage")
    usage["priced_usd"] = -0.01
    forged.write(events=events)
    forged.refused_everywhere("range", "usage priced_usd is -0.01")


def test_a_negative_call_cost(forged):
    events = forged.events
    call = next(e for e in events if e["kind"] == "call_end")
    call["cost_usd"] = -call["cost_usd"]
    forged.write(events=events)
    forged.refused_everywhere("range", "call_end cost_usd is -")


def test_a_cost_below_the_streamed_usage_price(forged):
    events = forged.events
    for event in events:
        if event["kind"] == "call_end":
            event["cost_usd"] = 0.000001
    cost = round(0.000001 * sum(e["kind"] == "call_end" for e in events), 6)
    events[-1]["cost_usd"] = cost
    forged.write({**forged.meta, "cost_usd": cost}, events)
    forged.refused_everywhere("cost", "less than 50% of the list price of the usage the log streamed")


def test_decisions_beyond_the_batch(forged):
    forged.both(meta={"decisions": 9}, end={"decisions": 9})
    forged.refused_everywhere("batch", "session_end counts 9 decisions, more than the batch's 4 accounts")


def test_a_simulated_session_renamed_to_a_real_model(forged):
    forged.both(meta={"model": "haiku-4.5"}, start={"model": "haiku-4.5"})
    assert forged.meta["simulated"] is True
    forged.refused_everywhere("simulated", "its model is haiku-4.5 (a real model)")


def test_a_simulated_session_marked_not_simulated(forged):
    forged.both(meta={"simulated": False}, start={"simulated": False})
    forged.refused_everywhere("simulated", "session_start says simulated: false")


def test_a_simulated_session_renamed_and_marked_real_is_still_betrayed_by_its_ids(forged):
    forged.both(meta={"simulated": False, "model": "haiku-4.5"}, start={"simulated": False, "model": "haiku-4.5"})
    (forged.dir / "sim_truth.jsonl").unlink()
    forged.refused_everywhere("simulated", "the simulator's ids")


def test_decisions_edited_in_the_log_only_are_printed_as_unaudited_and_fail_the_audit(forged):
    """What only the audit checks (the log against the CLI's transcript): the tables count the
    session, and say their numbers are unaudited until `study audit` passes."""
    before = forged.study("score", str(forged.dir), "--json")
    events = forged.events
    for event in events:
        if event["kind"] == "tool_call" and event["tool"] == "submit_decision" and event["ok"]:
            event["args"]["action"] = "Account Closure" if event["args"]["action"] != "Account Closure" else "No Action"
    forged.write(events=events)
    after = forged.study("score", str(forged.dir), "--json")
    assert after.exit_code == 0
    assert json.loads(after.stdout)["fc"] < json.loads(before.stdout)["fc"]
    shutil.rmtree(forged.intact.parent.parent)   # the forged session alone
    tables = forged.study("tables", "--sessions", str(forged.root), "--include-exploratory")
    assert tables.exit_code == 0 and "| Remind-loop" in tables.stdout
    last = tables.stderr.rstrip("\n").splitlines()[-1]
    assert last.startswith("note: these numbers are unaudited until `study audit --sessions ") and "passes" in last
    assert "unaudited" not in tables.stdout
    # the audit checks the sessions the analysis counts by default: this one relabelled so (it also
    # fails the audit for running under no freeze, which is not what this test is about)
    forged.both(meta={"exploratory": False}, start={"exploratory": False})
    audited = audit_session(forged.dir, [], None)
    assert audited.verdict == "FAIL"
    assert any("differs from its tool_use in the transcript" in p for p in audited.problems), audited.problems


def test_the_two_readings_of_the_transcript_ids_agree(real):
    """The record rules read the transcript's ids in the log's layer (``study.session_io.witnesses``),
    as the runtime's reader in ``study.transcripts`` reads its responses."""
    import orjson

    from study.session_io.witnesses import response_ids, transcript_ids
    from study.transcripts import reader_for

    for runtime, folder in real.items():
        lines = [orjson.loads(raw) for raw in (folder / "transcript.jsonl").read_bytes().splitlines() if raw.strip()]
        expected = [i for i in response_ids(reader_for(runtime).responses(lines)) if isinstance(i, str)]
        assert expected and sorted(transcript_ids(folder, runtime)) == sorted(expected), runtime
        assert all(i.startswith(("msg_sim", "resp_sim", "toolu_sim", "call_sim")) for i in expected), expected[:4]
