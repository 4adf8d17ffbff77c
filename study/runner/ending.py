"""What happens after a call of the agent CLI ends: resume, or end the session with a status.

``after_call`` is a pure function of how the call ended (``CallEnd``), what the session's state
is once it ended (``SessionState``: accounts left, whether the call decided anything, the stop
cap, the counters and cost so far) and the limits. It decides, it does nothing: the driver in
``session.py`` performs the answer (``Resume`` or ``End``). Every ending rule of the study is
here, in this order (the first that applies wins), so ``tests/runner/test_ending.py`` checks
each one with a table instead of a real CLI session:

1. the call was ended by a signal to the runner (SIGINT, SIGTERM, SIGHUP, SIGQUIT):
   ``interrupted`` (voided), unless every account was decided before it arrived: then
   ``completed`` (the voiding rule of preregistration/plan.md section 7), recording the signal;
2. the call was ended by a limit the runner enforces mid-call (spending, no decision, wall
   time; in the exploratory conditions also gate refusals without a decision): ``limit:<name>``;
3. the call ended with an error: how the runtime adapter classified it decides (``limit:turns``,
   a voiding ``infrastructure_failure``, or a model outcome: a context overflow, then rule 4 or
   ``ended_with_accounts_left`` with the overflow as the error);
4. no account is left: ``completed``;
5. the CLI let a stop through at the stop-hook block cap: ``limit:stop_blocks``;
6. the condition is not resumed: ``ended_with_accounts_left``;
7. a signal arrived after the call ended: ``interrupted`` instead of resuming;
8. the resumed call that just ended made no decision, for the ``resumes_without_decision``-th
   time in a row: ``limit:resumes_without_decision``;
9. ``resumes`` resumes were made: ``limit:resumes``;
10. the session's cost reached the spending cap: ``limit:spending``;
11. the CLI reported no session id to resume: ``infrastructure_failure`` (voided);
12. otherwise: resume.

A run of fresh contexts (a staged protocol: ``SessionState.contexts_left`` is not None; each
context a new CLI session that shares only the workspace files and the FSM's frames) ends a
*context* where a batch session would end: by rule 3's turns limit or model outcome, by rules 4 to
6, by rules 8 and 9 (a condition that resumes within a context), and by the time limit without a
decision (rule 2's ``no_decision``: the time limit of one context). Then, in this order:

C1. no context is left: ``completed`` (every context ran; the scorer says how each went);
C2. a signal arrived after the call ended: ``interrupted``;
C3. the run's cost reached its budget (``budget_usd``, checked before each context starts, so a
    run may end slightly above it): ``limit:budget``;
C4. otherwise: a new context (``NewContext``).

Everything else ends the run as it ends a batch session: a signal during the call, the spending
cap, the wall time, the gate's refusals, an infrastructure failure.
"""

from __future__ import annotations

from dataclasses import dataclass

from study.protocol.limits import Limits
from study.runtimes.base import MODEL_OUTCOME, Ending
from study.session_io.vocabulary import Limit, SessionStatus, VoidReason

NO_SESSION_ID = "the CLI reported no session id, so the session cannot be resumed"


@dataclass(frozen=True)
class CallEnd:
    """How one call ended: on its own (``error`` None), with an error (as the runtime adapter
    classified it, ``study.runtimes.base.Ending``), ended by one of the runner's mid-call limits,
    or ended because the runner received a signal."""

    limit: Limit | None = None
    error: Ending | None = None
    interrupted: str | None = None      # the signal's name (``SIGTERM``), when one ended the call


@dataclass(frozen=True)
class SessionState:
    """What the rules read once a call has ended."""

    accounts_left: int
    decided_in_call: bool           # the call made at least one new decision
    stop_cap_reached: bool          # the CLI let a stop through at the stop-hook block cap
    resumable: bool                 # the condition resumes calls that end with accounts left
    resumes: int                    # resumes made so far (the call that ended was a resumed one iff > 0)
    idle_resumes: int               # consecutive resumed calls without a decision before this one
    cost_usd: float                 # the session's cost so far
    has_session_id: bool            # the CLI reported the session id a resume needs
    signal: str | None = None       # a signal received after the call ended (SIGINT, SIGTERM)
    #: a run of fresh contexts: how many contexts follow the one whose call ended (None: one context)
    contexts_left: int | None = None


@dataclass(frozen=True)
class Resume:
    """Resume the session; ``idle_resumes`` is the new count of resumed calls without a decision."""

    idle_resumes: int


@dataclass(frozen=True)
class NewContext:
    """End the context whose call ended (``ended``: how, a status's words) and start the next one."""

    ended: str


