"""Every ending rule of a session (study.runner.ending.after_call), without a CLI: one row per
rule and per rule that must not fire, each naming the call's end, the session's state and the
expected answer. The same rules end real sessions in test_limits_and_errors_e2e.py."""

from __future__ import annotations

from dataclasses import replace

import pytest
from claude_agent_sdk import ProcessError, ResultError

from study.runner.ending import NO_SESSION_ID, CallEnd, End, NewContext, Resume, SessionState, after_call
from study.runtimes.claude_code.errors import classify_error
from study.protocol.limits import Limits
from study.session_io.vocabulary import Limit, SessionStatus as S, VoidReason

LIMITS = Limits(spending_usd=10.0, turns=100, no_decision_s=60.0, stop_blocks=5, resumes=3,
                resumes_without_decision=2, wall_time_s=3600.0, budget_usd=8.0)

#: a resumable session after its first call: accounts left, nothing special
BASE = SessionState(accounts_left=5, decided_in_call=True, stop_cap_reached=False, resumable=True, resumes=0,
                    idle_resumes=0, cost_usd=1.0, has_session_id=True)


def _result_error(**data) -> ResultError:
    return ResultError("Claude Code returned an error result", data={"type": "result", **data}, exit_code=1)


API_500 = _result_error(subtype="success", is_error=True, api_error_status=500, terminal_reason="api_error")
OVERFLOW = _result_error(subtype="success", is_error=True, api_error_status=400, terminal_reason="prompt_too_long",
                         result="Prompt is too long")
MAX_TURNS = _result_error(subtype="error_max_turns", is_error=True)

ROWS = [
    # (rule, call end, state changes, expected status or Resume(idle))
    ("a call that ends with accounts left is resumed", CallEnd(), {}, Resume(0)),
    ("1 a signal ended the call", CallEnd(interrupted="SIGTERM"), {}, S.INTERRUPTED),
    ("1 a signal beats a limit reached at the same time", CallEnd(limit=Limit.SPENDING, interrupted="SIGINT"), {}, S.INTERRUPTED),
    ("1 a signal after the last decision: completed", CallEnd(interrupted="SIGINT"), {"accounts_left": 0},
     S.COMPLETED),
    ("1 ... even beside a limit", CallEnd(limit=Limit.SPENDING, interrupted="SIGTERM"), {"accounts_left": 0},
     S.COMPLETED),
    ("2 the spending cap mid-call", CallEnd(limit=Limit.SPENDING), {}, S.LIMIT_SPENDING),
    ("2 no decision for too long", CallEnd(limit=Limit.NO_DECISION), {}, S.LIMIT_NO_DECISION),
    ("2 the wall time", CallEnd(limit=Limit.WALL_TIME), {"accounts_left": 0}, S.LIMIT_WALL_TIME),
    ("2 the gate refused too many calls without a decision (exploratory conditions)",
     CallEnd(limit=Limit.GATE_REFUSALS), {}, S.LIMIT_GATE_REFUSALS),
    ("3 an API error voids", CallEnd(error=classify_error(API_500)), {}, S.INFRASTRUCTURE_FAILURE),
    ("3 a crash of the CLI voids", CallEnd(error=classify_error(ProcessError("Command failed", exit_code=137))), {}, S.INFRASTRUCTURE_FAILURE),
    ("3 a crash of the runtime voids", CallEnd(error=classify_error(RuntimeError("frame store unreadable"))), {}, S.INFRASTRUCTURE_FAILURE),
    ("3 the turns limit", CallEnd(error=classify_error(MAX_TURNS)), {}, S.LIMIT_TURNS),
    ("3 a context overflow with accounts left is a model outcome", CallEnd(error=classify_error(OVERFLOW)), {}, S.ENDED_WITH_ACCOUNTS_LEFT),
    ("3 a context overflow after the last decision", CallEnd(error=classify_error(OVERFLOW)), {"accounts_left": 0}, S.COMPLETED),
    ("3 an error is not resumed, even resumable", CallEnd(error=classify_error(OVERFLOW)), {"resumes": 1}, S.ENDED_WITH_ACCOUNTS_LEFT),
    ("4 no account left", CallEnd(), {"accounts_left": 0}, S.COMPLETED),
    ("4 completed beats the stop cap and every later rule", CallEnd(),
     {"accounts_left": 0, "stop_cap_reached": True, "resumes": 3, "cost_usd": 99.0, "signal": "SIGTERM"}, S.COMPLETED),
    ("5 the stop-hook block cap", CallEnd(), {"stop_cap_reached": True}, S.LIMIT_STOP_BLOCKS),
    ("5 the stop cap also when not resumable", CallEnd(), {"stop_cap_reached": True, "resumable": False}, S.LIMIT_STOP_BLOCKS),
    ("6 not resumable", CallEnd(), {"resumable": False}, S.ENDED_WITH_ACCOUNTS_LEFT),
    ("6 not resumable, a signal after the call changes nothing", CallEnd(), {"resumable": False, "signal": "SIGINT"},
     S.ENDED_WITH_ACCOUNTS_LEFT),
    ("7 a signal after the call: interrupted instead of resumed", CallEnd(), {"signal": "SIGTERM"}, S.INTERRUPTED),
    ("8 a resumed call without a decision counts", CallEnd(), {"resumes": 1, "decided_in_call": False}, Resume(1)),
    ("8 ... the second in a row ends it", CallEnd(), {"resumes": 2, "decided_in_call": False, "idle_resumes": 1},
     S.LIMIT_RESUMES_WITHOUT_DECISION),
    ("8 a decision resets the count", CallEnd(), {"resumes": 2, "decided_in_call": True, "idle_resumes": 1}, Resume(0)),
    ("8 the first call is not a resumed one", CallEnd(), {"resumes": 0, "decided_in_call": False, "idle_resumes": 0},
     Resume(0)),
    ("9 the resumes limit", CallEnd(), {"resumes": 3}, S.LIMIT_RESUMES),
    ("9 one below it", CallEnd(), {"resumes": 2}, Resume(0)),
    ("10 the spending cap between calls", CallEnd(), {"cost_usd": 10.0}, S.LIMIT_SPENDING),
    ("10 just below it", CallEnd(), {"cost_usd": 9.999}, Resume(0)),
    ("11 no session id to resume voids", CallEnd(), {"has_session_id": False}, S.INFRASTRUCTURE_FAILURE),
    # a run of fresh contexts (contexts_left set): what ends a context starts the next one
    ("C4 a context that ends on its own starts the next", CallEnd(), {"resumable": False, "contexts_left": 2},
     NewContext("ended_with_accounts_left")),
    ("C4 ... also at its turn cap", CallEnd(error=classify_error(MAX_TURNS)), {"contexts_left": 1},
     NewContext("limit:turns")),
    ("C4 ... also at its time limit", CallEnd(limit=Limit.NO_DECISION), {"contexts_left": 1},
     NewContext("limit:no_decision")),
    ("C1 the last context ended: completed", CallEnd(), {"resumable": False, "contexts_left": 0}, S.COMPLETED),
    ("C1 ... even at its turn cap", CallEnd(error=classify_error(MAX_TURNS)), {"contexts_left": 0}, S.COMPLETED),
    ("C2 a signal after the context's call", CallEnd(), {"resumable": False, "contexts_left": 1, "signal": "SIGINT"},
     S.INTERRUPTED),
    ("C3 the budget, checked before the next context", CallEnd(), {"resumable": False, "contexts_left": 1,
                                                                   "cost_usd": 8.0}, S.LIMIT_BUDGET),
    ("C3 just below it", CallEnd(), {"resumable": False, "contexts_left": 1, "cost_usd": 7.99},
     NewContext("ended_with_accounts_left")),
    ("a context run: a signal during the call ends the run", CallEnd(interrupted="SIGTERM"), {"contexts_left": 3},
     S.INTERRUPTED),
    ("a context run: the spending cap ends the run", CallEnd(limit=Limit.SPENDING), {"contexts_left": 3},
     S.LIMIT_SPENDING),
    ("a context run: an infrastructure failure ends the run", CallEnd(error=classify_error(API_500)),
     {"contexts_left": 3}, S.INFRASTRUCTURE_FAILURE),
    ("a context run resumes within a context as its condition says", CallEnd(), {"contexts_left": 3}, Resume(0)),
]


