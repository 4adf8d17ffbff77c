"""``study claude …``: the Claude Code CLI bundled in claude-agent-sdk, as a command.

The SDK's wheel ships the CLI inside the package (``claude_agent_sdk/_bundled/claude``) and does
not put it on PATH, so a printed ``claude -p …`` fails after a normal install. ``study claude``
replaces itself with that CLI (``exec``: same process, stdin, stdout, stderr and exit code), so
every command the package prints or documents runs on the exact CLI version that the lock pins.

In a project whose workflow names shell rules (a ``study fsm hook … --workflow FILE`` of its
``.claude/settings.json`` or ``settings.local.json`` whose ``tools`` list ``shell`` or ``Bash``),
``study claude`` turns Claude Code's own sandbox on for the agent's commands (``--settings`` with
``study.runtimes.sandbox.claude_settings``: the project folder writable but for the FSM's own
files, its workflows, its frames and the settings that wire its hooks, nothing else, no
network), and refuses to start, in one line saying what to install, where the sandbox cannot
start: a command pattern bounds which program runs, not what it writes (docs/fsm.md).

``STUDY_CLAUDE_CLI`` names another executable instead (a test hook: ``study doctor`` reports it
and fails, because sessions always run the bundled CLI).
"""

from __future__ import annotations

import json
import os
import re
import shlex
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


#: The project's settings files whose hooks name the workflows (``.claude/``).
SETTINGS_FILES = ("settings.json", "settings.local.json")


def project_workflows(project: Path) -> list[Path]:
    """The workflow files the project's ``study fsm hook`` commands enforce (``--workflow FILE`` of
    a hook in ``.claude/settings.json`` or ``settings.local.json``; ``$CLAUDE_PROJECT_DIR`` is the
    project). A settings file that cannot be read names none."""
    return _hook_paths(project, "--workflow")


def project_fsm_files(project: Path) -> list[Path]:
    """What the agent's commands must not write for the project's FSM to hold: the workflows and
    the frames folders its hooks name (``--workflow``, ``--frames``) and the settings files that
    wire the hooks (the CLI reads them again while it runs)."""
    settings = [project / ".claude" / name for name in SETTINGS_FILES if (project / ".claude" / name).is_file()]
    return [*_hook_paths(project, "--workflow"), *_hook_paths(project, "--frames"), *settings]


def _hook_paths(project: Path, option: str) -> list[Path]:
    """The paths given as ``option`` to the project's ``study fsm hook`` commands, in order, once each."""
    found: list[Path] = []
    for name in SETTINGS_FILES:
        try:
            settings = json.loads((project / ".claude" / name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        hooks = settings.get("hooks") if isinstance(settings, dict) else None
        for groups in (hooks.values() if isinstance(hooks, dict) else []):
            for group in groups if isinstance(groups, list) else []:
                for hook in (group.get("hooks") or []) if isinstance(group, dict) else []:
                    command = hook.get("command") if isinstance(hook, dict) else None
                    if not isinstance(command, str) or "fsm" not in command or "hook" not in command:
                        continue
                    command = re.sub(r"\$\{?CLAUDE_PROJECT_DIR\}?", lambda _m: str(project), command)
                    try:
                        words = shlex.split(command)
                    except ValueError:
                        continue
                    for at, word in enumerate(words[:-1]):
                        if word == option:
                            path = Path(words[at + 1])
                            path = path if path.is_absolute() else project / path
                            if path not in found:
                                found.append(path)
    return found


def names_shell_rules(workflows: list[Path]) -> bool:
    """Whether a workflow among ``workflows`` gates the shell (its ``tools`` list ``shell`` or
    ``Bash``): its agent runs commands, which only an OS sandbox bounds. An unreadable workflow
    counts (the hooks refuse every call under it anyway)."""
    from study.fsm import Workflow

    for path in workflows:
        try:
            tools = Workflow.load(path).tools
        except Exception:   # a broken workflow: the hooks refuse every call; sandbox the commands all the same
            return True
        if "shell" in tools or "Bash" in tools:
            return True
    return False


def sandbox_arguments(project: Path) -> list[str]:
    """``--settings`` turning Claude Code's sandbox on when the project's workflow names shell
    rules, else none; raises UsageError (what to install) when the sandbox cannot start here."""
    if not names_shell_rules(project_workflows(project)):
        return []
    from study.runtimes.sandbox import claude_problem, claude_settings

    problem = claude_problem()
    if problem is not None:
        raise UsageError(f"this project's workflow names shell rules, so the agent's commands run in Claude Code's "
                         f"sandbox, which cannot start here: {problem}")
    for frames in _hook_paths(project, "--frames"):   # the hooks make it at their first call; made now, to be bound
        if not frames.exists():
            frames.mkdir(parents=True, exist_ok=True)
    protected = project_fsm_files(project)
    return ["--settings", json.dumps(claude_settings(read_only=[p for p in protected if p.exists()]))]


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
               epilog=examples("study claude --version",
                               "study claude -p 'Say hello.' --model claude-haiku-4-5",
                               "study claude -- --help          (the CLI's own help)"))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def claude(args: tuple[str, ...]) -> None:
    """Run the Claude Code CLI bundled with claude-agent-sdk with ARGS (its stdin, output and exit
    code are the command's own). It is the CLI every session runs; it is not on PATH as `claude`.
    In a project whose workflow names shell rules, its sandbox is on (bubblewrap and socat).
    """
    path = cli_path()
    problem = cli_problem(path)
    if problem:
        raise UsageError(problem)
    informational = bool(args) and args[0] in ("--version", "-v", "--help", "-h")
    argv = [str(path), *([] if informational else sandbox_arguments(Path.cwd())), *args]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "posix":  # no exec on Windows: run it and pass its exit code on
        sys.exit(subprocess.call(argv))
    try:
        os.execv(argv[0], argv)
    except OSError as exc:
        raise UsageError(f"cannot run the Claude Code CLI {path}: {exc.strerror}; {_fix(path)}") from None
