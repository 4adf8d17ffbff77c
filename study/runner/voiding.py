"""Which endings void a session, decided from the error alone (paper appendix A).

An API, quota or server error, or a crash of the runtime (the CLI process, the tool server,
the FSM, this runner) makes the session an ``infrastructure_failure``: it is kept, marked voided
in meta.json and never deleted, and ``study run-all --rerun-voided`` reruns it from scratch
after moving the voided attempt aside (``attempt-1/``, ``attempt-2/``, ...). A context overflow
caused by the model is a model outcome, as are the limits. Nothing here looks at decisions.
A session ended by SIGINT or SIGTERM to its runner is ``interrupted``: voided the same way
(``void_kind: interrupted``, see ``ending.py``) and rerun from scratch by ``--rerun-voided``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from claude_agent_sdk import ClaudeSDKError, ResultError

from study.session_io.folders import ATTEMPT_PREFIX, is_attempt
from study.session_io.vocabulary import Limit, SessionStatus

from .claim import CLAIM_NAME

INFRASTRUCTURE_FAILURE = SessionStatus.INFRASTRUCTURE_FAILURE
#: ``Ending.status`` of an error that is the model's doing (the accounts left decide the status).
MODEL_OUTCOME = "model"

#: ResultError subtypes that are limits, and the limit each one is. (The spending cap is the
#: runner's own, see ``spending.py``; the CLI enforces only the turns per call.)
LIMIT_SUBTYPES = {"error_max_turns": Limit.TURNS}

#: terminal_reason values that are the model's doing: the conversation outgrew the context.
MODEL_TERMINAL_REASONS = ("prompt_too_long",)

_OVERFLOW = re.compile(r"prompt is too long|context (window|length)|too many tokens", re.I)


@dataclass(frozen=True)
class Ending:
    """How an error ends a session: a status, and whether the session is voided."""

    status: str          # a SessionStatus (infrastructure_failure, limit:<name>) or MODEL_OUTCOME
    voided: bool
    reason: str


def classify_error(exc: BaseException) -> Ending:
    """Classify the exception a ``query()`` call ended with.

    - ``ResultError`` with subtype ``error_max_turns``: the turns limit (the CLI enforces it per
      call).
    - A context overflow (terminal reason ``prompt_too_long`` or the API's "prompt is too long"):
      a model outcome.
    - Any other API error (HTTP status, rate limit, quota, overload, server error), any other
      failure of the CLI process and any exception of the runtime: infrastructure failure.
    """
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ResultError):
        if exc.subtype in LIMIT_SUBTYPES:
            return Ending(LIMIT_SUBTYPES[exc.subtype].status, False, text)
        if exc.terminal_reason in MODEL_TERMINAL_REASONS or (exc.api_error_status == 400 and _OVERFLOW.search(str(exc))):
            return Ending(MODEL_OUTCOME, False, f"context overflow: {text}")
        status = f"HTTP {exc.api_error_status}" if exc.api_error_status else (exc.terminal_reason or exc.subtype)
        return Ending(INFRASTRUCTURE_FAILURE, True, f"API error ({status}): {text}")
    if isinstance(exc, ClaudeSDKError):
        return Ending(INFRASTRUCTURE_FAILURE, True, f"Claude Code process failed: {text}")
    return Ending(INFRASTRUCTURE_FAILURE, True, f"runtime crash: {text}")


def archive_attempt(session_dir: Path) -> Path:
    """Move a voided or unfinished session's files into ``attempt-<k>/`` inside its folder, so the
    rerun starts from scratch and the earlier attempt is kept. Returns the attempt folder."""
    session_dir = Path(session_dir)
    k = 1
    while (session_dir / f"{ATTEMPT_PREFIX}{k}").exists():
        k += 1
    target = session_dir / f"{ATTEMPT_PREFIX}{k}"
    target.mkdir()
    for entry in sorted(session_dir.iterdir()):
        if is_attempt(entry.name) or entry.name == CLAIM_NAME:  # the rerun's claim stays
            continue
        os.replace(entry, target / entry.name)
    return target
