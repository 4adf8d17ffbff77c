"""The FSM runtime: one agent's frame stack and the three enforcement points (paper, Eqs. 1-3).

:class:`FsmRuntime` owns all state; the hooks, the MCP tools and the command line are thin
adapters over it. Its decisions:

1. :meth:`FsmRuntime.gate` (tool-call gate, Eq. 1): admit a call only if the current state's
   permissions admit it. Read-only.
2. :meth:`FsmRuntime.self_check` then :meth:`FsmRuntime.transition` (transition guard, Eq. 2):
   the self-check issues a one-time token naming the target; the transition spends the token,
   runs the guard and commits the new state, the history and the variables together, or changes
   nothing and returns the checker's message.
3. :meth:`FsmRuntime.stop_gate` (stop gate, Eq. 3): the turn may end only when no workflow is
   active or the state is a pause state. Read-only.

:meth:`FsmRuntime.observe` appends a completed tool call to the history and commits the
*automatic* transitions it makes hold (runtime-driven: no self-check, the same guard and commit;
see :mod:`study.fsm.automatic`). Every change is
written to disk at once (see :mod:`study.fsm.frames`); a new runtime over the same folder
carries on where the last one stopped. Tokens live only in memory (see :mod:`study.fsm.tokens`): a
token issued before a restart is refused and the agent runs the self-check again. The answers
(:class:`Decision`, :class:`TransitionResult`, :class:`FsmRefusal`) are in :mod:`study.fsm.outcomes`;
a frame with its workflow and trackers in :mod:`study.fsm.live_frame`.

With no workflow active the gate admits every call: the FSM constrains an agent only inside a
workflow (the study's runner enters the workflow before the first message).
"""

from __future__ import annotations

import copy
import secrets
import threading
from pathlib import Path
from typing import Any, Callable, Mapping

from .automatic import advance, arrival_text, commit, next_step, run_guard
from .builtin_tools import Action, permitted_patterns, touches
from .checks import Reviewer
from .frames import Frame, FrameStore, FrameStoreError
from .live_frame import _Live
from .outcomes import Decision, FsmRefusal, TransitionResult
from .rule_checks import observe_all
from .tokens import _Grant, _digest
from .workflow import Workflow


