"""``study status`` keeps what it read (``study.runner.status_cache``): a rerun reads no log of a
session that has not changed and prints the same rows; a changed log or meta.json, even with its
size and mtime kept, is read again; a file written as it was read is never kept; a running
session's log is read on from where the last status stopped."""

from __future__ import annotations

import json
import os
import time

import pytest

import study.caching as caching
import study.runner.progress as progress
import study.runner.status as status_module
from study.runner.status import format_table, scan
from study.runner.status_cache import StatusCache
from study.session_io.meta import runner_identity, write_meta
from study.session_io.vocabulary import SessionStatus
from study.session_io.writer import EventLog

from .conftest import DAMAGES, MODEL, write_valid


@pytest.fixture
def reads(monkeypatch):
    """The session folders whose records status read (a kept row reads none)."""
    read: list[str] = []
    real = status_module.read_record

    def counting(folder, root=None):
        read.append(str(folder))
        return real(folder, root)

    monkeypatch.setattr(status_module, "read_record", counting)
    return read


@pytest.fixture
def settle(monkeypatch):
    """Files settle after 0.05 s instead of 2 s; ``settle()`` waits for them."""
    monkeypatch.setattr(caching, "RACY_S", 0.05)
    return lambda: time.sleep(0.2)


def _folder(root):
    write_valid(root / MODEL / "Plain" / "seed-2", condition="Plain")
    for name, break_it, *_ in DAMAGES:
        break_it(write_valid(root / MODEL / name / "seed-2", condition=name))
    return root


def _scan(root, tmp_path):
    return scan(root, cache=StatusCache(root.resolve(), tmp_path / "cache"))


def test_a_rerun_reads_no_unchanged_log_and_prints_the_same_rows(tmp_path, reads, settle):
    root = _folder(tmp_path / "sessions")
    settle()
    plain = scan(root)
    n = len(reads)
    first = _scan(root, tmp_path)
    assert len(reads) == 2 * n
    again = _scan(root, tmp_path)
    assert len(reads) == 2 * n                       # every row from the cache: no log read
    assert [r.as_dict() for r in again] == [r.as_dict() for r in first] == [r.as_dict() for r in plain]
    assert format_table(again) == format_table(plain)
    assert any(r.problems for r in again)            # the broken ones still named, from the cache


