"""The claude-agent-sdk internals the runner relies on (study/runtimes/claude_code/sdk.py), each exercised against
the installed SDK, so that an SDK update that moves or changes one fails here, loudly, with the
reason, instead of in the middle of a study; and the installed SDK is the one the lock pins."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import time

import pytest
from claude_agent_sdk import ClaudeAgentOptions, query

from study.runtimes.claude_code import sdk
from study.runtimes.launcher import group_members, stop_process_group, write_launcher

UPDATE = ("claude-agent-sdk changed under the runner (installed {version}); see the docstring of "
          "study/runtimes/claude_code/sdk.py for what this internal is for, adapt sdk.py, then update the lock")


def _why(what: str) -> str:
    return f"{what}: " + UPDATE.format(version=sdk.sdk_version())


def test_the_installed_sdk_is_the_locked_one():
    environment = pytest.importorskip("study.runtimes.lock", reason="package D's study.runtimes.lock (the lock) is not there yet")
    locked = environment.locked_versions().get(sdk.SDK_DISTRIBUTION)
    assert locked is not None, f"{environment.lock_path()} pins no {sdk.SDK_DISTRIBUTION}"
    assert sdk.sdk_version() == locked, (
        f"installed {sdk.SDK_DISTRIBUTION} {sdk.sdk_version()} is not the locked {locked}: install from the lock "
        "(README), or update the lock and record the runtime change by an amendment")


def test_the_bundled_cli_version_is_read_from_the_wheel_and_is_the_binary_s():
    version = sdk.bundled_cli_version()   # claude_agent_sdk._cli_version.__cli_version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), _why(f"_cli_version.__cli_version__ is {version!r}")
    assert sdk.bundled_cli_version_from_binary() == version, _why(
        "the bundled CLI's --version differs from _cli_version.__cli_version__ (the runtime recorded before a "
        "session starts would be wrong)")


def test_the_bundled_cli_is_where_the_runner_starts_it_from():
    path = sdk.bundled_cli_path()   # claude_agent_sdk/_bundled/claude
    assert path is not None and os.access(path, os.X_OK), _why(
        "no executable claude_agent_sdk/_bundled/claude (the launcher execs it)")


def test_the_public_api_the_runner_uses_is_there():
    assert "cli_path" in {f for f in ClaudeAgentOptions.__dataclass_fields__}, _why("ClaudeAgentOptions.cli_path is gone")
    assert "transport" in inspect.signature(query).parameters, _why("query(transport=...) is gone")
    assert issubclass(sdk.CLITransport, sdk.SubprocessCLITransport)
    assert list(inspect.signature(sdk.SubprocessCLITransport.__init__).parameters)[1:3] == ["prompt", "options"], _why(
        "SubprocessCLITransport(prompt, options) changed")


def test_the_cli_pid_is_reachable_and_its_process_group_can_be_stopped(tmp_path):
    """_internal.transport.subprocess_cli.SubprocessCLITransport._process: the pid of the CLI, which
    the runner needs to stop the CLI's process group at once when a limit or a signal ends a call."""
    launcher = write_launcher(tmp_path / "bin", sdk.bundled_cli_path())
    options = ClaudeAgentOptions(cli_path=launcher, cwd=str(tmp_path), setting_sources=[], tools=[], env={
        "HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude"), "ANTHROPIC_API_KEY": "sk-test",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})

    async def scenario() -> tuple[int | None, list[int], float, int | None]:
        transport = sdk.CLITransport(prompt="hello", options=options)
        assert transport.pid is None
        await transport.connect()
        pid = transport.pid
        deadline = time.monotonic() + 30   # the launcher makes the group in its first milliseconds
        while pid and not group_members(pid) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        members = group_members(pid) if pid else []
        took = await stop_process_group(pid) if pid else -1.0
        await transport.close()
        return pid, members, took, transport.pid

    pid, members, took, after = asyncio.run(scenario())
    assert isinstance(pid, int), _why("SubprocessCLITransport._process is no longer the started process")
    assert members == [pid], "the launcher makes the CLI the leader of its own process group"
    assert not group_members(pid) and after is None and took < 5.0
