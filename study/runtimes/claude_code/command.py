"""``study claude …``: the Claude Code CLI bundled in claude-agent-sdk, as a command.

The SDK's wheel ships the CLI inside the package (``claude_agent_sdk/_bundled/claude``) and does
not put it on PATH, so a printed ``claude -p …`` fails after a normal install. ``study claude``
replaces itself with that CLI (``exec``: same process, stdin, stdout, stderr and exit code), so
every command the package prints or documents runs on the exact CLI version that the lock pins.

``STUDY_CLAUDE_CLI`` names another executable instead (a test hook: ``study doctor`` reports it
and fails, because sessions always run the bundled CLI).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click

from study.cli.vocabulary import UsageError, examples

#: Environment variable naming another CLI executable (for tests of the failure paths).
CLI_ENV = "STUDY_CLAUDE_CLI"

REINSTALL = "reinstall: pip install --force-reinstall --no-deps --require-hashes -r requirements.lock"


def cli_path() -> Path | None:
    """The CLI that ``study claude`` and ``study doctor`` run: ``$STUDY_CLAUDE_CLI`` if set, else
    the bundled one (None if the installed SDK has none)."""
    override = os.environ.get(CLI_ENV)
    if override:
        return Path(override)
    from study.runtimes.claude_code.sdk import bundled_cli_path

    return bundled_cli_path()


def cli_problem(path: Path | None) -> str | None:
    """Why ``path`` cannot be run as the CLI (one line saying what to do), or None if it can."""
    if path is None:
        return f"the installed claude-agent-sdk bundles no Claude Code CLI; {REINSTALL}"
    if not path.is_file():
        return f"the Claude Code CLI {path} does not exist; {_fix(path)}"
    if not os.access(path, os.X_OK):
        return f"the Claude Code CLI {path} is not executable; {_fix(path)}"
    return None


def _fix(path: Path) -> str:
    if os.environ.get(CLI_ENV):
        return f"unset {CLI_ENV} to use the bundled CLI"
    return REINSTALL


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
               epilog=examples("study claude --version",
                               "study claude -p 'Say hello.' --model claude-haiku-4-5",
                               "study claude -- --help          (the CLI's own help)"))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def claude(args: tuple[str, ...]) -> None:
    """Run the Claude Code CLI bundled with claude-agent-sdk with ARGS (its stdin, output and exit
    code are the command's own). It is the CLI every session runs; it is not on PATH as `claude`.
    """
    path = cli_path()
    problem = cli_problem(path)
    if problem:
        raise UsageError(problem)
    argv = [str(path), *args]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "posix":  # no exec on Windows: run it and pass its exit code on
        sys.exit(subprocess.call(argv))
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        raise UsageError(f"cannot run the Claude Code CLI {path}: {exc.strerror}; {_fix(path)}") from None