def test_a_changed_log_or_meta_is_read_again_even_with_its_size_and_mtime_kept(tmp_path, reads, settle):
    root = tmp_path / "sessions"
    folder = write_valid(root / MODEL / "FSM" / "seed-2")
    settle()
    _scan(root, tmp_path)
    log = folder / "events.jsonl"
    st = log.stat()
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1], lines[2] = lines[2], lines[1]                # same bytes, another order: breaks the seq rule
    log.write_text("".join(lines), encoding="utf-8")
    os.utime(log, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (log.stat().st_size, log.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    [row] = _scan(root, tmp_path)
    assert len(reads) == 2 and row.problems and "[rule seq]" in row.problems[0]
    settle()
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    (folder / "meta.json").write_text(json.dumps({**meta, "voided": True, "void_reason": "by hand"}), encoding="utf-8")
    [row] = _scan(root, tmp_path)
    assert len(reads) == 3 and row.voided
    settle()
    [kept] = _scan(root, tmp_path)
    assert len(reads) == 4 and kept == row           # read once more (written in the same moment), then kept
    _scan(root, tmp_path)
    assert len(reads) == 4


def test_a_file_written_as_it_was_read_is_read_again(tmp_path, reads, monkeypatch):
    root = tmp_path / "sessions"
    write_valid(root / MODEL / "FSM" / "seed-2")
    monkeypatch.setattr(caching, "RACY_S", 60.0)       # every file was "just written"
    _scan(root, tmp_path)
    _scan(root, tmp_path)
    assert len(reads) == 2


def test_earlier_attempts_and_the_size_are_read_every_time(tmp_path, reads, settle):
    root = tmp_path / "sessions"
    folder = write_valid(root / MODEL / "FSM" / "seed-2")
    settle()
    [before] = _scan(root, tmp_path)
    (folder / "attempt-1").mkdir()
    (folder / "attempt-1" / "meta.json").write_text("{}", encoding="utf-8")
    (folder / "work").mkdir()        # not a record file (the transcript is: a witness of `simulated`)
    (folder / "work" / "notes.txt").write_bytes(b"x" * 5000)
    [after] = _scan(root, tmp_path)
    assert len(reads) == 1 and (after.attempts, after.size_bytes) == (1, before.size_bytes + 5002)


def _running(folder, decided, schema=1):
    folder.mkdir(parents=True)
    write_meta(folder, {"status": "running", "runner": runner_identity(), "model": "sim:oracle", "condition": "FSM",
                        "seed": 2, "accounts": 4, "simulated": True, "exploratory": True})
    log = EventLog(folder / "events.jsonl")
    log.emit("session_start", schema=schema, condition="FSM", seed=2, model="sim:oracle", simulated=True,
             manifest_sha256="unchecked", code_version="x", cli_version="2.1.332", order=["A", "B", "C", "D"],
             limits={})
    for account in decided:
        log.emit("tool_call", server="sopbench", tool="submit_decision", args={}, account=account,
                 allowed=True, ok=True, state=None, result="{}")
    return log


def test_a_running_sessions_log_is_read_on_from_where_the_last_status_stopped(tmp_path, reads, monkeypatch):
    """Only the lines added since are read; the records of a running session are not checked
    (its meta.json's problems alone are listed) and its log is never read whole."""
    # a live runner holds every claim
    monkeypatch.setattr(status_module, "session_status", lambda folder, meta: SessionStatus.RUNNING)
    root = tmp_path / "sessions"
    log = _running(root / "FSM" / "seed-2", ["A"])
    [row] = _scan(root, tmp_path)
    assert (row.status, row.decisions, row.accounts, row.model, row.problems) == ("running", 1, 4, "sim:oracle", [])
    size = (root / "FSM" / "seed-2" / "events.jsonl").stat().st_size
    read_from: list[int] = []
    real_update = progress.LogProgress.update

    def update(self):
        read_from.append(self._offset)
        return real_update(self)

    monkeypatch.setattr(progress.LogProgress, "update", update)
    log.emit("tool_call", server="sopbench", tool="submit_decision", args={}, account="B", allowed=True, ok=True,
             state=None, result="{}")
    log.emit("call_end", n=0, cost_usd=0.5, session_cost_usd=0.5)
    [row] = _scan(root, tmp_path)
    assert read_from == [size] and (row.decisions, row.cost_usd) == (2, 0.5)
    assert reads == []


def _every_event(folder, log):
    whole = progress.LogProgress(folder)
    for event in log.events:
        whole.feed(event)
    return whole


def _counters(p):
    return p.decisions, p.accounts, p.cost_usd, p.api_retries


def test_the_counters_of_a_finished_log_are_those_of_every_event_fed(tmp_path):
    """``status.log_progress`` feeds a valid log's decisions, costs and API retries from the
    reader's structs: the same counters as every event of the log fed as a dict (the golden
    corpora, real Claude Code sessions among them, and a log with usage and api_retry events)."""
    import tarfile
    from pathlib import Path

    from study.session_io.reader import read_session

    golden = Path(__file__).resolve().parent.parent / "golden"
    for archive in ("corpus_logs.tgz", "sim_logs.tgz"):
        with tarfile.open(golden / archive) as tar:
            tar.extractall(tmp_path / archive, filter="data")
    folder = tmp_path / "retries" / "FSM" / "seed-2"
    log = _running(folder, ["A", "B"], schema=2)
    log.emit("api_retry", call=0, status=529, error="overloaded", attempt=1, wait_s=0.5)
    log.emit("usage", call=0, priced_usd=0.1, session_cost_usd=0.1)
    log.emit("tool_call", server="sopbench", tool="submit_decision", args={}, account="A", allowed=True, ok=True,
             state=None, result="{}")
    log.emit("api_retry", call=0, status=529, error="overloaded", attempt=2, wait_s=0.9)
    log.emit("call_end", n=0, cost_usd=0.25, session_cost_usd=0.25)
    log.emit("session_end", status="completed", cost_usd=0.3, turns=2, duration_s=5.0)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    write_meta(folder, {**meta, "status": "completed", "cost_usd": 0.3, "decisions": 2})
    checked = 0
    for events in sorted(tmp_path.rglob("events.jsonl")):
        session = read_session(events.parent, strict=False)
        if session.log is None:
            continue
        fast = status_module.log_progress(events.parent, session.log)
        assert _counters(fast) == _counters(_every_event(events.parent, session.log)), events
        checked += session.log.valid
    assert checked > 50
    retried = read_session(folder, strict=False).log
    assert retried.valid and _counters(status_module.log_progress(folder, retried)) == (2, 4, 0.3, 2)


def test_a_witness_of_simulated_added_or_changed_is_read_again(tmp_path, reads, settle):
    """The transcript and the simulator's truth file are record files too (rule ``simulated``)."""
    root = tmp_path / "sessions"
    folder = write_valid(root / MODEL / "FSM" / "seed-2")
    settle()
    _scan(root, tmp_path)
    _scan(root, tmp_path)
    assert len(reads) == 1
    (folder / "sim_truth.jsonl").write_text("", encoding="utf-8")
    settle()
    _scan(root, tmp_path)
    assert len(reads) == 2
    (folder / "transcript.jsonl").write_text("", encoding="utf-8")
    _scan(root, tmp_path)
    assert len(reads) == 3
