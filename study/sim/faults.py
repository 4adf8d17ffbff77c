"""Forced events: the compaction and the infrastructure faults a simulated session can be given.

Both exist for tests of the runner and the FSM: a compaction in the middle of a session (does
the FSM state survive, does the model go on?) and a fault that must void the session (is it
recorded as an infrastructure failure?).

* ``compact_after=N``: once N decisions are made, the next main-loop request is answered so
  that the CLI compacts: with ``compact_mode="http400"`` an HTTP 400 ``prompt is too long``;
  with ``compact_mode="usage"`` a normal answer that reports ``USAGE_COMPACT_INPUT`` input
  tokens, which makes the CLI compact before its next request when
  ``CLAUDE_CODE_AUTO_COMPACT_WINDOW`` is set (``SimServer.cli_env`` sets it).
* ``fault=KIND`` with ``fault_at=R``: from the R-th main-loop request on, every main-loop request
  fails (so the CLI's retries fail too): ``http500`` (HTTP 500 api_error), ``quota`` (HTTP 429
  with a quota message) or ``drop`` (the connection is closed in the middle of the response).
"""

from __future__ import annotations

from dataclasses import dataclass

FAULT_KINDS = ("http500", "quota", "drop")
COMPACT_MODES = ("http400", "usage")
#: Reported input tokens that trigger the CLI's auto-compaction (threshold ~167k of a 200k window).
USAGE_COMPACT_INPUT = 190_000
#: The auto-compact window the CLI is told to use in ``usage`` mode.
AUTO_COMPACT_WINDOW = 200_000
PROMPT_TOO_LONG = "prompt is too long: 210000 tokens > 200000 maximum"
QUOTA_MESSAGE = "Your credit balance is too low to access the API: quota exceeded. Add credits to continue."
SERVER_ERROR_MESSAGE = "Internal server error (simulated fault)"


@dataclass(frozen=True)
class ForcedEvents:
    """What to force, and when (see the module docstring)."""

    compact_after: int | None = None
    compact_mode: str = "http400"
    fault: str | None = None
    fault_at: int = 1

    def __post_init__(self) -> None:
        if self.compact_mode not in COMPACT_MODES:
            raise ValueError(f"compact_mode must be one of {COMPACT_MODES}, got {self.compact_mode!r}")
        if self.compact_after is not None and self.compact_after < 0:
            raise ValueError(f"compact_after must be a number of decisions >= 0, got {self.compact_after}")
        if self.fault is not None and self.fault not in FAULT_KINDS:
            raise ValueError(f"fault must be one of {FAULT_KINDS}, got {self.fault!r}")
        if self.fault_at < 1:
            raise ValueError(f"fault_at is a main-loop request number (1 = the first), got {self.fault_at}")

    def fault_now(self, main_request: int) -> str | None:
        """The fault to answer the ``main_request``-th main-loop request with, if any."""
        return self.fault if self.fault is not None and main_request >= self.fault_at else None
