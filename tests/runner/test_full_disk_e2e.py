"""A full disk (issue 23, item 12): the session's records end readable and ``study run`` says what
happened in one line, never a traceback, never a meta.json left ``running``. The log's writer is
made to fail with ENOSPC from some event on, as a full disk does (every later write fails too);
the real CLI against the simulator."""

from __future__ import annotations

import errno
import json

import pytest
from click.testing import CliRunner

from study.cli import main
from study.runtimes.launcher import process_alive
from study.runner.session import SessionSpec, prepare
from study.runner.status import scan
from study.session_io import meta as meta_module
from study.session_io.reader import read_session
from study.session_io.writer import EventLog

pytestmark = pytest.mark.e2e

CHECKED = "c0ffee" * 10 + "c0ff"
ARGS = ["run", "--condition", "Plain", "--seed", "2", "--model", "sim:oracle", "--accounts", "3"]


@pytest.fixture
def disk_fills_at(monkeypatch):
    """``disk_fills_at(n)``: the n-th tool_call event and every write after it fail with ENOSPC."""
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: CHECKED)

    def arm(n: int) -> None:
        real = EventLog._write
        seen = {"tool_calls": 0, "full": False}

        def write(self, line: str) -> None:
            if '"kind": "tool_call"' in line:
                seen["tool_calls"] += 1
            if seen["tool_calls"] >= n:
                seen["full"] = True
            if seen["full"]:
                raise OSError(errno.ENOSPC, "No space left on device")
            real(self, line)

        monkeypatch.setattr(EventLog, "_write", write)
    return arm


def _folder(root):
    return prepare(SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=3, out_root=root)).session_dir


def test_a_full_disk_ends_the_session_unfinished_with_the_reason_and_one_line(tmp_path, disk_fills_at):
    disk_fills_at(4)
    result = CliRunner().invoke(main, [*ARGS, "--sessions", str(tmp_path)])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    (voided,) = [line for line in result.output.splitlines() if line.startswith("VOIDED")]
    assert "No space left on device" in voided and "session_end could not be written" in voided
    folder = _folder(tmp_path)
    meta = json.loads((folder / "meta.json").read_text())
    assert (meta["status"], meta["voided"], meta["void_kind"]) == ("unfinished", True, "unfinished")
    assert "events.jsonl could not be written: [Errno 28] No space left on device" in meta["void_reason"]
    session = read_session(folder, strict=False)
    assert not session.errors, [str(i) for i in session.errors]   # the log up to the failure, no session_end
    assert session.log.end is None and sum(e["kind"] == "tool_call" for e in session.log.events) == 3
    (row,) = scan(tmp_path)
    assert row.status == "unfinished"
    pid = meta.get("session_id")
    assert pid is None or isinstance(pid, str)


def test_when_meta_json_cannot_be_written_either_it_says_so_in_one_line(tmp_path, disk_fills_at, monkeypatch):
    disk_fills_at(4)
    real = meta_module.write_meta
    calls = []

    def write_meta(session_dir, meta):   # the first meta.json (running) is written, then the disk is full
        calls.append(meta)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(session_dir, meta)

    monkeypatch.setattr("study.runner.wiring.write_meta", write_meta)   # the first one (set-up)
    monkeypatch.setattr("study.runner.driver.write_meta", write_meta)   # the final one
    result = CliRunner().invoke(main, [*ARGS, "--sessions", str(tmp_path)])
    assert result.exit_code == 1, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("Error:")]
    assert "neither session_end nor the final meta.json could be written" in line and "No space left" in line
    assert "Traceback" not in result.output
    (row,) = scan(tmp_path)
    assert row.status == "unfinished"   # meta.json still says running, but no runner holds the claim
    assert json.loads((_folder(tmp_path) / "meta.json").read_text())["status"] == "running"