class FsmRuntime:
    """The runtime of one agent. Thread-safe; see the module docstring.

    ``frames_dir``: where the frame stack is persisted. ``workflows``: name -> Workflow, the
    workflows this agent may enter. ``variables``: initial variables of every frame entered
    (over the workflow's defaults). ``shared=True`` when other processes use the same folder
    (hook commands, an MCP server): every operation then takes a file lock and re-reads the
    stack if another process changed it. ``reviewer``: the soft checker (None: soft checks off).
    ``versions(name, sha256) -> Workflow | None``: earlier versions of the workflows (see
    :mod:`study.fsm.versions`), so a frame entered under one runs on under it (None: a frame of
    another version than the given workflow is refused).
    """

    def __init__(
        self,
        frames_dir: Path,
        workflows: Mapping[str, Workflow],
        variables: Mapping[str, Any] | None = None,
        *,
        agent: str = "main",
        reviewer: Reviewer | None = None,
        shell_cwd: Path | None = None,
        shared: bool = False,
        fsync: bool = True,
        versions: Callable[[str, str], Workflow | None] | None = None,
    ):
        self.workflows = dict(workflows)
        self.versions = versions
        self.variables = dict(variables or {})
        self.reviewer = reviewer
        self.shell_cwd = shell_cwd
        self.shared = shared
        self._store = FrameStore(Path(frames_dir), agent, fsync=fsync)
        self._lock = threading.RLock()
        self._depth = 0
        self._tokens: dict[str, _Grant] = {}
        self._spent: set[str] = set()
        self._stack: list[_Live] = []
        self._signature: tuple[int, int, int] | None = None
        self._reload()

    # -- persistence ------------------------------------------------------------------------------

    def _reload(self) -> None:
        stack = []
        for frame in self._store.load():
            workflow = self.workflows.get(frame.workflow)
            if workflow is None:
                raise FrameStoreError(
                    f"{self._store.path}: a frame of workflow '{frame.workflow}' is active, but this "
                    f"runtime was not given that workflow (given: {sorted(self.workflows)}); pass its file"
                )
            if workflow.sha256 != frame.workflow_sha256 and self.versions is not None:
                workflow = self.versions(frame.workflow, frame.workflow_sha256) or workflow
            if workflow.sha256 != frame.workflow_sha256:
                raise FrameStoreError(
                    f"{self._store.path}: workflow '{frame.workflow}' was entered under a different "
                    f"version of {workflow.file} (sha256 {frame.workflow_sha256[:12]}..., now "
                    f"{workflow.sha256[:12]}...). A workflow must not change during a run: restore the "
                    "file, or move the frames file away to start over."
                )
            stack.append(_Live(frame, workflow))
        self._stack = stack
        self._signature = self._store.signature()

    def _save(self) -> None:
        self._store.save([live.frame for live in self._stack])
        self._signature = self._store.signature()

    class _Sync:
        """Context: lock (thread and, if shared, file) and re-read the stack if it changed.

        Re-entrant: only the outermost use takes the file lock (a second flock from the same
        process on a new descriptor would wait for itself).
        """

        def __init__(self, rt: "FsmRuntime"):
            self.rt = rt
            self.file_lock = None

        def __enter__(self) -> None:
            self.rt._lock.acquire()
            self.rt._depth += 1
            if self.rt.shared and self.rt._depth == 1:
                self.file_lock = self.rt._store.locked()
                self.file_lock.__enter__()
                if self.rt._store.signature() != self.rt._signature:
                    self.rt._reload()

        def __exit__(self, *exc: object) -> None:
            if self.file_lock is not None:
                self.file_lock.__exit__(*exc)
            self.rt._depth -= 1
            self.rt._lock.release()

    def _sync(self) -> "FsmRuntime._Sync":
        return FsmRuntime._Sync(self)

    # -- reading ----------------------------------------------------------------------------------

    @property
    def state(self) -> str | None:
        """The current state of the innermost active workflow (None: no workflow active)."""
        with self._sync():
            return self._stack[-1].frame.state if self._stack else None

    def frames(self) -> list[dict[str, Any]]:
        """A copy of the stack as plain data, innermost last (what the frames file holds)."""
        with self._sync():
            return copy.deepcopy([live.frame.to_json() for live in self._stack])

    def status(self) -> dict[str, Any]:
        """Where the agent is: workflow, state, instructions, permitted tools, transitions."""
        with self._sync():
            if not self._stack:
                return {"active": False, "workflows": sorted(self.workflows)}
            live = self._stack[-1]
            wf, frame = live.workflow, live.frame
            state = wf.states[frame.state]
            return {
                "active": True,
                "workflow": wf.name,
                "state": frame.state,
                "depth": len(self._stack),
                "instructions": state.instructions,
                "exit_conditions": list(state.exit_conditions),
                "permitted_tools": state.permissions.permitted_tools(wf.tools),
                "transitions": [t.target for t in wf.transitions_from(frame.state)],
                "is_exit": frame.state == wf.exit,
                "may_end_turn": frame.state in wf.pause,
                "history_length": len(frame.history),
                "variables": {k: _summary(v) for k, v in frame.variables.items()},
            }

    # -- entering and leaving ---------------------------------------------------------------------

    def enter(self, name: str) -> dict[str, Any]:
        """Push a frame of workflow ``name`` at its initial state; return the status.

        Entering the workflow that is already active returns its status and changes nothing.
        """
        with self._sync():
            if self._stack and self._stack[-1].workflow.name == name:
                return self.status()
            workflow = self.workflows.get(name)
            if workflow is None:
                raise FsmRefusal(f"unknown workflow '{name}'; available: {', '.join(sorted(self.workflows)) or 'none'}")
            variables = {**workflow.variables, **self.variables}
            frame = Frame(workflow.name, workflow.sha256, workflow.initial, variables)
            self._stack.append(_Live(frame, workflow))
            self._save()
            return self.status()

    def restart(self, name: str) -> list[dict[str, Any]]:
        """The runner's move at the start of a fresh context whose procedure starts anew (each period
        of a monthly close is a new instance of its workflow): every frame is popped, in whatever state,
        and ``name`` entered at its initial state. Returns the popped frames (innermost last), for
        the session's log; never the agent's move (no FSM tool offers it)."""
        with self._sync():
            popped = [live.frame.to_json() for live in self._stack]
            self._stack.clear()
            self._drop_tokens_deeper_than(0)
            self._save()
        self.enter(name)
        return popped

    def exit(self) -> dict[str, Any]:
        """Pop the innermost frame; admitted only in its workflow's exit state."""
        with self._sync():
            if not self._stack:
                raise FsmRefusal("no workflow is active, so there is nothing to exit")
            live = self._stack[-1]
            if live.frame.state != live.workflow.exit:
                raise FsmRefusal(
                    f"exit is admitted only in the exit state '{live.workflow.exit}'; workflow "
                    f"'{live.workflow.name}' is in '{live.frame.state}'. {self._ways_on(live)}"
                )
            self._stack.pop()
            self._drop_tokens_deeper_than(len(self._stack))
            self._save()
            return self.status()

    # -- enforcement point 1: the tool-call gate --------------------------------------------------

    def gate(self, tool: str, args: Any) -> Decision:
        """May ``tool`` run with ``args`` now? Changes nothing."""
        with self._sync():
            if not self._stack:
                return Decision(True, "no workflow is active")
            live = self._stack[-1]
            wf, frame = live.workflow, live.frame
            if not isinstance(args, dict):
                return Decision(False, f"the arguments of {tool} must be a JSON object, got {type(args).__name__}; call it again with named arguments")
            if not wf.knows_tool(tool):
                return Decision(False, f"{tool} is not one of workflow '{wf.name}''s tools, so it cannot be used inside it")
            problem = wf.states[frame.state].permissions.decide(tool, args, frame.variables)
            if problem is None:
                return Decision(True, "")
            nxt = self._next_step(live)
            if nxt is not None:  # a state the runtime leaves on its own: say only the next thing
                return Decision(False, f"{problem} (workflow state {frame.state}). Next: {nxt}")
            return Decision(False, f"{problem} (state {frame.state} of workflow {wf.name}). {self._ways_on(live)}")

    def gate_builtin(self, tool: str, args: Any, actions: list[Action]) -> Decision:
        """The gate for a call of the CLI's own tool ``tool`` (``Bash``, ``Edit``, ``apply_patch``,
        ...) whose vocabulary actions are ``actions`` (``builtin_tools.actions_of``). A workflow
        that uses the vocabulary admits the call only if it admits every action (a patch: every
        file) and none of them edits or writes the FSM's own frames; any other workflow judges the
        call by the runtime's tool name, exactly as :meth:`gate`. Changes nothing."""
        with self._sync():
            if not self._stack or not self._stack[-1].workflow.builtin_vocabulary or not actions:
                return self.gate(tool, args)
            for action in actions:
                if touches(action, self._store.dir):
                    return Decision(False, f"{action.tool} of {action.args.get('path')} is refused: it is the workflow's "
                                           "own record (the FSM's frames), which only the FSM changes")
                decision = self.gate(action.tool, action.args)
                if not decision.allowed:
                    return decision
            return Decision(True, "")

    def observe(self, tool: str, args: Any, ok: bool, result: str | None = None) -> list[TransitionResult]:
        """Append a completed tool call to the active frame's history and commit the automatic
        transitions it makes hold (see :mod:`study.fsm.automatic`), in one write of the frame.
        Returns those transitions (empty: the state did not change; always empty for a workflow
        without automatic transitions, and with no workflow active)."""
        return self.observe_and_tell(tool, args, ok, result)[0]

    def observe_and_tell(self, tool: str, args: Any, ok: bool, result: str | None = None) -> tuple[list[TransitionResult], str]:
        """:meth:`observe`, and what the agent is told of its moves (:meth:`arrival_text`), in one
        critical section: another process sharing the frames cannot move the state in between,
        so the text names the state this call moved to."""
        return self._observe([(tool, args)], ok, result)

    def observe_builtin(self, tool: str, args: Any, actions: list[Action], ok: bool,
                        result: str | None = None) -> tuple[list[TransitionResult], str]:
        """:meth:`observe_and_tell` for a call of the CLI's own tool ``tool`` whose vocabulary
        actions are ``actions`` (``builtin_tools.actions_of``): under a workflow that uses the
        vocabulary each action is one call of the history (a patch of two files: two), else the
        call as the runtime names it; the automatic transitions run once, after all of them."""
        with self._sync():
            if self._stack and self._stack[-1].workflow.builtin_vocabulary and actions:
                return self._observe([(a.tool, a.args) for a in actions], ok, result)
            return self._observe([(tool, args)], ok, result)

    def _observe(self, calls: list[tuple[str, Any]], ok: bool,
                 result: str | None = None) -> tuple[list[TransitionResult], str]:
        with self._sync():
            if not self._stack:
                return [], ""
            live = self._stack[-1]
            for tool, args in calls:
                live.append({"kind": "call", "tool": tool, "args": args if isinstance(args, dict) else {"_raw": args}, "ok": bool(ok)})
                if live.workflow.observers:  # the workflow's observers update the frame's variables (rule_checks.py)
                    observe_all(live.workflow.observers, {"tool": tool, "args": args if isinstance(args, dict) else {},
                                                          "ok": bool(ok), "result": result}, live.frame.variables)
            moved = advance(live, self.reviewer, self.shell_cwd)
            self._save()
            return moved, arrival_text(self._stack[-1], moved) if moved else ""

    def arrival_text(self, moved: list[TransitionResult]) -> str:
        """What the agent is told after automatic transitions: the guards' notes, the state it is
        in now and that state's instructions ("" when nothing moved)."""
        with self._sync():
            if not moved or not self._stack:
                return ""
            return arrival_text(self._stack[-1], moved)

    # -- enforcement point 2: self-check, token, guarded transition ------------------------------

    def self_check(self, target: str) -> dict[str, Any]:
        """Issue a one-time token for a transition from the current state to ``target``."""
        with self._sync():
            if not self._stack:
                raise FsmRefusal("no workflow is active; enter one first")
            live = self._stack[-1]
            wf, frame = live.workflow, live.frame
            if target not in wf.states:
                raise FsmRefusal(f"'{target}' is not a state of workflow '{wf.name}'. {self._ways_on(live)}")
            if (frame.state, target) not in wf.transitions:
                raise FsmRefusal(f"there is no transition from {frame.state} to {target}. {self._ways_on(live)}")
            token = f"{target}:{secrets.token_urlsafe(24)}"  # names its target; 192 random bits
            self._tokens[token] = _Grant(len(self._stack), wf.name, frame.state, target, frame.commits)
            return {
                "token": token,
                "target": target,
                "state": frame.state,
                "exit_conditions": list(wf.states[frame.state].exit_conditions),
            }

    def transition(self, target: str, token: str | None) -> TransitionResult:
        """Spend ``token``, run the guard of (state -> target), commit or change nothing."""
        with self._sync():
            if not self._stack:
                return TransitionResult(False, "no workflow is active; enter one first", None, None)
            live = self._stack[-1]
            wf, frame = live.workflow, live.frame
            here = frame.state

            def refuse(reason: str) -> TransitionResult:
                return TransitionResult(False, reason, here, here)

            if target not in wf.states:
                return refuse(f"'{target}' is not a state of workflow '{wf.name}'. {self._ways_on(live)}")
            if not isinstance(token, str) or not token:
                return refuse(f"a transition needs a token: call self_check with target {target} first, then transition with the token it returns")
            if _digest(token) in self._spent:
                return refuse("this token was already used; every token works once. Call self_check again for a new one")
            grant = self._tokens.pop(token, None)
            if grant is None:
                return refuse("unknown token (not issued by self_check, or issued before the FSM restarted); call self_check for a new one")
            self._spent.add(_digest(token))
            if grant.target != target:
                return refuse(f"this token names target {grant.target}, not {target}; it is now spent. Call self_check with target {target}")
            if (grant.depth, grant.workflow, grant.state, grant.commits) != (len(self._stack), wf.name, here, frame.commits):
                return refuse(f"this token was issued in state {grant.state} before the workflow moved on; call self_check again")
            transition = wf.transitions.get((here, target))
            if transition is None:  # unreachable: self_check only grants declared transitions
                return refuse(f"there is no transition from {here} to {target}")
            verdict = run_guard(live, transition, self.reviewer, self.shell_cwd)
            if not verdict.ok:
                return refuse(verdict.message)
            result = commit(live, target, verdict)
            self._save()
            return result

    def _drop_tokens_deeper_than(self, depth: int) -> None:
        for token in [t for t, g in self._tokens.items() if g.depth > depth]:
            del self._tokens[token]

    # -- enforcement point 3: the stop gate -------------------------------------------------------

    def stop_gate(self) -> Decision:
        """May the agent end its turn now? Changes nothing."""
        with self._sync():
            if not self._stack:
                return Decision(True, "no workflow is active")
            live = self._stack[-1]
            if live.frame.state in live.workflow.pause:
                return Decision(True, f"{live.frame.state} is a pause state")
            nxt = self._next_step(live)
            if nxt is not None:
                return Decision(False, f"Workflow state {live.frame.state}: the turn cannot end here. Next: {nxt}")
            return Decision(
                False,
                f"Workflow {live.workflow.name} is in state {live.frame.state}, where the turn cannot "
                f"end (it is not a pause state). {self._ways_on(live)}",
            )

    # -- messages ---------------------------------------------------------------------------------

    def _next_step(self, live: _Live) -> str | None:
        """The one thing to do next where the state has automatic transitions (else None)."""
        return next_step(live, self.reviewer, self.shell_cwd)

    @staticmethod
    def _ways_on(live: _Live) -> str:
        """One sentence naming what the agent can do from the current state."""
        wf, state = live.workflow, live.frame.state
        tools = wf.states[state].permissions.permitted_tools(wf.tools)
        if wf.builtin_vocabulary:  # the built-in tools with their patterns: shell (command matches 'make *')
            tools = permitted_patterns(wf.states[state].permissions, tools)
        parts = [f"In {state} you may call: {', '.join(tools) if tools else 'no tools'}."]
        targets = [t.target for t in wf.transitions_from(state)]
        if targets:
            parts.append(f"Transitions from {state}: {', '.join(targets)} (self_check with the target, then transition with its token).")
        if state == wf.exit:
            parts.append(f"{state} is the exit state: call exit to leave the workflow.")
        return " ".join(parts)


def _summary(value: Any) -> Any:
    """Long lists are shown by length in status."""
    if isinstance(value, (list, tuple)) and len(value) > 10:
        return f"<{len(value)} items>"
    return value


__all__ = ["FsmRuntime"]
