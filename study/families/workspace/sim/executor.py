"""Run a workspace policy directly in a folder: no CLI, a real FSM runtime, fresh contexts.

:class:`Executor` is what a CLI would be to a scripted workspace agent, reduced to the actions:
``Shell`` runs through ``/bin/sh`` in the workspace (a subprocess; ``python`` is this
interpreter), ``WriteFile``/``EditFile`` change files on disk (an edit needs its ``old`` text
exactly once, as Claude Code's Edit does), ``McpCall`` to server ``fsm`` calls the FSM's tools on a
real :class:`~study.fsm.runtime.FsmRuntime` (the same code its MCP server runs). Under a workflow
every built-in action passes the FSM's gate first (tools ``shell``, ``write``, ``edit`` with
arguments ``command``/``path``) and is observed after, and an ``EndTurn`` passes the stop gate: a
blocked one gets the block as its outcome and the context goes on.

A *turn* is one action other than ``Say`` (a model's response ends with one tool call or a final
answer); a context ends with an ``EndTurn`` the stop gate lets through, or at its turn cap.
:meth:`Executor.run_context` runs one fresh context (a new :class:`ContextView`: the policy sees
nothing of earlier contexts but the workspace's files and the FSM's frames); a run is a sequence
of them (:meth:`Executor.run`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from study.fsm.runtime import FsmRuntime
from study.fsm.tool_api import call_fsm_tool
from study.fsm.workflow import Workflow

from .actions import Action, ContextView, EditFile, EndTurn, McpCall, Outcome, Say, Shell, WriteFile

#: what a shell command may print before it is cut (a CLI cuts long output too)
MAX_OUTPUT = 30_000


@dataclass
class ContextResult:
    number: int
    prompt: str
    turns: int
    #: "end_turn" (the agent ended it), "turn_cap" (the cap ended it)
    ended: str
    final_text: str
    view: ContextView
    #: the FSM's state when the context ended (None: no workflow active or no FSM)
    state: str | None = None


@dataclass
class Executor:
    """Runs contexts in ``workspace``; under ``workflow`` (None: the plain condition) with its
    frames in ``frames``: one frame for the whole run (the state carries over from context to
    context, as AutoResearch's stages do), or a new one per context with ``frame_per_context``
    (each month-end period is a new instance of the close workflow)."""

    workspace: Path
    workflow: Workflow | None = None
    frames: Path | None = None
    frame_per_context: bool = False
    turn_cap: int = 40
    shell_timeout_s: float = 120.0
    contexts: list[ContextResult] = field(default_factory=list)
    fsm: FsmRuntime | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.workflow is not None and self.frames is None:
            raise ValueError("an FSM run needs a folder for its frames")

    # -- a run ------------------------------------------------------------------------------------

    def run(self, policy, prompts: Iterable[str], until: Callable[[ContextResult], bool] | None = None) -> list[ContextResult]:
        """Run one fresh context per prompt (stop early once ``until(result)`` holds)."""
        for prompt in prompts:
            result = self.run_context(policy, prompt)
            if until is not None and until(result):
                break
        return self.contexts

    def run_context(self, policy, prompt: str) -> ContextResult:
        self._enter()
        view = ContextView(prompt)
        turns, final = 0, ""
        ended = "turn_cap"
        while turns < self.turn_cap:
            action = policy.next_action(view)
            if isinstance(action, Say):
                view.steps.append((action, Outcome(True, "")))
                continue
            turns += 1
            if isinstance(action, EndTurn):
                blocked = self._stop_block()
                if blocked is None:
                    view.steps.append((action, Outcome(True, "")))
                    ended, final = "end_turn", action.text
                    break
                view.steps.append((action, Outcome(False, blocked, denied=blocked)))
                view.messages.append(blocked)
                continue
            view.steps.append((action, self.act(action)))
        result = ContextResult(len(self.contexts) + 1, prompt, turns, ended, final, view, self._state())
        self.contexts.append(result)
        return result

    # -- one action -------------------------------------------------------------------------------

    def act(self, action: Action) -> Outcome:
        if isinstance(action, McpCall):
            return self._mcp(action)
        tool, args = self._gate_call(action)
        if self.fsm is not None:
            decision = self.fsm.gate(tool, args)
            if not decision.allowed:
                return Outcome(False, decision.reason, denied=decision.reason)
        if isinstance(action, Shell):
            outcome = self._shell(action.command)
        elif isinstance(action, WriteFile):
            outcome = self._write(action)
        elif isinstance(action, EditFile):
            outcome = self._edit(action)
        else:
            raise TypeError(f"not a workspace action: {action!r}")
        if self.fsm is not None:
            self.fsm.observe(tool, args, outcome.ok)
        return outcome

    def _gate_call(self, action: Action) -> tuple[str, dict]:
        if isinstance(action, Shell):
            return "shell", {"command": action.command}
        if isinstance(action, WriteFile):
            return "write", {"path": self._relative(action.path)}
        if isinstance(action, EditFile):
            return "edit", {"path": self._relative(action.path)}
        raise TypeError(f"not a workspace action: {action!r}")

    def _relative(self, path: str) -> str:
        full = (self.workspace / path).resolve()
        try:
            return full.relative_to(self.workspace.resolve()).as_posix()
        except ValueError:
            return full.as_posix()

    def _shell(self, command: str) -> Outcome:
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        try:
            proc = subprocess.run(["/bin/sh", "-c", command], cwd=self.workspace, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=self.shell_timeout_s)
        except subprocess.TimeoutExpired:
            return Outcome(False, f"the command timed out after {self.shell_timeout_s:g} s")
        text = proc.stdout[-MAX_OUTPUT:]
        if proc.returncode != 0:
            text += f"\n(exit status {proc.returncode})"
        return Outcome(proc.returncode == 0, text)

    def _write(self, action: WriteFile) -> Outcome:
        path = self.workspace / action.path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(action.content, encoding="utf-8")
        except OSError as exc:
            return Outcome(False, f"cannot write {action.path}: {exc.strerror or exc}")
        return Outcome(True, f"wrote {action.path} ({len(action.content)} characters)")

    def _edit(self, action: EditFile) -> Outcome:
        path = self.workspace / action.path
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            return Outcome(False, f"cannot read {action.path}: {exc.strerror or exc}")
        found = text.count(action.old)
        if found != 1:
            return Outcome(False, f"the text to replace occurs {found} times in {action.path}; it must occur exactly once")
        path.write_text(text.replace(action.old, action.new), encoding="utf-8")
        return Outcome(True, f"edited {action.path}")

    def _mcp(self, action: McpCall) -> Outcome:
        if action.server != "fsm" or self.fsm is None:
            return Outcome(False, f"no MCP server {action.server!r} here")
        is_error, text = call_fsm_tool(self.fsm, action.tool, action.args)
        return Outcome(not is_error, text)

    # -- the FSM around a context -----------------------------------------------------------------

    def _enter(self) -> None:
        """Before a context's first message: enter the workflow (a frame left in its exit state by
        the last context is exited first, so the next context starts the workflow anew)."""
        if self.workflow is None:
            return
        if self.fsm is None or self.frame_per_context:
            folder = self.frames / f"context-{len(self.contexts) + 1}" if self.frame_per_context else self.frames
            self.fsm = FsmRuntime(folder, {self.workflow.name: self.workflow}, shell_cwd=self.workspace, fsync=False)
        status = self.fsm.status()
        if status.get("active") and status.get("is_exit"):
            self.fsm.exit()
        self.fsm.enter(self.workflow.name)

    def _stop_block(self) -> str | None:
        if self.fsm is None:
            return None
        decision = self.fsm.stop_gate()
        return None if decision.allowed else decision.reason

    def _state(self) -> str | None:
        return self.fsm.state if self.fsm is not None else None


def status_state(outcome: Outcome) -> str | None:
    """The state an FSM ``status`` outcome names (None: no workflow active)."""
    try:
        return json.loads(outcome.text).get("state")
    except (ValueError, AttributeError):
        return None
