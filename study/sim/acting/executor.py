"""Run a workspace policy's actions directly in a folder, without a CLI: fast tests of protocols.

:class:`Executor` plays the part of the agent CLI for a :class:`~.actions.WorkspacePolicy`: it
asks the policy for its next action, gates the call through the FSM as the CLI's hooks would
(the same ``study.fsm.hooks`` functions, with the hook input Claude Code sends: ``Bash``,
``Write``, ``Edit``), runs it in the folder (``/bin/sh -c`` for a command, Python for a write
or an edit), records it (PostToolUse / PostToolUseFailure), and at the end of a turn asks the
stop gate, which may make the policy go on. MCP calls go to the FSM's own tools (server
``fsm``) or to the providers given (``servers``: name -> an object with ``call(tool, args)``
returning a result with ``ok`` and ``text``, such as a task family's tool provider).

What it does not do is what the CLIs add: no sandbox (a command runs with the test's rights;
a write or an edit outside the folder is refused), no transcript, no model API. The same policy
then drives the real CLIs through the simulator (``responder.py``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Mapping

from study.fsm import hooks as fsm_hooks
from study.fsm.builtin_tools import relative_path
from study.fsm.runtime import FsmRuntime
from study.fsm.tool_api import call_fsm_tool

from .actions import Action, ContextView, EditFile, EndTurn, McpCall, Outcome, Say, Shell, WorkspacePolicy, WriteFile

#: Seconds one command may run.
COMMAND_TIMEOUT_S = 120.0
#: Stop blocks in a row before the turn ends anyway (the study's limit; Claude Code's cap).
MAX_STOP_BLOCKS = 50


class Executor:
    """Runs actions in ``workspace``, gated by ``fsm`` (None: every call is admitted and the turn
    may always end). ``log`` lists every call: ``{"action", "ok", "text", "denied"}``."""

    def __init__(self, workspace: Path, *, fsm: FsmRuntime | None = None, servers: Mapping[str, Any] | None = None,
                 timeout_s: float = COMMAND_TIMEOUT_S, env: Mapping[str, str] | None = None,
                 max_stop_blocks: int = MAX_STOP_BLOCKS):
        self.workspace = Path(workspace).resolve()
        self.fsm = fsm
        self.servers = dict(servers or {})
        self.timeout_s = timeout_s
        self.env = dict(env) if env is not None else None
        self.max_stop_blocks = max_stop_blocks
        self.log: list[dict[str, Any]] = []

    # -- one context -------------------------------------------------------------------------------

    def run(self, policy: WorkspacePolicy, prompt: str, *, max_calls: int = 500) -> ContextView:
        """One context: the policy's actions from ``prompt`` until its turn ends and the stop gate
        lets it (or ``max_calls`` calls, or ``max_stop_blocks`` blocks in a row). Returns the
        context as the policy saw it."""
        view = ContextView(prompt=prompt)
        blocks = 0
        while len(view.calls) < max_calls:
            action = policy.next_action(view)
            if isinstance(action, (Say, EndTurn)):
                view.steps.append((action, Outcome(True, "")))
                if isinstance(action, Say):
                    continue
                reason = self.stop_refusal()
                if reason is None or blocks >= self.max_stop_blocks:
                    break
                blocks += 1
                view.continued(reason)
                continue
            blocks = 0
            view.steps.append((action, self.perform(action)))
        return view

    def stop_refusal(self) -> str | None:
        """The stop gate's block reason, or None when the turn may end."""
        if self.fsm is None:
            return None
        return fsm_hooks.refusal(fsm_hooks.stop(self.fsm, {"hook_event_name": "Stop", "stop_hook_active": False}))

    # -- one call -----------------------------------------------------------------------------------

    def hook_input(self, action: Action) -> dict[str, Any]:
        """The PreToolUse hook input Claude Code would send for ``action``."""
        if isinstance(action, Shell):
            name, args = "Bash", {"command": action.command}
        elif isinstance(action, WriteFile):
            name, args = "Write", {"file_path": str(self.workspace / action.path), "content": action.content}
        elif isinstance(action, EditFile):
            name, args = "Edit", {"file_path": str(self.workspace / action.path), "old_string": action.old,
                                  "new_string": action.new}
        elif isinstance(action, McpCall):
            name, args = f"mcp__{action.server}__{action.tool}", dict(action.args)
        else:
            raise ValueError(f"{type(action).__name__} is no tool call")
        return {"hook_event_name": "PreToolUse", "tool_name": name, "tool_input": args, "cwd": str(self.workspace)}

    def perform(self, action: Action) -> Outcome:
        """Gate, run and record one call."""
        hook_input = self.hook_input(action)
        if self.fsm is not None:
            reason = fsm_hooks.refusal(fsm_hooks.pre_tool_use(self.fsm, hook_input, workspace=str(self.workspace)))
            if reason is not None:
                return self._logged(action, Outcome(False, reason, reason))
        outcome = self._run(action)
        if self.fsm is not None:
            event = "PostToolUse" if outcome.ok else "PostToolUseFailure"
            note = fsm_hooks.post_tool_use(self.fsm, {**hook_input, "hook_event_name": event}, ok=outcome.ok,
                                           workspace=str(self.workspace))
            context = (note.get("hookSpecificOutput") or {}).get("additionalContext")
            if context:
                outcome = Outcome(outcome.ok, f"{outcome.text}\n{context}".strip(), None)
        return self._logged(action, outcome)

    def _logged(self, action: Action, outcome: Outcome) -> Outcome:
        self.log.append({"action": action, "ok": outcome.ok, "text": outcome.text, "denied": outcome.denied})
        return outcome

    def _file(self, path: str) -> Path | None:
        rel, inside = relative_path(path, str(self.workspace), str(self.workspace))
        return self.workspace / rel if inside else None

    def _run(self, action: Action) -> Outcome:
        if isinstance(action, Shell):
            try:
                done = subprocess.run(["/bin/sh", "-c", action.command], cwd=self.workspace, capture_output=True,
                                      text=True, timeout=self.timeout_s, env=self.env, stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return Outcome(False, f"the command ran past {self.timeout_s:g} s and was stopped")
            output = (done.stdout + done.stderr).strip()
            return Outcome(done.returncode == 0, output if done.returncode == 0 else f"Exit code {done.returncode}\n{output}".strip())
        if isinstance(action, McpCall):
            return self._mcp(action)
        target = self._file(action.path)  # type: ignore[union-attr]
        if target is None:
            return Outcome(False, f"{action.path} is outside the workspace {self.workspace}")  # type: ignore[union-attr]
        if isinstance(action, WriteFile):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(action.content, encoding="utf-8")
            return Outcome(True, f"File written: {action.path}")
        assert isinstance(action, EditFile)
        try:
            text = target.read_text(encoding="utf-8")
        except OSError as exc:
            return Outcome(False, f"cannot read {action.path}: {exc.strerror or exc}")
        count = text.count(action.old) if action.old else 0
        if count != 1:
            return Outcome(False, f"the text to replace occurs {count} times in {action.path}; it must occur once")
        target.write_text(text.replace(action.old, action.new, 1), encoding="utf-8")
        return Outcome(True, f"File edited: {action.path}")

    def _mcp(self, action: McpCall) -> Outcome:
        if action.server == fsm_hooks.FSM_SERVER and self.fsm is not None:
            is_error, text = call_fsm_tool(self.fsm, action.tool, action.args)
            return Outcome(not is_error, text)
        provider = self.servers.get(action.server)
        if provider is None:
            return Outcome(False, f"no MCP server '{action.server}' (servers: {', '.join(sorted(self.servers)) or 'none'})")
        result = provider.call(action.tool, dict(action.args))
        return Outcome(bool(getattr(result, "ok", False)), str(getattr(result, "text", result)))


def git_workspace(folder: Path, files: Mapping[str, str], *, message: str = "template") -> Path:
    """A git repository in ``folder`` holding ``files`` (path -> text) in one commit, as a
    workspace session starts from its task's template."""
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "template", "GIT_AUTHOR_EMAIL": "template@example.invalid",
           "GIT_COMMITTER_NAME": "template", "GIT_COMMITTER_EMAIL": "template@example.invalid"}
    for argv in (["git", "init", "-q", "-b", "main", "."], ["git", "add", "-A"], ["git", "commit", "-q", "-m", message]):
        subprocess.run(argv, cwd=folder, check=True, env=env, capture_output=True)
    return folder
