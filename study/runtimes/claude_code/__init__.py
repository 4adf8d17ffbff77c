"""Claude Code as a runtime: the CLI bundled in the locked claude-agent-sdk wheel, driven through
the SDK (``adapter.py``); its pin is read without importing the SDK (``pin.py``)."""

from __future__ import annotations

from typing import Any

from study.protocol.runtimes import CLAUDE_CODE

from . import pin

REINSTALL = "reinstall: pip install --force-reinstall --no-deps --require-hashes -r requirements.lock"


class ClaudeCode:
    """The Claude Code runtime (``study.runtimes.base.Runtime``)."""

    name = CLAUDE_CODE.name
    label = CLAUDE_CODE.label
    api = CLAUDE_CODE.api

    def version(self) -> str | None:
        return pin.bundled_cli_version()

    def record(self) -> dict[str, Any]:
        """The versions a session records: the CLI's and the SDK's that bundles it."""
        return {"cli_version": pin.bundled_cli_version(), "sdk_version": pin.sdk_version()}

    def problem(self) -> str | None:
        if pin.bundled_cli_path() is None:
            return f"the installed claude-agent-sdk bundles no Claude Code CLI; {REINSTALL}"
        return None

    def sandbox_problem(self) -> str | None:
        """Why the agent's commands in a workspace cannot be sandboxed here (one line saying what
        to install), or None: Claude Code's sandbox needs bubblewrap and socat."""
        from study.runtimes.sandbox import claude_problem

        return claude_problem()

    #: what to do when the doctor's probe session fails on this runtime
    reinstall = REINSTALL

    def describe(self) -> list[tuple[str, str]]:
        """What ``study doctor`` shows of the install: the SDK and the CLI it bundles."""
        path = pin.bundled_cli_path()
        return [("claude-agent-sdk", str(pin.sdk_version())),
                ("Claude Code CLI", f"{pin.bundled_cli_version()} (bundled) at {path or 'none'}")]

    def check_install(self) -> tuple[bool, str, str]:
        """``study doctor``'s check of the install (ok, what was found, what to do): the CLI sessions
        run is the bundled one, and its binary reports the bundled version. ``STUDY_CLAUDE_CLI``
        (``study claude``'s test hook) fails it: sessions always run the bundled CLI."""
        import os

        from .command import CLI_ENV, cli_path, cli_problem

        path = cli_path()
        problem = cli_problem(path)
        if problem:
            return False, problem.split("; ")[0], problem.split("; ", 1)[-1]
        if os.environ.get(CLI_ENV):
            return False, (f"{CLI_ENV}={path} overrides the bundled CLI, but sessions always run the bundled "
                           "one, so this check says nothing about them"), f"unset {CLI_ENV}"
        said, bundled = pin.bundled_cli_version_from_binary(), pin.bundled_cli_version()
        if said != bundled:
            return False, f"{path} reports version {said}, the SDK bundles {bundled}", REINSTALL
        return True, f"{path} runs and reports {said}", ""

    def open(self, setup: Any) -> Any:
        from .adapter import ClaudeCodeSession   # the SDK is imported only by a command that runs a session

        return ClaudeCodeSession(setup)


RUNTIME = ClaudeCode()
