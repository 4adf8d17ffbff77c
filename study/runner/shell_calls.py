"""A workspace's shell commands as the runner's bridge records them (issue 46): each one's exit
status, and whether its failure was the runtime's sandbox that did not start.

- :func:`exit_status`: Claude Code's PostToolUse(Failure) hook says whether a command failed (a
  failed one's error starts ``Exit code N``); Codex CLI's PostToolUse hook carries only the
  output, so the Codex adapter gives the bridge ``command_exit``, the status its rollout records
  (``study.transcripts.codex``), which may lag the hook by a moment (None: it never came);
- :func:`sandbox_failure`: a command that did not exit 0 and whose output is a sandbox's words
  (``study.runtimes.sandbox.looks_like_sandbox_failure``) is the runtime's failure once the
  runtime's own probe confirms the sandbox cannot start (the reason); a command can print the
  same words, so without the probe's confirmation it is the command's own.
"""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any, Callable

#: The shell as both CLIs' hooks name it (Codex's ``exec_command`` reaches them as ``Bash``).
SHELL_TOOL = "Bash"
#: Seconds to wait for the runtime's record of a command's exit status.
EXIT_WAIT_S = 2.0


async def exit_status(hook_ok: bool, error_text: str, call_id: str,
                      command_exit: Callable[[str], int | None] | None) -> int | None:
    """The exit status of a completed command (see the module docstring); ``hook_ok``: the hook
    reported success; ``error_text``: its error, when it reported a failure."""
    if command_exit is not None:
        deadline = time.monotonic() + EXIT_WAIT_S
        while True:
            code = command_exit(call_id)
            if code is not None or time.monotonic() >= deadline:
                return code
            await asyncio.sleep(0.02)
    if hook_ok:
        return 0
    found = re.match(r"Exit code (-?\d+)", error_text)
    return int(found.group(1)) if found else None


async def sandbox_failure(exit_code: int | None, output: str, probe: Callable[[], str | None] | None) -> str | None:
    """Why the runtime's sandbox cannot start, when this command's failure was that (see the
    module docstring); None: the command's own result."""
    from study.runtimes.sandbox import looks_like_sandbox_failure

    if probe is None or exit_code == 0 or not looks_like_sandbox_failure(output):
        return None
    problem = await asyncio.to_thread(probe)
    return f"the sandbox of the agent's commands stopped starting: {problem}" if problem is not None else None


def as_failure(hook_input: dict[str, Any], output: str) -> dict[str, Any]:
    """A PostToolUse hook input of a command that exited non-zero (Codex's) as the failure it was."""
    return {**hook_input, "hook_event_name": "PostToolUseFailure", "error": output}
