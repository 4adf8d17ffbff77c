"""The per-session glue between the agent CLI's hooks, the tools, the FSM runtime and the log.

One ``SessionBridge`` lives for one session, whichever CLI runs it: Claude Code's SDK hooks call
its coroutines in process, Codex CLI's command hooks reach them through the runner's socket
(``study.runtimes.codex``); both CLIs speak the same hook JSON. It is what the CLI's hooks and
the tool servers call back into:

- ``after_call`` (the SOP-Bench server's wrapper): logs every completed call, counts decisions,
  and attaches the reminder once per account to the first successful data-tool result for that
  account (conditions with ``reminder``).
- ``pre_tool_use`` (PreToolUse hook): the tool-call gate for conditions with ``tool_gate``; a
  refused call is logged as ``tool_call`` with ``allowed: false`` and the model sees the reason;
  ``refusals`` counts them since the last new decision (the exploratory conditions' limit
  ``gate_refusals``, enforced by the driver).
- ``post_tool_use`` (PostToolUse/PostToolUseFailure hooks): tells the FSM runtime about every
  completed call (``observe``) and logs the FSM tools' calls; logs the automatic transitions the
  runtime committed (``automatic: true``) and returns the hook's additional context (the new
  state's instructions) for the model.
- ``on_stop`` (Stop hook): logs every stop; blocks with the continuation message while accounts
  are left, when the condition has a stop gate and the workflow's stop gate refuses. It counts
  consecutive blocks as Claude Code does (a tool call in between, or a new ``query()`` call,
  starts the count again): the CLI overrides the block that comes after ``stop_block_cap``
  consecutive ones (``CLAUDE_CODE_STOP_HOOK_BLOCK_CAP``) and ends the turn, so that stop is
  logged ``ended`` (with ``block_cap_reached: true``) and ``stop_cap_reached`` is set: the one
  place that decides the session's ``limit:stop_blocks``.
- ``on_fsm_event`` (the FSM tools' event sink): logs each transition request and each proposal
  (FSM-propose).
- ``pre_compact`` (PreCompact hook): logs the compaction.

Two things the CLIs do differently are settings of the bridge, which the runtime adapter sets:
``cli_caps_stop_blocks`` (Claude Code ends the turn itself after the cap of consecutive stop
blocks; Codex CLI has no cap, so there the bridge lets the stop at the cap through) and
``failures_reach_post_hook`` (Claude Code runs PostToolUseFailure for a tool's error result;
Codex CLI runs no PostToolUse hook for it, so there the tool servers' callbacks tell the FSM and
the log about failed calls: ``after_call`` and ``after_fsm_call``). In a workspace the adapter
also sets ``command_exit`` (Codex CLI's PostToolUse hook carries a command's output but not its
exit status, which its rollout records: a command is logged, and recorded in the FSM's history,
with its real status) and ``sandbox_probe`` (whether the runtime's sandbox still starts: a
command that failed with a sandbox's words, ``study.runtimes.sandbox.looks_like_sandbox_failure``,
is the runtime's failure once the probe confirms it, and ``on_infrastructure`` ends the session
as an infrastructure failure; otherwise it is the command's own failure).

Every FSM decision (the gate, the record of a completed call, the stop gate), the tool-name
parsing and the deny/block outputs come from ``study.fsm.hooks``, the same functions the
``study fsm hook`` commands of ``.claude/settings.json`` run (docs/fsm.md): the enforcement the
study measures is the one the package offers. The bridge adds only logging, the reminder and
the counts of stop blocks and refusals.

It knows nothing about processes or limits other than what the log needs; ``driver.py`` drives
the calls and reads ``decisions``/``last_decision_at`` and ``stop_cap_reached``, and is told each
refusal (``on_refusal``), to enforce the limits.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from study.families import Work, as_work
from study.fsm import hooks as fsm_hooks
from study.fsm.hooks import FSM_SERVER, split_tool_name
from study.protocol.conditions import Condition
from study.session_io.vocabulary import EventKind
from study.session_io.writer import EventLog
from study.tooling import AfterCall, ToolResult

from .file_fence import fence_refusal
from .shell_calls import SHELL_TOOL, Pending, as_failure, exit_status, sandbox_failure

#: The longest result of a built-in call kept whole in the log (a command's output may be huge): the
#: rest is cut, and the event says how much (``result_cut_chars``).
MAX_RESULT_CHARS = 100_000

SOPBENCH_SERVER = "sopbench"
#: Removed from the SOP-Bench tools' Claude Code names, so the workflows use bare tool names.
SOPBENCH_PREFIX = f"mcp__{SOPBENCH_SERVER}__"

__all__ = ["FSM_SERVER", "SOPBENCH_PREFIX", "SOPBENCH_SERVER", "SessionBridge"]




def _args_key(tool: str, args: Any) -> str:
    return tool + "\x00" + json.dumps(args, sort_keys=True, default=str)


def _text_of(response: Any) -> str:
    """The text of a tool response as the hooks receive it (a string, blocks or a dict)."""
    if isinstance(response, str):
        return response
    if isinstance(response, dict) and "content" in response:
        response = response["content"]
    if isinstance(response, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in response)
    return json.dumps(response, default=str)


def _heredoc_patch(args: Any) -> bool:
    """A shell command that is a patch written as a heredoc (``apply_patch <<'EOF' ...``), which
    Codex CLI applies itself instead of running it (no PostToolUse hook follows)."""
    from study.fsm.builtin_tools import shell_patch

    command = args.get("command") if isinstance(args, dict) else None
    return isinstance(command, str) and shell_patch(command) is not None


class SessionBridge:
    #: The CLI itself ends the turn at the stop-block cap (Claude Code); else the bridge lets it end.
    cli_caps_stop_blocks = True
    #: The CLI runs a PostToolUse(Failure) hook for a tool's error result (Claude Code); else the
    #: tool servers' callbacks tell the FSM and the log about it.
    failures_reach_post_hook = True
    #: (a workspace) the exit status of the agent's command by call id, where the hook does not say it
    #: (Codex CLI: read from its rollout); None: the hook's own event says whether it failed
    command_exit: Any = None
    #: (a workspace) why the runtime's sandbox cannot start now (one line), or None: asked when a
    #: command failed with a sandbox's words
    sandbox_probe: Any = None
    #: told the reason when the session must end as an infrastructure failure (the driver's)
    on_infrastructure: Any = None

    def __init__(self, log: EventLog, work: Any, condition: Condition, *, fsm: Any = None,
                 reminder: str | None = None, stop_block_cap: int | None = None):
        if condition.reminder and not reminder:
            raise ValueError(f"condition {condition.name} attaches a reminder, but no reminder text was given")
        self.log = log
        #: the session's work (``study.families.base.Work``; a bare ToolBox is wrapped)
        self.work = as_work(work, reminder)
        #: the first tool server's name, and the prefix that makes its tools' names bare for the FSM
        self.server = next(iter(self.work.servers), SOPBENCH_SERVER)
        self.prefix = f"mcp__{self.server}__"
        #: the workspace's HEAD as last seen (a workspace session logs each new commit)
        self._head: str | None = None
        if self._workspace is not None:
            from .commits import head

            self._head = head(self._workspace)
        self.condition = condition
        self.fsm = fsm
        self.reminder = reminder
        self.reminded: set[str] = set()
        self.last_decision_at = time.monotonic()
        self.stop_block_cap = stop_block_cap
        self.consecutive_blocks = 0
        #: The running call's turn was ended by the CLI's stop-hook block cap (reset by ``new_call``).
        self.stop_cap_reached = False
        #: Calls the tool gate refused since the last new decision (``on_refusal`` is told each one).
        self.refusals = 0
        self.on_refusal: Any = None
        self._call_ids: dict[str, list[str]] = {}
        #: admitted built-in calls no PostToolUse hook reports (Codex CLI's heredoc patches), by call id
        self._patches: dict[str, dict] = {}
        #: commands whose exit status the runtime had not recorded by their hook (shell_calls.Pending)
        self._pending = Pending()

    @staticmethod
    def _quietly() -> contextlib.suppress:
        """Around each write to the log: a failed write (a full disk) is not raised into the CLI's
        hooks and tool server; the log keeps it (``EventLog.failed``) and the driver ends the
        session on it."""
        return contextlib.suppress(OSError)

    # ----- state the session driver reads ------------------------------------------------------

    @property
    def box(self) -> Work:
        """The session's work (its former name, when every session was a SOP-Bench ToolBox's)."""
        return self.work

    @property
    def decisions(self) -> int:
        return len(self.work.decisions)

    @property
    def accounts_left(self) -> int:
        return self.work.accounts_left

    @property
    def fsm_state(self) -> str | None:
        return self.fsm.state if self.fsm is not None else None

    def new_call(self) -> None:
        """A new ``query()`` call starts: the CLI counts consecutive stop blocks afresh."""
        self.consecutive_blocks = 0
        self.stop_cap_reached = False

    # ----- the family's tools ------------------------------------------------------------------

    def after_call_for(self, server: str) -> AfterCall:
        """The tool server ``server``'s callback (``study.tooling.build_server``'s ``after_call``)."""
        if server == self.server:
            return self.after_call
        return lambda name, args, result: self._after_call(server, name, args, result)

    def after_call(self, name: str, args: dict, result: ToolResult) -> list[str]:
        """Log a completed call of the first tool server (SOP-Bench's) with its tool_use id, and
        attach the reminder if due; the FSM learns of the call from the PostToolUse hook
        (``post_tool_use``), not from here."""
        return self._after_call(self.server, name, args, result)

    def _after_call(self, server: str, name: str, args: dict, result: ToolResult) -> list[str]:
        decided_before = self.decisions
        attach = (self.condition.reminder and self.work.is_data_call(name, result)
                  and result.account not in self.reminded)
        if attach:
            self.reminded.add(result.account)
        fields: dict[str, Any] = {"result": result.text} if result.ok else {"error": result.text}
        with self._quietly():
            self.log.emit(
                EventKind.TOOL_CALL, server=server, tool=name, args=args, account=result.account,
                allowed=True, ok=result.ok, state=self.fsm_state, call_id=self._pop_call_id(name, args),
                reminder_attached=attach, **fields,
            )
        if self.work.is_decision(name) and self.decisions > decided_before:
            self.last_decision_at = time.monotonic()
            self.refusals = 0
        extra = [self.reminder] if attach else []
        if not result.ok and not self.failures_reach_post_hook and self.fsm is not None:
            # no PostToolUseFailure hook will come: the FSM learns of the failed call here, and a
            # note of an automatic transition it made goes with the call's result
            output = fsm_hooks.post_tool_use(self.fsm, {"hook_event_name": "PostToolUseFailure",
                                                        "tool_name": f"mcp__{server}__{name}", "tool_input": args,
                                                        "error": result.text},
                                             tool_prefix=self.prefix, fsm_server=FSM_SERVER,
                                             on_transition=self._log_automatic)
            note = (output.get("hookSpecificOutput") or {}).get("additionalContext")
            if note:
                extra.append(note)
        return extra

    def after_fsm_call(self, name: str, args: Any, is_error: bool, text: str) -> None:
        """The FSM server's callback: a failed FSM tool call, where no PostToolUseFailure hook logs it."""
        if self.failures_reach_post_hook or not is_error:
            return
        args = args if isinstance(args, dict) else {}
        call_id = self._pop_call_id(name, args)
        with self._quietly():
            self.log.emit(EventKind.TOOL_CALL, server=FSM_SERVER, tool=name, args=args, account=None, allowed=True,
                          ok=False, state=self.fsm_state, call_id=call_id, error=text)

    def _pop_call_id(self, tool: str, args: Any) -> str | None:
        ids = self._call_ids.get(_args_key(tool, args))
        return ids.pop(0) if ids else None

    # ----- hooks -------------------------------------------------------------------------------

    async def pre_tool_use(self, hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        """PreToolUse: remember the call's id; apply the tool-call gate where the condition has one.
        Any tool call (refused or not) ends a run of consecutive stop blocks, as in the CLI."""
        self.consecutive_blocks = 0
        self.flush_commands(ended=False)
        server, tool = split_tool_name(hook_input.get("tool_name", ""))
        args = hook_input.get("tool_input") or {}
        call_id = hook_input.get("tool_use_id") or tool_use_id
        if server is None and (fenced := fence_refusal(self.work, self._workspace, tool, args, hook_input.get("cwd"))):
            with self._quietly():
                self.log.emit(EventKind.TOOL_CALL, tool=tool, args=args, account=None, allowed=False, ok=False,
                              state=self.fsm_state, error=fenced, call_id=call_id, fence=True)
            return fsm_hooks.deny_tool(fenced)
        if self.condition.tool_gate and self.fsm is not None:
            output = fsm_hooks.pre_tool_use(self.fsm, hook_input, tool_prefix=self.prefix, fsm_server=FSM_SERVER,
                                            workspace=self._workspace)
            reason = fsm_hooks.refusal(output)
            if reason is not None:
                account = self.work.item_of(tool, args)
                where: dict[str, Any] = {"server": server} if server is not None else {}  # no server: a built-in tool
                with self._quietly():
                    self.log.emit(
                        EventKind.TOOL_CALL, **where, tool=tool, args=args,
                        account=account,
                        allowed=False, ok=False, state=self.fsm_state, error=reason, call_id=call_id,
                    )
                self.refusals += 1
                if self.on_refusal is not None:
                    self.on_refusal(self.refusals)
                return output
        if server is not None and call_id:
            self._call_ids.setdefault(_args_key(tool, args), []).append(call_id)
        elif server is None and call_id and self.work.builtin_tools and _heredoc_patch(args):
            self._patches[call_id] = dict(hook_input)   # no PostToolUse will come: builtin_output logs it
        return {}

    async def post_tool_use(self, hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        """PostToolUse / PostToolUseFailure: record the completed call in the FSM's history (the
        FSM's own tools are not recorded); log the FSM server's calls (SOP-Bench ones are logged
        by ``after_call``, which sees the typed result)."""
        output: dict = {}
        exit_code = None
        self.flush_commands(ended=False)
        if self.work.builtin_tools and hook_input.get("tool_name") == SHELL_TOOL:   # a command: its real status
            ok = fsm_hooks.tool_call_ok(hook_input)
            exit_code = await exit_status(ok, _text_of(hook_input.get("error")),
                                          str(hook_input.get("tool_use_id") or tool_use_id or ""), self.command_exit)
            if exit_code not in (None, 0) and ok:   # Codex's hook: a command that failed
                hook_input = as_failure(hook_input, _text_of(hook_input.get("tool_response")))
        if self.fsm is not None:
            output = fsm_hooks.post_tool_use(self.fsm, hook_input, tool_prefix=self.prefix, fsm_server=FSM_SERVER,
                                             on_transition=self._log_automatic, workspace=self._workspace)
        server, tool = split_tool_name(hook_input.get("tool_name", ""))
        if server is None and self.work.builtin_tools:
            call_id = str(hook_input.get("tool_use_id") or tool_use_id or "")
            if exit_code is None and self.command_exit is not None and tool == SHELL_TOOL:   # logged once known
                self._pending.add(call_id, hook_input, tool, tool_use_id)
            else:
                self._log_builtin(hook_input, tool, tool_use_id, exit_code=exit_code)
            if tool == SHELL_TOOL:
                said = _text_of(hook_input.get("error") or hook_input.get("tool_response"))
                failure = await sandbox_failure(exit_code, said, self.sandbox_probe)
                if failure is not None and self.on_infrastructure is not None:
                    self.on_infrastructure(failure)
            return output
        if server != FSM_SERVER:
            return output
        args = hook_input.get("tool_input") or {}
        failed = hook_input.get("hook_event_name") == "PostToolUseFailure"
        text = _text_of(hook_input.get("error") if failed else hook_input.get("tool_response"))
        ok = fsm_hooks.tool_call_ok(hook_input)
        self._pop_call_id(tool, args)
        fields: dict[str, Any] = {"result": text} if ok else {"error": text}
        with self._quietly():
            self.log.emit(EventKind.TOOL_CALL, server=server, tool=tool, args=args, account=None, allowed=True, ok=ok,
                          state=self.fsm_state, call_id=hook_input.get("tool_use_id") or tool_use_id, **fields)
        return {}

    # ----- the CLI's own tools (a workspace) ----------------------------------------------------

    @property
    def _workspace(self) -> str | None:
        workspace = getattr(self.work, "workspace", None)
        return str(workspace) if workspace is not None else None

    def _log_builtin(self, hook_input: dict, tool: str, tool_use_id: str | None, exit_code: int | None = None) -> None:
        """Log a completed call of the CLI's own tool (a command, an edit, a read) with its
        arguments, its result (a command: its exit status) and what it does in the FSM's
        vocabulary; then the workspace's new commits, if the call made any."""
        from study.fsm.builtin_tools import actions_of

        args = hook_input.get("tool_input") or {}
        failed = hook_input.get("hook_event_name") == "PostToolUseFailure"
        text = _text_of(hook_input.get("error") if failed else hook_input.get("tool_response"))
        ok = fsm_hooks.tool_call_ok(hook_input)
        cut = max(0, len(text) - MAX_RESULT_CHARS)
        fields: dict[str, Any] = {"result" if ok else "error": text[:MAX_RESULT_CHARS] if cut else text}
        if tool == SHELL_TOOL and not hook_input.get("reported_by"):   # a command (not a patch Codex applied)
            fields["exit_code"] = exit_code
        if cut:
            fields["result_cut_chars"] = cut
        actions = actions_of(tool, args, hook_input.get("cwd"), self._workspace)
        if actions is not None:
            fields["actions"] = [{"tool": a.tool, "args": a.args} for a in actions]
        if hook_input.get("reported_by"):    # no hook reported it: the runtime's own record did
            fields["reported_by"] = hook_input["reported_by"]
        with self._quietly():
            self.log.emit(EventKind.TOOL_CALL, tool=tool, args=args if isinstance(args, dict) else {"_raw": args},
                          account=None, allowed=True, ok=ok, state=self.fsm_state,
                          call_id=hook_input.get("tool_use_id") or tool_use_id, **fields)
        self._log_commits()

    def builtin_output(self, call_id: str, text: str) -> None:
        """The runtime's own record of a built-in call's output (Codex CLI's rollout): a call that
        reaches no PostToolUse hook (a heredoc patch, which Codex applies itself) is logged from it
        and recorded in the FSM's history as a completed call would be."""
        if call_id in self._pending.calls:
            self._log_known(self._pending.known(self.command_exit, {call_id: text}))
        hook_input = self._patches.pop(call_id, None)
        if hook_input is None:
            return
        ok = "patch rejected" not in text.lower() and "error" not in text.lower()[:200]
        done = {**hook_input, "hook_event_name": "PostToolUse" if ok else "PostToolUseFailure",
                "tool_response" if ok else "error": text, "reported_by": "rollout"}
        if self.fsm is not None:
            fsm_hooks.post_tool_use(self.fsm, done, tool_prefix=self.prefix, fsm_server=FSM_SERVER,
                                    on_transition=self._log_automatic, workspace=self._workspace)
        _server, tool = split_tool_name(hook_input.get("tool_name", ""))
        self._log_builtin(done, tool, call_id)

    def _log_commits(self) -> None:
        """A ``commit`` event for each commit the workspace's HEAD gained since the last look."""
        if self._workspace is None:
            return
        from .commits import new_commits

        found, self._head = new_commits(self._workspace, self._head)
        for commit in found:
            with self._quietly():
                self.log.emit(EventKind.COMMIT, **commit)

    def flush_commands(self, *, ended: bool = True) -> None:
        """Log the commands waiting for their exit status whose status is known now (``ended``: the
        call has ended, so every one, known or not)."""
        if self._pending.calls:
            self._log_known(self._pending.known(self.command_exit) + (self._pending.drain() if ended else []))

    def _log_known(self, found: list) -> None:
        for hook_input, tool, tool_use_id, code in found:
            if code not in (None, 0):
                hook_input = as_failure(hook_input, _text_of(hook_input.get("tool_response")))
            self._log_builtin(hook_input, tool, tool_use_id, exit_code=code)

    async def on_stop(self, hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        """Stop: log it; block with the continuation message where the stop gate applies: while units
        are left, and in any context of a run of fresh contexts (its workflow says when one is done).
        The block after ``stop_block_cap`` consecutive ones is still returned, but the CLI's own cap
        then overrides it and ends the turn: that stop is logged as what it is, the stop that ended
        the turn, and ``stop_cap_reached`` tells the session driver."""
        self.flush_commands(ended=False)
        left = self.accounts_left
        active = bool(hook_input.get("stop_hook_active"))
        if (left > 0 or self.work.contexts_after() is not None) and self.condition.stop_gate and self.fsm is not None:
            state = self.fsm_state if self.condition.state_in_message else None
            output = fsm_hooks.stop(self.fsm, hook_input, reason=lambda _: self.work.continuation_message(state))
            message = fsm_hooks.refusal(output)
            if message is not None:
                if self.stop_block_cap is not None and self.consecutive_blocks >= self.stop_block_cap:
                    with self._quietly():
                        self.log.emit(EventKind.STOP, accounts_left=left, outcome="ended", reason=None,
                                      stop_hook_active=active, block_cap_reached=True)
                    self.consecutive_blocks = 0
                    self.stop_cap_reached = True
                    if not self.cli_caps_stop_blocks:
                        return {}   # the CLI has no cap of its own: the turn ends here
                else:
                    self.consecutive_blocks += 1
                    with self._quietly():
                        self.log.emit(EventKind.STOP, accounts_left=left, outcome="blocked", reason=message,
                                      stop_hook_active=active)
                return output
        self.consecutive_blocks = 0
        with self._quietly():
            self.log.emit(EventKind.STOP, accounts_left=left, outcome="ended", reason=None, stop_hook_active=active)
        return {}

    def _log_automatic(self, result: Any) -> None:
        """An automatic transition the runtime committed after a call (workflows such as FSM-lean)."""
        with self._quietly():
            self.log.emit(EventKind.TRANSITION, **{"from": result.from_state}, to=result.to_state, ok=True,
                          reason=result.reason, automatic=True)

    def on_fsm_event(self, kind: str, fields: dict[str, Any]) -> None:
        """The FSM tools' event sink: log each transition request (``transition``: ``from``, ``to``,
        ``ok``, ``reason``) and, in FSM-propose, each proposal (``proposal``)."""
        with self._quietly():
            self.log.emit_fields(kind, fields)

    async def pre_compact(self, hook_input: dict, tool_use_id: str | None, context: Any) -> dict:
        with self._quietly():
            self.log.emit(EventKind.COMPACTION, trigger=hook_input.get("trigger", "auto"))
        return {}