@pytest.mark.parametrize("rule,call,changes,expected", ROWS, ids=[r[0] for r in ROWS])
def test_ending_rule(rule, call, changes, expected):
    answer = after_call(call, replace(BASE, **changes), LIMITS)
    if isinstance(expected, NewContext):   # how the context ended, with the error's words where it had one
        assert isinstance(answer, NewContext) and answer.ended.startswith(expected.ended), answer
    elif isinstance(expected, Resume):
        assert answer == expected
    else:
        assert isinstance(answer, End) and answer.status == expected, answer


def test_what_an_ending_records():
    done = after_call(CallEnd(interrupted="SIGTERM"), replace(BASE, accounts_left=0), LIMITS)
    assert (done.status, done.error, done.void_kind, done.after_last_decision) == (S.COMPLETED, None, None, "SIGTERM")
    signal = after_call(CallEnd(interrupted="SIGTERM"), BASE, LIMITS)
    assert signal.void_kind == VoidReason.INTERRUPTED and "SIGTERM" in signal.error
    api = after_call(CallEnd(error=classify_error(API_500)), BASE, LIMITS)
    assert api.void_kind == VoidReason.INFRASTRUCTURE_FAILURE and "HTTP 500" in api.error
    assert "context overflow" in after_call(CallEnd(error=classify_error(OVERFLOW)), BASE, LIMITS).error
    assert after_call(CallEnd(), replace(BASE, has_session_id=False), LIMITS).error == NO_SESSION_ID
    for status in (S.COMPLETED, S.LIMIT_SPENDING, S.ENDED_WITH_ACCOUNTS_LEFT):
        assert End(status).void_kind is None and not status.voids
    assert End(S.INTERRUPTED).status.voids and End(S.INFRASTRUCTURE_FAILURE).status.voids


def test_every_limit_has_a_rule_that_ends_with_it():
    """Each limit of limits.yaml is reachable through after_call (mid-call, by the CLI, or between calls)."""
    reached = {a.status for _, call, changes, a in
               [(r, c, ch, after_call(c, replace(BASE, **ch), LIMITS)) for r, c, ch, _ in ROWS] if isinstance(a, End)}
    assert {lim.status for lim in Limit} <= reached
