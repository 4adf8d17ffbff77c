"""Running a guard, committing a transition, and the runtime-driven (automatic) transitions.

A transition marked ``automatic: true`` in the workflow is never requested by the agent: right
after a completed tool call is appended to the history (``FsmRuntime.observe``, from the
PostToolUse hook), the runtime runs the guards of the automatic transitions out of the current
state, in the file's order, and commits the first that holds, with the same hard checks and the
same commit as a requested transition (variables, history and state together). The new state may
have an automatic transition that holds at once (e.g. the last decision of a batch: S_decide ->
S_investigate -> S_done); the runtime follows such a chain, visiting each state at most once.

Everything here works on a live frame in memory; the runtime writes the frame to disk once, after
the call and every transition it caused, so a crash leaves the frame either as it was before the
call or with the call and its transitions, never in between (``frames.FrameStore.save``).

The agent learns of a move from :func:`arrival_text` (the hooks put it in the tool call's result
as PostToolUse additional context): the guard's note and the new state's instructions, once, only
when the state changed, and not at all for a move marked ``quiet: true``. When it does something the state does not admit, :func:`next_step` says
the one thing to do next: the refusal of the first automatic transition out of the state.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .checks import CheckResult, GuardContext, Reviewer, run_shell_check, tracker_key
from .live_frame import _Live
from .outcomes import TransitionResult
from .workflow import NamedCheck, ShellCheck, Transition


def run_guard(live: _Live, transition: Transition, reviewer: Reviewer | None, shell_cwd: Path | None) -> CheckResult:
    """The guard of ``transition`` on the frame: every hard check, then the soft one (if a reviewer
    is plugged in). Changes nothing; the variables to set come back in the result."""
    frame, wf = live.frame, live.workflow
    updates: dict[str, Any] = {}
    notes = []
    for check in transition.hard:
        context = GuardContext(
            workflow=wf.name,
            state=frame.state,
            target=transition.target,
            history=frame.history,
            variables=frame.variables,
            params=check.params if isinstance(check, NamedCheck) else {},
            tracker=live.trackers.get(tracker_key(check.registered, check.params)) if isinstance(check, NamedCheck) else None,
            automatic=transition.automatic,
        )
        if isinstance(check, ShellCheck):
            result = run_shell_check(check.command, check.timeout_s, context, shell_cwd, sha256=check.sha256)
        else:
            try:
                result = check.registered.fn(context)
            except Exception as exc:  # a broken check must not break the runtime
                result = CheckResult(False, f"check '{check.name}' raised {type(exc).__name__}: {exc}")
        if not result.ok:
            return result
        updates.update(result.set_variables)
        if result.message:
            notes.append(result.message)
    if transition.soft is not None and reviewer is not None:
        context = GuardContext(wf.name, frame.state, transition.target, frame.history, frame.variables, {},
                               automatic=transition.automatic)
        result = reviewer.review(transition.soft.prompt, context)
        if not result.ok:
            return CheckResult(False, f"review refused the transition: {result.message}")
    return CheckResult(True, " ".join(notes), updates)


def commit(live: _Live, target: str, verdict: CheckResult) -> TransitionResult:
    """Move the frame (in memory) to ``target``: variables, history and state together."""
    frame = live.frame
    here = frame.state
    frame.variables.update(verdict.set_variables)
    live.append({"kind": "transition", "from": here, "to": target})
    frame.state = target
    frame.commits += 1
    return TransitionResult(True, verdict.message or f"moved from {here} to {target}", here, target)


def advance(live: _Live, reviewer: Reviewer | None, shell_cwd: Path | None) -> list[TransitionResult]:
    """Commit (in memory) every automatic transition that holds, following a chain through states
    not yet visited by it; return the committed transitions (empty: the state did not change)."""
    moved: list[TransitionResult] = []
    visited = {live.frame.state}
    while True:
        for transition in live.workflow.automatic_from(live.frame.state):
            if transition.target in visited:
                continue
            verdict = run_guard(live, transition, reviewer, shell_cwd)
            if verdict.ok:
                moved.append(commit(live, transition.target, verdict))
                visited.add(transition.target)
                break
        else:
            return moved


def next_step(live: _Live, reviewer: Reviewer | None, shell_cwd: Path | None) -> str | None:
    """What to do next in a state with automatic transitions out of it: the first one's guard
    message (None: the state has no automatic transition)."""
    automatic = live.workflow.automatic_from(live.frame.state)
    if not automatic:
        return None
    return run_guard(live, automatic[0], reviewer, shell_cwd).message or f"complete what {automatic[0].target} needs"


def arrival_text(live: _Live, moved: list[TransitionResult]) -> str:
    """What the agent is told after automatic moves: each guard's note, then the state it is in
    now and that state's instructions; nothing when every move was ``quiet`` (a move the agent
    was told to expect, e.g. FSM-lean's from one item to the next: the gate's refusals say what
    to do next if it does something else)."""
    transitions = live.workflow.transitions
    told = [m for m in moved if not getattr(transitions.get((m.from_state, m.to_state)), "quiet", False)]
    if not told:
        return ""
    notes = " ".join(m.reason for m in told if m.reason)
    state = live.frame.state
    instructions = live.workflow.states[state].instructions.strip()
    return " ".join(part for part in (notes, f"Now in workflow state {state}.", instructions) if part)
