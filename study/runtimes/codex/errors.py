"""How a Codex CLI call's end ends the session, decided from the error alone (paper appendix A).

``codex exec`` exits 1 after a ``turn.failed`` (its ``--json`` stream says why) or when it cannot
start (a config or MCP start-up error on stderr), and 128 + n when a signal n killed it. What
Codex CLI 0.169.0 says for each, checked against a scripted server (docs/runtimes.md):

- "Codex ran out of room in the model's context window" (an HTTP 400 ``context_length_exceeded``
  or a ``response.failed`` with that code; Codex does not compact then): the conversation
  outgrew the model's context, a **model outcome**;
- every other failed turn ("Quota exceeded", "exceeded retry limit, last status: 429 …", a stream
  disconnected after its retries, a 400 of the API), a start-up failure, or a CLI killed by a
  signal the runner did not send: an **infrastructure failure** (voided);
- the runner's own limit on model responses per call (``limits.turns``; Codex has none of its
  own): ``limit:turns``;
- a workspace session whose sandbox cannot start (``SandboxUnavailable``, found by the adapter's
  probe before the first call): an **infrastructure failure**, in one line.
"""

from __future__ import annotations

from study.runtimes.base import MODEL_OUTCOME, Ending, crash
from study.runtimes.sandbox import SandboxUnavailable
from study.session_io.vocabulary import Limit, SessionStatus

#: What Codex says when the context is full (the model's doing).
CONTEXT_FULL = "ran out of room in the model's context window"


class CodexFailed(RuntimeError):
    """``codex exec`` ended without success: ``message`` is what its stream or stderr said,
    ``returncode`` its exit code."""

    def __init__(self, message: str, returncode: int | None):
        super().__init__(message)
        self.message = message
        self.returncode = returncode


class TurnsLimit(RuntimeError):
    """The call reached the runner's limit of model responses per call."""


def classify_error(exc: BaseException) -> Ending:
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, SandboxUnavailable):
        return Ending(SessionStatus.INFRASTRUCTURE_FAILURE, True, f"the sandbox of the agent's commands could not start: {exc}")
    if isinstance(exc, TurnsLimit):
        return Ending(Limit.TURNS.status, False, text)
    if isinstance(exc, CodexFailed):
        if CONTEXT_FULL in exc.message:
            return Ending(MODEL_OUTCOME, False, f"context overflow: {text}")
        if exc.returncode is not None and exc.returncode > 128:
            return Ending(SessionStatus.INFRASTRUCTURE_FAILURE, True,
                          f"Codex CLI was killed by signal {exc.returncode - 128}: {text}")
        return Ending(SessionStatus.INFRASTRUCTURE_FAILURE, True, f"Codex CLI failed: {text}")
    return crash(exc)