@dataclass(frozen=True)
class End:
    """End the session with ``status``; ``error`` is what session_end and meta.json record."""

    status: SessionStatus
    error: str | None = None
    #: A ``completed`` session stopped by a signal after its last decision: the signal (rule 1).
    after_last_decision: str | None = None

    @property
    def void_kind(self) -> VoidReason | None:
        """Why the session is voided, or None if it is not."""
        if self.status == SessionStatus.INTERRUPTED:
            return VoidReason.INTERRUPTED
        if self.status == SessionStatus.INFRASTRUCTURE_FAILURE:
            return VoidReason.INFRASTRUCTURE_FAILURE
        return None


def interrupted(signal: str) -> End:
    """The ending of a session stopped by a signal to its runner: ``signal`` is the signal's name
    (``SIGTERM``) or what ``Interruption.reason`` says (``SIGTERM: its run-all (pid 7) died``)."""
    what = signal if " " in signal else f"{signal} to the runner"
    return End(SessionStatus.INTERRUPTED, f"interrupted by {what}; rerun from scratch")


def unwritable(failure: OSError) -> End:
    """The ending of a session whose log could not be written (a full disk): voided, as a failure
    of the infrastructure."""
    return End(SessionStatus.INFRASTRUCTURE_FAILURE, f"events.jsonl could not be written: {failure}")


def _by_accounts(accounts_left: int, error: str | None = None) -> End:
    status = SessionStatus.COMPLETED if accounts_left == 0 else SessionStatus.ENDED_WITH_ACCOUNTS_LEFT
    return End(status, error)


def after_call(call: CallEnd, state: SessionState, limits: Limits) -> Resume | End | NewContext:
    """The ending rules (see the module docstring): resume, start a new context, or end with a status."""
    answer = _after_call(call, state, limits)
    if state.contexts_left is None or not isinstance(answer, End) or not _ends_the_context_only(call, answer):
        return answer
    if state.contexts_left <= 0:
        return End(SessionStatus.COMPLETED, answer.error)
    if state.signal:
        return interrupted(state.signal)
    if limits.budget_usd is not None and state.cost_usd >= limits.budget_usd:
        return End(SessionStatus.LIMIT_BUDGET, answer.error)
    return NewContext(str(answer.status) + (f" ({answer.error})" if answer.error else ""))


#: How a call may end that ends only its context in a run of fresh contexts (see the docstring).
_CONTEXT_ENDINGS = frozenset({SessionStatus.COMPLETED, SessionStatus.ENDED_WITH_ACCOUNTS_LEFT, SessionStatus.LIMIT_TURNS,
                              SessionStatus.LIMIT_STOP_BLOCKS, SessionStatus.LIMIT_RESUMES,
                              SessionStatus.LIMIT_RESUMES_WITHOUT_DECISION, SessionStatus.LIMIT_NO_DECISION})


def _ends_the_context_only(call: CallEnd, end: End) -> bool:
    if call.interrupted or end.void_kind is not None:
        return False
    return end.status in _CONTEXT_ENDINGS


def _after_call(call: CallEnd, state: SessionState, limits: Limits) -> Resume | End:
    if call.interrupted:
        if state.accounts_left == 0:   # every account was decided before the signal: nothing is missing
            return End(SessionStatus.COMPLETED, after_last_decision=call.interrupted)
        return interrupted(call.interrupted)
    if call.limit is not None:
        return End(call.limit.status)
    if call.error is not None:
        ending = call.error
        if ending.status != MODEL_OUTCOME:
            return End(SessionStatus(ending.status), ending.reason)
        return _by_accounts(state.accounts_left, ending.reason)
    if state.accounts_left == 0:
        return End(SessionStatus.COMPLETED)
    if state.stop_cap_reached:
        return End(SessionStatus.LIMIT_STOP_BLOCKS)
    if not state.resumable:
        return End(SessionStatus.ENDED_WITH_ACCOUNTS_LEFT)
    if state.signal:
        return interrupted(state.signal)
    idle = state.idle_resumes
    if state.resumes > 0:
        idle = 0 if state.decided_in_call else idle + 1
        if idle >= limits.resumes_without_decision:
            return End(SessionStatus.LIMIT_RESUMES_WITHOUT_DECISION)
    if state.resumes >= limits.resumes:
        return End(SessionStatus.LIMIT_RESUMES)
    if state.cost_usd >= limits.spending_usd:
        return End(SessionStatus.LIMIT_SPENDING)
    if not state.has_session_id:
        return End(SessionStatus.INFRASTRUCTURE_FAILURE, NO_SESSION_ID)
    return Resume(idle)
