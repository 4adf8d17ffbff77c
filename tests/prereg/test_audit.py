"""The reviewer's audit: every session against the manifest in effect when it started."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import amend, verify
from study.prereg.audit import audit_sessions

from .conftest import limits_text


@pytest.fixture
def history(frozen, git, sessions):
    """The frozen tree with one amendment, committed; returns (root, freeze record, amendment, a
    time between the two). Sessions record the amendment's commit as their code version."""
    freeze_record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    (frozen / "preregistration/limits.yaml").write_text(limits_text(40), encoding="utf-8")
    entry = amend(["preregistration/limits.yaml"], "lower the resume cap", root=frozen)
    sessions.freeze_commit = git(frozen, "rev-parse", "HEAD").strip()
    git(frozen, "commit", "-qam", "amend the resume cap")
    sessions.defaults["code_version"] = git(frozen, "rev-parse", "HEAD").strip()
    start, end = (datetime.fromisoformat(t) for t in (freeze_record["frozen_at"], entry["time"]))
    between = (start + (end - start) / 2).isoformat(timespec="microseconds").replace("+00:00", "Z")
    return frozen, freeze_record, entry, between


def test_each_session_is_checked_against_the_record_in_effect_at_its_start(history, sessions, tmp_path):
    root, freeze_record, entry, between = history
    after = sessions.later(entry["time"], 5)
    before = sessions.later(freeze_record["frozen_at"], -5)
    old, new = freeze_record["sha256"], entry["sha256"]
    out = tmp_path / "sessions" / "claude-haiku-4-5"
    sessions.write(out / "Remind-loop/seed-2", started=between, manifest=old, code_version=sessions.freeze_commit)
    sessions.write(out / "FSM/seed-2", started=after, manifest=new)
    sessions.write(out / "FSM/seed-3", started=after, manifest=old)
    sessions.write(out / "Plain/seed-2", started=between, manifest=new)
    sessions.write(out / "Plain/seed-3", started=after, manifest="f" * 64)
    sessions.write(out / "Plain/seed-4", started=before, manifest=old)
    sessions.write(out / "Sys/seed-2", started=after, manifest=new, code_version=None)
    sessions.write(out / "Sys/seed-3", started=after, manifest=new, code_version="unknown")
    sessions.write(out / "Sys/seed-4", started=after, manifest=new, meta_manifest=old)
    sessions.write(out / "Sys/seed-5", started=after, manifest=None)
    sessions.write(out / "Sys/seed-6", started=after, manifest=new, with_start=False)
    sessions.write(out / "Sys/seed-7", started=after, manifest=new, with_meta=False)

    results = {r.path.relative_to(out).as_posix(): r for r in audit_sessions(tmp_path / "sessions", verify(root))}
    verdicts = {name: r.verdict for name, r in results.items()}
    assert verdicts == {
        "Remind-loop/seed-2": "ok", "FSM/seed-2": "ok", "FSM/seed-3": "FAIL", "Plain/seed-2": "FAIL",
        "Plain/seed-3": "FAIL", "Plain/seed-4": "FAIL", "Sys/seed-2": "FAIL", "Sys/seed-3": "FAIL",
        "Sys/seed-4": "FAIL", "Sys/seed-5": "FAIL", "Sys/seed-6": "FAIL", "Sys/seed-7": "FAIL",
    }

    def says(name):
        return " | ".join(results[name].problems)

    assert "ran under the freeze" in says("FSM/seed-3") and "amendment 1" in says("FSM/seed-3")
    assert "ran under amendment 1" in says("Plain/seed-2") and "the freeze (" in says("Plain/seed-2")
    assert "unknown manifest" in says("Plain/seed-3")
    assert "before the freeze" in says("Plain/seed-4")
    assert says("Sys/seed-2") == "no code version recorded (code_version)"
    assert says("Sys/seed-3") == "no code version recorded (code_version)"
    assert "record different manifest hashes" in says("Sys/seed-4")
    assert says("Sys/seed-5") == "no manifest hash recorded (manifest_sha256)"
    assert "events.jsonl has no session_start event" in says("Sys/seed-6")
    assert says("Sys/seed-7") == "meta.json is missing"


