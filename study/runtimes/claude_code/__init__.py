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

    def open(self, setup: Any) -> Any:
        from .adapter import ClaudeCodeSession   # the SDK is imported only by a command that runs a session

        return ClaudeCodeSession(setup)


RUNTIME = ClaudeCode()
