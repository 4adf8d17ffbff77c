"""The reviewer's audit: every session against the manifest in effect when it started."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import amend, verify
from study.prereg.audit import audit_sessions


@pytest.fixture
def history(frozen):
    """The frozen tree with one amendment; returns (root, freeze record, amendment, a time
    between the two)."""
    freeze_record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    (frozen / "preregistration/limits.yaml").write_text("resumes: 40\n", encoding="utf-8")
    entry = amend(["preregistration/limits.yaml"], "lower the resume cap", root=frozen)
    start, end = (datetime.fromisoformat(t) for t in (freeze_record["frozen_at"], entry["time"]))
    between = (start + (end - start) / 2).isoformat(timespec="microseconds").replace("+00:00", "Z")
    return frozen, freeze_record, entry, between


def test_each_session_is_checked_against_the_record_in_effect_at_its_start(history, sessions, tmp_path):
    root, freeze_record, entry, between = history
    after = sessions.later(entry["time"], 5)
    before = sessions.later(freeze_record["frozen_at"], -5)
    old, new = freeze_record["sha256"], entry["sha256"]
    out = tmp_path / "sessions" / "claude-haiku-4-5"
    sessions.write(out / "Remind-loop/seed-2", started=between, manifest=old)
    sessions.write(out / "FSM/seed-2", started=after, manifest=new)
    sessions.write(out / "FSM/seed-3", started=after, manifest=old)
    sessions.write(out / "Plain/seed-2", started=between, manifest=new)
    sessions.write(out / "Plain/seed-3", started=after, manifest="f" * 64)
    sessions.write(out / "Plain/seed-4", started=before, manifest=old)
    sessions.write(out / "Sys/seed-2", started=after, manifest=new, code_version=None)
    sessions.write(out / "Sys/seed-3", started=after, manifest=new, status="infrastructure_failure")
    sessions.write(out / "Sys/seed-4", started=after, manifest=new, meta_manifest=old)
    sessions.write(out / "Sys/seed-5", started=after, manifest="e" * 64, status="infrastructure_failure",
                   voided=True, void_reason="API error: overloaded")

    results = {r.path.relative_to(out).as_posix(): r for r in audit_sessions(tmp_path / "sessions", verify(root))}
    verdicts = {name: r.verdict for name, r in results.items()}
    assert verdicts == {
        "Remind-loop/seed-2": "ok", "FSM/seed-2": "ok", "FSM/seed-3": "FAIL", "Plain/seed-2": "FAIL",
        "Plain/seed-3": "FAIL", "Plain/seed-4": "FAIL", "Sys/seed-2": "FAIL", "Sys/seed-3": "FAIL",
        "Sys/seed-4": "FAIL", "Sys/seed-5": "voided",
    }

    def says(name):
        return " | ".join(results[name].problems)

    assert "ran under the freeze" in says("FSM/seed-3") and "amendment 1" in says("FSM/seed-3")
    assert "ran under amendment 1" in says("Plain/seed-2") and "the freeze (" in says("Plain/seed-2")
    assert "unknown manifest" in says("Plain/seed-3")
    assert "before the freeze" in says("Plain/seed-4")
    assert says("Sys/seed-2") == "no code version recorded (code_version)"
    assert "infrastructure failure but is not voided" in says("Sys/seed-3")
    assert "record different manifest hashes" in says("Sys/seed-4")
    assert results["Sys/seed-5"].void_reason == "API error: overloaded"


def test_a_session_folder_without_its_log_or_start_event_fails(history, tmp_path):
    root = history[0]
    (tmp_path / "s/crashed").mkdir(parents=True)
    (tmp_path / "s/crashed/meta.json").write_text("{}", encoding="utf-8")
    (tmp_path / "s/torn").mkdir()
    (tmp_path / "s/torn/events.jsonl").write_text('{"seq": 0, "t": "2026-01-01T00:00:00Z", "kind": "assis', encoding="utf-8")
    results = {r.path.name: r for r in audit_sessions(tmp_path / "s", verify(root))}
    assert "events.jsonl is missing" in results["crashed"].problems
    assert "meta.json is missing" in results["torn"].problems
    assert "events.jsonl has no session_start event" in results["torn"].problems


def test_audit_command_exit_codes_and_listing(history, sessions, study_root, tmp_path):
    root, freeze_record, entry, between = history
    study_root(root)
    after = sessions.later(entry["time"], 5)
    good = tmp_path / "good"
    sessions.write(good / "m/FSM/seed-2", started=after, manifest=entry["sha256"])
    sessions.write(good / "m/FSM/seed-3", started=after, manifest="0" * 64, status="infrastructure_failure",
                   voided=True, void_reason="quota exhausted")
    runner = CliRunner()
    passed = runner.invoke(main, ["audit", str(good)])
    assert passed.exit_code == 0, passed.output
    assert "ok      m/FSM/seed-2  completed [simulated]" in passed.output
    assert "voided  m/FSM/seed-3  infrastructure_failure [simulated] (quota exhausted; excluded)" in passed.output
    assert "2 sessions: 1 ok, 0 failed, 1 voided (excluded)." in passed.output

    sessions.write(good / "m/FSM/seed-4", started=after, manifest=freeze_record["sha256"])
    failed = runner.invoke(main, ["audit", str(good)])
    assert failed.exit_code == 1
    assert "FAIL    m/FSM/seed-4" in failed.output and "ran under the freeze" in failed.output

    (tmp_path / "empty").mkdir()
    empty = runner.invoke(main, ["audit", str(tmp_path / "empty")])
    assert empty.exit_code == 1 and "No sessions under" in empty.output


def test_audit_refuses_when_the_chain_is_broken(history, sessions, study_root, tmp_path):
    root, _, entry, _ = history
    study_root(root)
    sessions.write(tmp_path / "s/FSM/seed-2", started=sessions.later(entry["time"], 5), manifest=entry["sha256"])
    path = root / "preregistration/amendments.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace("lower the", "raise the"), encoding="utf-8")
    result = CliRunner().invoke(main, ["audit", str(tmp_path / "s")])
    assert result.exit_code == 1
    assert "preregistration/amendments.jsonl line 1 (amendment 1) was edited" in result.output
    assert "cannot be audited" in result.output
