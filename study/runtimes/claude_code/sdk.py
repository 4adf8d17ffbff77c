"""The one place that touches claude-agent-sdk's private API, and the runtime's versions.

Everything else in the package uses the SDK's public API only. Each private use below says why
it is needed and what breaks without it; ``tests/runner/test_sdk_internals.py`` exercises every
one of them against the installed SDK, so an SDK update that moves them fails there, loudly,
with the reason, instead of in the middle of a study.

- ``claude_agent_sdk._cli_version.__cli_version__``: the version of the Claude Code CLI bundled
  in the wheel. Needed to record and check the frozen runtime *before* a CLI is started (the
  CLI's own ``init`` message reports it only once a session runs). ``pin.py`` reads the same
  file without importing the SDK (for the reading commands); ``tests/runner/test_sdk_internals.py``
  checks both readings agree. Without it: the version would have to be read by running
  ``claude --version``, which ``bundled_cli_version_from_binary`` does as a cross-check.
- ``claude_agent_sdk._internal.transport.subprocess_cli.SubprocessCLITransport``: the SDK's CLI
  transport. ``query(transport=...)`` is public, but the stock transport offers no way to end
  the CLI at once: cancelling ``query()`` only closes the CLI's stdin, and the CLI goes on asking
  the model for seconds. ``CLITransport`` below reads its ``_process`` for the CLI's pid, so
  the runner can stop the CLI's process group at once (``launcher.stop_process_group``) when a
  limit or a signal ends a call. Without it: a call ended mid-stream would keep the CLI asking
  the model (billed, recorded nowhere) until it noticed its closed stdin.

Public API is used wherever there is one: the CLI is started through ``ClaudeAgentOptions.
cli_path`` (pointing at the runner's launcher, ``study/runtimes/launcher.py``, which execs the
bundled CLI whose path ``pin.bundled_cli_path`` gives) and ``query(transport=...)``.
"""

from __future__ import annotations

from claude_agent_sdk._cli_version import __cli_version__
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

from .pin import SDK_DISTRIBUTION, bundled_cli_path, bundled_cli_version_from_binary, sdk_version

__all__ = [
    "CLITransport", "SubprocessCLITransport", "bundled_cli_path", "bundled_cli_version", "sdk_version",
    "bundled_cli_version_from_binary", "SDK_DISTRIBUTION",
]


def bundled_cli_version() -> str:
    """The version of the Claude Code CLI bundled in the installed SDK wheel, as the SDK itself
    says it (``pin.bundled_cli_version`` reads the same file without importing the SDK)."""
    return __cli_version__


class CLITransport(SubprocessCLITransport):
    """The SDK's CLI transport, plus the pid of the CLI process it started (None before it starts
    and once it has exited), so the runner can end the CLI at once."""

    @property
    def pid(self) -> int | None:
        process = self._process
        if process is None or process.returncode is not None:
            return None
        return process.pid
