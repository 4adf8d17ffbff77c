"""OpenAI's Codex CLI as a runtime: the version pinned in ``npm/`` (``pin.py``), configured per
session in a fresh ``CODEX_HOME`` (``config.py``), its hooks and MCP servers relayed to the
session's runner (``relay.py``, ``bridge_server.py``), driven through ``codex exec --json``
(``adapter.py``); ``study codex`` runs the same CLI with a workflow's FSM (``command.py``)."""

from __future__ import annotations

from typing import Any

from study.protocol.runtimes import CODEX

from . import pin


class Codex:
    """The Codex CLI runtime (``study.runtimes.base.Runtime``)."""

    name = CODEX.name
    label = CODEX.label
    api = CODEX.api

    def version(self) -> str | None:
        return pin.installed_version() or None

    def record(self) -> dict[str, Any]:
        """The versions a session records: the installed CLI's and the npm lock's sha256."""
        return {"cli_version": pin.installed_version(), "sdk_version": None, "runtime_lock_sha256": pin.lock_sha256()}

    def problem(self) -> str | None:
        return pin.problem()

    def sandbox_problem(self) -> str | None:
        """None: Codex CLI brings its own sandbox (its bubblewrap and seccomp), which each workspace
        session tries before its first call (a sandbox that cannot start voids it in one line)."""
        return None

    #: what to do when the doctor's probe session fails on this runtime
    reinstall = "reinstall the pinned Codex CLI: study runtime install codex"

    def describe(self) -> list[tuple[str, str]]:
        """What ``study doctor`` shows of the install: the installed and the pinned version."""
        return [("Codex CLI", f"{pin.installed_version() or 'not installed'} (pinned {pin.pinned_version()}) at "
                              f"{pin.binary_path() or pin.install_dir()}")]

    def check_install(self) -> tuple[bool, str, str]:
        """``study doctor``'s check of the install (ok, what was found, what to do): installed as
        the committed npm lock pins it."""
        problem = pin.problem()
        if problem is not None:
            return False, problem, "study runtime install codex (needs Node.js and npm)"
        return True, (f"{pin.installed_version()} installed from the committed npm lock "
                      f"(sha256 {pin.lock_sha256()[:12]}…) at {pin.binary_path()}"), ""

    def open(self, setup: Any) -> Any:
        from .adapter import CodexSession   # the MCP server and asyncio process code load only to run

        return CodexSession(setup)


RUNTIME = Codex()
