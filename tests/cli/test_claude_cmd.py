"""``study claude …`` runs the bundled CLI with the given arguments: stdin, output and exit code
pass through; a CLI that cannot run is a one-line error with exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from study.runtimes.claude_code.command import CLI_ENV
from study.runtimes.claude_code.sdk import bundled_cli_version

STUDY = [sys.executable, "-m", "study.cli"]


def _study(*args: str, env: dict | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([*STUDY, *args], input=stdin, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


def test_it_runs_the_bundled_cli():
    done = _study("claude", "--version", env={CLI_ENV: ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == bundled_cli_version()


def test_arguments_stdin_output_and_exit_code_pass_through(tmp_path):
    fake = tmp_path / "claude"
    fake.write_text('#!/bin/sh\necho "args: $*"\necho "stdin: $(cat)"\necho "to stderr" >&2\nexit 7\n')
    fake.chmod(0o755)
    done = _study("claude", "-p", "two words", "--help", "--model", "m", env={CLI_ENV: str(fake)}, stdin="hello")
    assert done.returncode == 7
    assert done.stdout == "args: -p two words --help --model m\nstdin: hello\n"
    assert done.stderr == "to stderr\n"


def test_a_cli_that_cannot_run_is_a_one_line_error(tmp_path):
    for path in (tmp_path / "missing", Path(__file__)):  # absent; present but not executable
        done = _study("claude", "--version", env={CLI_ENV: str(path)})
        assert done.returncode == 2
        assert done.stdout == "" and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
        assert str(path) in done.stderr and f"unset {CLI_ENV}" in done.stderr


def test_help_has_an_example():
    done = _study("claude", "--help")
    assert done.returncode == 0 and "study claude -p" in done.stdout and "study claude -- --help" in done.stdout
