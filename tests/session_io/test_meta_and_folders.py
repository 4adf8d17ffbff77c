"""meta.json (one typed SessionMeta, strict and reporting reads, atomic writes, the effective
status) and the one rule for finding sessions."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from analysis.loading import load_corpus
from study.session_io.folders import exploratory_by_location, find_sessions
from study.session_io.issues import MetaError
from study.session_io.meta import (CORE_FIELDS, SessionMeta, effective_status, is_rerunnable, read_meta,
                                   runner_identity, write_meta)
from study.session_io.vocabulary import SessionStatus

from .conftest import MODEL, write_valid


@pytest.mark.parametrize("content,problem", [
    (b"[1, 2]", "must hold a JSON object, not a list"),
    (b'{"status": "completed",', "is not valid JSON"),
    (b'{"model": "\xff"}', "is not UTF-8"),
])
def test_an_unreadable_meta_is_a_clear_error_when_strict_and_a_problem_when_reporting(tmp_path, content, problem):
    (tmp_path / "meta.json").write_bytes(content)
    with pytest.raises(MetaError, match=problem):
        read_meta(tmp_path, strict=True)
    meta = read_meta(tmp_path)
    assert meta == SessionMeta() and problem in meta.problems[0].message


def test_booleans_must_be_booleans_and_are_never_misread(tmp_path):
    (tmp_path / "meta.json").write_text(json.dumps({"status": "completed", "voided": "false", "simulated": "true"}))
    meta = read_meta(tmp_path)
    assert meta.voided is False and meta.simulated is None          # left at the default, not coerced
    assert sorted(i.message for i in meta.problems) == [
        "'simulated' must be true or false or null, not the string 'true'",
        "'voided' must be true or false, not the string 'false'"]
    with pytest.raises(MetaError, match="'(voided|simulated)' must be true or false"):
        read_meta(tmp_path, strict=True)
    with pytest.raises(ValueError, match="'voided' must be true or false"):
        write_meta(tmp_path, {"voided": "false"})


def test_a_missing_meta_is_none_and_unknown_keys_are_kept(tmp_path):
    assert read_meta(tmp_path) is None and read_meta(tmp_path, strict=True) is None
    write_meta(tmp_path, {"status": "completed", "attempt_note": "kept"})
    meta = read_meta(tmp_path, strict=True)
    assert meta.status is SessionStatus.COMPLETED and meta.other == {"attempt_note": "kept"}


def test_write_meta_is_atomic_and_writes_every_core_field(tmp_path):
    meta = SessionMeta(model="sim:oracle", condition="FSM", seed=2, simulated=True, exploratory=True,
                       status=SessionStatus.RUNNING, runner=runner_identity())
    write_meta(tmp_path, meta)
    assert [p.name for p in tmp_path.iterdir()] == ["meta.json"]    # no temporary file left
    data = json.loads((tmp_path / "meta.json").read_text())
    assert set(CORE_FIELDS) <= set(data) and data["status"] == "running" and data["voided"] is False
    assert read_meta(tmp_path, strict=True) == meta


def test_a_running_session_whose_runner_is_gone_is_unfinished_and_rerunnable(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    write_meta(tmp_path, {"status": "running", "runner": {**runner_identity(), "pid": int(dead.stdout)}})
    assert effective_status(read_meta(tmp_path)) is SessionStatus.UNFINISHED
    write_meta(tmp_path, {"status": "running", "runner": runner_identity()})
    assert effective_status(read_meta(tmp_path)) is SessionStatus.RUNNING
    assert effective_status(None) is SessionStatus.UNFINISHED
    assert [s for s in SessionStatus if is_rerunnable(s)] == [
        SessionStatus.INFRASTRUCTURE_FAILURE, SessionStatus.INTERRUPTED, SessionStatus.UNFINISHED]


def test_find_sessions_one_rule_for_attempts_and_meta_only_folders(tmp_path):
    root = tmp_path / "sessions"
    session = write_valid(root / MODEL / "FSM" / "seed-2")
    attempt = session / "attempt-1"
    write_valid(attempt)                                     # an earlier attempt, with a full log
    (attempt / "deeper").mkdir()
    (attempt / "deeper" / "meta.json").write_text("{}")
    only_meta = root / MODEL / "Plain" / "seed-2"
    only_meta.mkdir(parents=True)
    (only_meta / "meta.json").write_text("{}")
    assert find_sessions(root) == [session, only_meta]
    assert find_sessions(session) == [session]
    corpus = load_corpus(root, workers=1)
    assert corpus.sessions.height == 1
    assert [p for p, _ in corpus.excluded] == [f"{MODEL}/Plain/seed-2"]   # attempt-1 is never a session


def test_exploratory_by_location(tmp_path):
    assert exploratory_by_location(tmp_path / "exploratory" / "m" / "FSM" / "seed-2", tmp_path)
    assert exploratory_by_location(tmp_path / "demo" / "exploratory" / "m" / "FSM" / "seed-2", tmp_path)
    assert exploratory_by_location(tmp_path / "demo" / "m" / "FSM" / "seed-2", tmp_path)
    assert not exploratory_by_location(tmp_path / "m" / "FSM" / "seed-2", tmp_path)
    assert not exploratory_by_location(tmp_path / "m" / "demo", tmp_path)
