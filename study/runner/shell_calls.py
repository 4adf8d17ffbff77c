"""A workspace's shell commands as the runner's bridge records them (issue 46): each one's exit
status, and whether its failure was the runtime's sandbox that did not start.

- :func:`exit_status`: Claude Code's PostToolUse(Failure) hook says whether a command failed (a
  failed one's error starts ``Exit code N``); Codex CLI's PostToolUse hook carries only the
  output, so the Codex adapter gives the bridge ``command_exit``, the status its rollout records
  (``study.transcripts.codex``: the ``CommandExecution`` item, written before the hook runs);
- :class:`Pending`: Codex 0.169.0 writes no such item for some commands (seen for ones that fail
  at once: a bubblewrap that does not start, ``git diff --output`` to a read-only file); their
  status is only in the call's output, which Codex records after the hook. The bridge logs such
  a command once that output is read (the next hook, or the adapter's reading of the rollout,
  whichever comes first, so the log keeps the calls' order), or with no status at the call's end;
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
EXIT_WAIT_S = 0.5


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


class Pending:
    """Commands logged once their exit status is known (see the module docstring): call id ->
    (the hook's input, the tool, the hook's tool use id)."""

    def __init__(self) -> None:
        self.calls: dict[str, tuple[dict[str, Any], str, str | None]] = {}

    def add(self, call_id: str, hook_input: dict[str, Any], tool: str, tool_use_id: str | None) -> None:
        self.calls[call_id] = (hook_input, tool, tool_use_id)

    def known(self, command_exit: Callable[[str], int | None] | None,
              outputs: dict[str, str] | None = None) -> list[tuple[dict[str, Any], str, str | None, int | None]]:
        """The waiting commands whose status is now known (from ``command_exit``, or the header of an
        output in ``outputs``: call id -> text), in their order, each taken off the list."""
        from study.transcripts.codex import command_output

        found = []
        for call_id in list(self.calls):
            code = command_exit(call_id) if command_exit is not None else None
            if code is None and outputs and call_id in outputs:
                parsed = command_output(outputs[call_id])
                code = parsed.exit_code if parsed is not None else None
            if code is None:
                break           # a later one waits too: the order holds
            found.append((*self.calls.pop(call_id), code))
        return found

    def drain(self) -> list[tuple[dict[str, Any], str, str | None, int | None]]:
        """Every command still waiting, with no status (its call has ended)."""
        out = [(*entry, None) for entry in self.calls.values()]
        self.calls.clear()
        return out
