"""How an error of a Claude Code call ends the session, decided from the error alone (paper
appendix A; the voiding itself is ``study.runner.voiding``'s).

- ``ResultError`` with subtype ``error_max_turns``: the turns limit (the CLI enforces it per
  call).
- A context overflow (terminal reason ``prompt_too_long`` or the API's "prompt is too long"):
  a model outcome.
- Any other API error (HTTP status, rate limit, quota, overload, server error), any other
  failure of the CLI process and any exception of the runtime: infrastructure failure (voided);
  so is a workspace session whose sandbox cannot start (``SandboxUnavailable``: its one line).
"""

from __future__ import annotations

import re

from claude_agent_sdk import ClaudeSDKError, ResultError

from study.runtimes.base import MODEL_OUTCOME, Ending, crash
from study.runtimes.sandbox import SandboxUnavailable
from study.session_io.vocabulary import Limit, SessionStatus

INFRASTRUCTURE_FAILURE = SessionStatus.INFRASTRUCTURE_FAILURE

#: ResultError subtypes that are limits, and the limit each one is. (The spending cap is the
#: runner's own, see ``study/runner/spending.py``; the CLI enforces only the turns per call.)
LIMIT_SUBTYPES = {"error_max_turns": Limit.TURNS}

#: terminal_reason values that are the model's doing: the conversation outgrew the context.
MODEL_TERMINAL_REASONS = ("prompt_too_long",)

_OVERFLOW = re.compile(r"prompt is too long|context (window|length)|too many tokens", re.I)


def classify_error(exc: BaseException) -> Ending:
    """Classify the exception a ``query()`` call ended with (see the module docstring)."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SandboxUnavailable):
        return Ending(INFRASTRUCTURE_FAILURE, True, f"the sandbox of the agent's commands could not start: {exc}")
    if isinstance(exc, ResultError):
        if exc.subtype in LIMIT_SUBTYPES:
            return Ending(LIMIT_SUBTYPES[exc.subtype].status, False, text)
        if exc.terminal_reason in MODEL_TERMINAL_REASONS or (exc.api_error_status == 400 and _OVERFLOW.search(str(exc))):
            return Ending(MODEL_OUTCOME, False, f"context overflow: {text}")
        status = f"HTTP {exc.api_error_status}" if exc.api_error_status else (exc.terminal_reason or exc.subtype)
        return Ending(INFRASTRUCTURE_FAILURE, True, f"API error ({status}): {text}")
    if isinstance(exc, ClaudeSDKError):
        return Ending(INFRASTRUCTURE_FAILURE, True, f"Claude Code process failed: {text}")
    return crash(exc)
