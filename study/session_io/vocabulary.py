"""The closed vocabularies of session records: statuses, limits, void reasons, event kinds.

Every module that writes or reads a status, a limit name, a void reason or an event kind imports
it from here; none spells one by hand. The members are ``StrEnum``s, so they serialise to JSON as
the plain strings of docs/contracts.md and compare equal to those strings when read back.
"""

from __future__ import annotations

from enum import StrEnum


class Limit(StrEnum):
    """The external limits of ``preregistration/limits.yaml``, by the name a status carries
    (``limit:<name>``). ``yaml_key`` is the key in limits.yaml, ``field`` the attribute of
    ``study.protocol.limits.Limits`` (and the ``--limit NAME=VALUE`` override key)."""

    SPENDING = "spending"
    TURNS = "turns"
    NO_DECISION = "no_decision"
    STOP_BLOCKS = "stop_blocks"
    RESUMES = "resumes"
    RESUMES_WITHOUT_DECISION = "resumes_without_decision"
    WALL_TIME = "wall_time"
    #: Exploratory conditions only: consecutive tool-gate refusals without a new decision.
    GATE_REFUSALS = "gate_refusals"
    #: A run of fresh contexts (a staged protocol): its budget, checked before each context starts
    #: (a run may end slightly above it, as the paper's did); only where limits.yaml sets it.
    BUDGET = "budget"

    @property
    def yaml_key(self) -> str:
        return _YAML_KEYS.get(self, self.value)

    @property
    def field(self) -> str:
        return _FIELDS.get(self, self.value)

    @property
    def status(self) -> "SessionStatus":
        return SessionStatus(f"limit:{self.value}")


_YAML_KEYS = {Limit.NO_DECISION: "no_decision_minutes", Limit.WALL_TIME: "wall_time_hours",
              Limit.GATE_REFUSALS: "exploratory_gate_refusals_without_decision", Limit.BUDGET: "budget_per_run"}
_FIELDS = {Limit.SPENDING: "spending_usd", Limit.NO_DECISION: "no_decision_s", Limit.WALL_TIME: "wall_time_s",
           Limit.BUDGET: "budget_usd"}


class SessionStatus(StrEnum):
    """A session's status (``session_end.status`` and ``meta.json`` ``status``).

    ``RUNNING`` is meta.json's while the runner works; ``UNFINISHED`` is never written by a
    runner that ended properly: readers show it for a ``running`` session whose runner is gone
    (and ``--rerun-voided`` writes it into the meta of the attempt it moves aside).
    """

    RUNNING = "running"
    COMPLETED = "completed"
    ENDED_WITH_ACCOUNTS_LEFT = "ended_with_accounts_left"
    INFRASTRUCTURE_FAILURE = "infrastructure_failure"
    INTERRUPTED = "interrupted"
    UNFINISHED = "unfinished"
    LIMIT_SPENDING = "limit:spending"
    LIMIT_TURNS = "limit:turns"
    LIMIT_NO_DECISION = "limit:no_decision"
    LIMIT_STOP_BLOCKS = "limit:stop_blocks"
    LIMIT_RESUMES = "limit:resumes"
    LIMIT_RESUMES_WITHOUT_DECISION = "limit:resumes_without_decision"
    LIMIT_WALL_TIME = "limit:wall_time"
    LIMIT_GATE_REFUSALS = "limit:gate_refusals"
    LIMIT_BUDGET = "limit:budget"

    @property
    def limit(self) -> Limit | None:
        """The limit a ``limit:<name>`` status names, else None."""
        return Limit(self.value.split(":", 1)[1]) if self.value.startswith("limit:") else None

    @property
    def final(self) -> bool:
        """A status a finished session keeps (not running, not unfinished)."""
        return self not in (SessionStatus.RUNNING, SessionStatus.UNFINISHED)

    @property
    def voids(self) -> bool:
        """Statuses that void the session: never analysed, rerun from scratch with --rerun-voided."""
        return self in (SessionStatus.INFRASTRUCTURE_FAILURE, SessionStatus.INTERRUPTED, SessionStatus.UNFINISHED)


def status_voids(status: object) -> bool:
    """``status`` (a ``SessionStatus`` or any value read from a file) voids the session; an
    unknown value does not."""
    try:
        return SessionStatus(status).voids
    except ValueError:
        return False


class VoidReason(StrEnum):
    """Why a session is voided (``meta.json`` ``void_kind``; ``void_reason`` keeps the text)."""

    INFRASTRUCTURE_FAILURE = "infrastructure_failure"   # API, quota or server error; runtime crash
    INTERRUPTED = "interrupted"                         # SIGINT/SIGTERM to the runner
    UNFINISHED = "unfinished"                           # the runner died without a session_end


class EventKind(StrEnum):
    """The kinds of ``events.jsonl`` lines every family's log may hold (docs/contracts.md, "Session
    log"); a task family's own kinds are its ``events`` part's (``events.EVENT_TYPES`` has both)."""

    SESSION_START = "session_start"
    TOOL_CALL = "tool_call"
    TRANSITION = "transition"
    STOP = "stop"
    RESUME = "resume"
    COMPACTION = "compaction"
    ASSISTANT_TEXT = "assistant_text"
    CALL_END = "call_end"
    USAGE = "usage"           # schema 2: the running cost after each streamed model response
    MODEL_USAGE = "model_usage"  # a response of a model beside the agent's (a benchmark's customer, a judge), priced
    PROPOSAL = "proposal"     # a workflow change the agent proposed (exploratory FSM-propose only)
    API_RETRY = "api_retry"   # schema 2: a transient API error the CLI retried (HTTP 529, 429, 5xx)
    CONTEXT_START = "context_start"        # a run of fresh contexts: a new CLI session begins
    CONTEXT_END = "context_end"            # ... and ends (how)
    OUTCOME = "outcome"                    # a family's scored result of the work (its evaluator's verdict)
    COMMIT = "commit"                      # a session in a workspace: a commit the agent made
    SESSION_END = "session_end"
