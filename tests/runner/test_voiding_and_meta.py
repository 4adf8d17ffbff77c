"""Which endings void a session, keeping voided attempts, and unfinished sessions."""

from __future__ import annotations

import json
import subprocess
import sys

from claude_agent_sdk import ProcessError, ResultError

from study.session_io.meta import effective_status, read_meta, runner_identity, write_meta
from study.runner.voiding import archive_attempt
from study.runtimes.claude_code.errors import classify_error


def _result_error(**data) -> ResultError:
    return ResultError("Claude Code returned an error result", data={"type": "result", **data}, exit_code=1)


def test_api_quota_and_server_errors_void_the_session():
    for status in (500, 529, 429, 402):
        ending = classify_error(_result_error(subtype="success", is_error=True, api_error_status=status,
                                              terminal_reason="api_error", result=f"API Error: {status}"))
        assert (ending.status, ending.voided) == ("infrastructure_failure", True), status
        assert f"HTTP {status}" in ending.reason


def test_a_crash_of_the_cli_or_the_runtime_voids_the_session():
    assert classify_error(ProcessError("Command failed", exit_code=137)).status == "infrastructure_failure"
    crash = classify_error(RuntimeError("frame store unreadable"))
    assert (crash.status, crash.voided) == ("infrastructure_failure", True)
    assert "runtime crash" in crash.reason


def test_context_overflow_is_a_model_outcome():
    ending = classify_error(_result_error(subtype="success", is_error=True, api_error_status=400,
                                          terminal_reason="prompt_too_long", result="Prompt is too long"))
    assert (ending.status, ending.voided) == ("model", False)


def test_the_cli_turns_limit_is_a_limit_not_a_failure():
    assert classify_error(_result_error(subtype="error_max_turns", is_error=True)).status == "limit:turns"


def test_archiving_keeps_every_attempt(tmp_path):
    session = tmp_path / "seed-2"
    session.mkdir()
    (session / "events.jsonl").write_text("first\n")
    (session / "tools").mkdir()
    first = archive_attempt(session)
    (session / "events.jsonl").write_text("second\n")
    second = archive_attempt(session)
    assert (first.name, second.name) == ("attempt-1", "attempt-2")
    assert (first / "events.jsonl").read_text() == "first\n" and (first / "tools").is_dir()
    assert (second / "events.jsonl").read_text() == "second\n"
    assert sorted(p.name for p in session.iterdir()) == ["attempt-1", "attempt-2"]


def test_a_running_session_whose_runner_died_is_unfinished(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    write_meta(tmp_path, {"status": "running", "runner": {**runner_identity(), "pid": int(dead.stdout)}})
    assert effective_status(read_meta(tmp_path)) == "unfinished"
    write_meta(tmp_path, {"status": "running", "runner": runner_identity()})  # this process: alive
    assert effective_status(read_meta(tmp_path)) == "running"
    assert effective_status(None) == "unfinished"
    assert json.loads((tmp_path / "meta.json").read_text())["status"] == "running"


def test_a_reused_pid_does_not_keep_a_dead_session_running(tmp_path):
    me = runner_identity()
    write_meta(tmp_path, {"status": "running", "runner": {**me, "pid_start": "1"}})  # same pid, other process
    assert effective_status(read_meta(tmp_path)) == "unfinished"