def test_sessions_the_analysis_leaves_out_are_listed_with_the_reason_and_not_checked(history, sessions, tmp_path):
    root, _, entry, _ = history
    after = sessions.later(entry["time"], 5)
    out = tmp_path / "sessions"
    unknown = "e" * 64  # would fail the check if these sessions were checked
    sessions.write(out / "m/FSM/seed-2", started=after, manifest=unknown, voided=True, void_reason="quota exhausted")
    sessions.write(out / "m/FSM/seed-3", started=after, manifest=unknown, status="infrastructure_failure")
    sessions.write(out / "m/FSM/seed-4", started=after, manifest=unknown, with_end=False)
    sessions.write(out / "m/FSM/seed-5", started=after, manifest="unchecked", exploratory=True)
    sessions.write(out / "exploratory/m/FSM/seed-1-first-5", started=after, manifest="unchecked")
    results = {r.path.relative_to(out).as_posix(): r for r in audit_sessions(out, verify(root))}
    assert {name: (r.verdict, r.problems) for name, r in results.items()} == {
        "m/FSM/seed-2": ("voided", []), "m/FSM/seed-3": ("voided", []), "m/FSM/seed-4": ("incomplete", []),
        "m/FSM/seed-5": ("exploratory", []), "exploratory/m/FSM/seed-1-first-5": ("exploratory", []),
    }
    assert results["m/FSM/seed-2"].excluded == "voided: quota exhausted"


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
    assert "ok           m/FSM/seed-2  completed [simulated]\n" in passed.output
    assert "voided       m/FSM/seed-3  infrastructure_failure [simulated] (quota exhausted; excluded)" in passed.output
    assert ("2 sessions: 1 ok, 0 failed; excluded from the analysis: 1 voided, 0 incomplete, "
            "0 exploratory.") in passed.output

    sessions.write(good / "m/FSM/seed-4", started=after, manifest=freeze_record["sha256"])
    failed = runner.invoke(main, ["audit", str(good)])
    assert failed.exit_code == 1
    assert "FAIL         m/FSM/seed-4  completed" in failed.output and "ran under the freeze" in failed.output

    (tmp_path / "empty").mkdir()
    empty = runner.invoke(main, ["audit", "--sessions", str(tmp_path / "empty")])
    assert empty.exit_code == 4 and "nothing to audit: no sessions under" in empty.output


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


def test_a_confirmatory_sessions_batch_is_the_frozen_order_of_its_seed(frozen, sessions, git, tmp_path):
    """An exploratory session's prefix relabelled confirmatory, or another seed's batch, fails."""
    sessions.defaults["code_version"] = git(frozen, "rev-parse", "HEAD").strip()
    record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    started = sessions.later(record["frozen_at"], 5)
    out = tmp_path / "sessions"

    def session(name: str, order: list[str], seed: int = 2):
        folder = sessions.write(out / name, started=started, manifest=record["sha256"])
        events = [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
        events[0].update(order=order, seed=seed)
        (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        (folder / "meta.json").write_text(json.dumps({**meta, "seed": seed}), encoding="utf-8")

    session("FSM/seed-2", ["A1", "A2", "A3"])
    session("Plain/seed-2", ["A1", "A2"])             # the first two accounts only
    session("Sys/seed-2", ["A3", "A1", "A2"])         # seed 3's batch
    session("Remind/seed-4", ["A1", "A2", "A3"], seed=4)
    results = {r.path.relative_to(out).as_posix(): r for r in audit_sessions(out, verify(frozen))}
    assert results["FSM/seed-2"].verdict == "ok", (results["FSM/seed-2"].problems, results["FSM/seed-2"].notes)
    for name in ("Plain/seed-2", "Sys/seed-2"):
        assert any("is not the frozen order of seed 2" in p for p in results[name].problems), results[name].problems
    assert any("seed 4 had no frozen order" in p for p in results["Remind/seed-4"].problems)


def test_a_rerun_reads_again_only_the_sessions_that_changed_and_never_keeps_a_failure(history, sessions, study_root,
                                                                                     tmp_path, monkeypatch):
    """study.prereg.audit_cache: an unchanged session's result is kept (the preregistration, its
    history and the manifest's files are checked at every audit); a changed file, a failing session
    or --fresh is read again, and the printed verdicts are the same either way."""
    import study.caching
    import study.prereg.audit as audit_module

    root, freeze_record, entry, _ = history
    study_root(root)
    monkeypatch.setenv("STUDY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(study.caching, "RACY_S", 0.05)
    read: list[str] = []
    real = audit_module.audit_session
    monkeypatch.setattr(audit_module, "audit_session",
                        lambda path, *a, **kw: read.append(path.name) or real(path, *a, **kw))
    after = sessions.later(entry["time"], 5)
    good = tmp_path / "good"
    sessions.write(good / "m/FSM/seed-2", started=after, manifest=entry["sha256"])
    sessions.write(good / "m/FSM/seed-3", started=after, manifest=entry["sha256"])
    sessions.write(good / "m/FSM/seed-4", started=after, manifest="0" * 64, voided=True, status="infrastructure_failure",
                   void_reason="quota exhausted")
    time.sleep(0.2)

    def audit(*more: str):
        read.clear()
        done = CliRunner().invoke(main, ["audit", "--sessions", str(good), *more])
        return done.exit_code, done.stdout, done.stderr

    first = audit()
    assert first[0] == 0 and sorted(read) == ["seed-2", "seed-3", "seed-4"] and "not read again" not in first[2]
    again = audit()
    assert again[:2] == first[:2] and read == []
    assert "note: 3 of 3 sessions were not read again" in again[2]
    assert audit("--fresh")[:2] == first[:2] and sorted(read) == ["seed-2", "seed-3", "seed-4"]

    log = good / "m/FSM/seed-3/events.jsonl"          # the same size and mtime, another manifest: read again
    st = log.stat()
    text = log.read_text(encoding="utf-8")
    log.write_text(text.replace(entry["sha256"], freeze_record["sha256"]), encoding="utf-8")
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert log.stat().st_size == st.st_size
    time.sleep(0.2)
    failed = audit()
    assert failed[0] == 1 and read == ["seed-3"] and "FAIL         m/FSM/seed-3" in failed[1]
    assert audit()[:2] == failed[:2] and read == ["seed-3"]       # a failure is never kept: read every time
