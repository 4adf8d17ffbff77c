"""The τ²-bench family's ``Work`` for one session: one task's conversation, offered as MCP tools.

The agent talks to τ²-bench only through tools (server ``tau2``), on both runtimes:

* the domain's agent tools (names, descriptions, JSON schemas from tau2's own tool definitions),
  executed by tau2's environment inside tau2's orchestrator, so its trajectory and its evaluator
  see every call; the domain's ``transfer_to_human_agents`` among them;
* ``send_message_to_customer(message)``: the message goes to tau2's user simulator (the
  customer), which may act on its device first; the tool returns the customer's reply.

The conversation ends as τ²-bench ends it: the customer stops (``###STOP###``, or
``###TRANSFER###`` after a transfer, ``###OUT-OF-SCOPE###``), the step or error limit, or the agent
stops (the session ends: :meth:`Tau2Work.finish` ends it with tau2's ``###STOP###``). After the end
every tool answers an error saying the conversation has ended.

Every call, with what it returned, and the customer's device actions and words go into the
conversation's public record (``public.PublicRecord``, ``record``): the one thing the FSM's rules
and the controller read (the frame's variables carry its key). Under the FSM condition the
controller (``controller.py``) adds turns of its own: the scope step's lookups before the agent's
first call (their results in the first message) and a fresh test after each repair (in the
repair's result); the work makes them when the controller, reading the record, asks for them;
they go through the same conversation and are counted (``controller_turns``). The lookups are
logged as ``controller_call`` events, the test in the result of the call it follows. The task id
names its injected faults: the log holds it (``session_start``'s ``order``, the session's one
unit, which ``study audit`` checks against the study's frozen order; ``outcome``), and nothing the
agent, the customer, the controller or the FSM sees does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conversation import Conversation, ConversationError, ModelEndpoint
from .data import data_record, load_task
from .evaluation import evaluate
from .public import PublicRecord, turn_events
from .telecom_evidence import CONTROLLER_MARK
from .tools import ENDED, SEND_MESSAGE, SERVER, Tau2Provider, Texts, ToolResult, _json_object, _texts_of


class Tau2Work:
    """One session's τ²-bench conversation (the ``Work`` of the family seam).

    ``domain``, ``task_id``: the task (read from the paper's data). ``customer``: the user
    simulator's model (``ModelEndpoint``: the study's simulator for ``sim:`` models, LiteLLM's
    ``anthropic/<id>`` at its base URL; a real model, e.g. ``openai-chat`` ``gpt-5.4-mini``).
    ``judge``: the NL-assertion judge (None: tasks that need one are logged ``judged: false``).
    ``texts``: the folder of frozen texts. ``controller``: the FSM condition's controller (an
    object with ``after(work, name, args, result) -> ToolResult``; None under Control).
    ``emit(kind, **fields)``: where events go as they happen (``customer_message``); the runner
    may set it later (:meth:`attach`). ``session_dir``: where ``tau2_run.json`` is written.
    ``may_judge()``: whether the session's spending cap leaves room for the judge (None: always);
    a task its judge was not asked for at the cap is logged not judged, as without a judge.
    """

    family = "tau2"
    builtin_tools = False
    workspace = None
    reminder = None

    def __init__(self, domain: str, task_id: str, customer: ModelEndpoint, *, texts: Path,
                 judge: ModelEndpoint | None = None, controller: Any = None,
                 emit: Callable[..., Any] | None = None, session_dir: Path | None = None,
                 max_steps: int | None = None, seed: int | None = None,
                 may_judge: Callable[[], bool] | None = None):
        self.domain = domain
        self.task_id = task_id
        self.task = load_task(domain, task_id)
        self.customer = customer
        self.judge = judge
        self.may_judge = may_judge
        self.texts = Texts(texts)
        self.controller = controller
        self.session_dir = Path(session_dir) if session_dir is not None else None
        self._emit = emit
        kwargs: dict[str, Any] = {"seed": seed}
        if max_steps is not None:
            kwargs["max_steps"] = max_steps
        self.conversation = Conversation(domain, self.task, customer, **kwargs)
        self.order = [task_id]
        self.servers = {SERVER: Tau2Provider(self)}
        self._lock = threading.RLock()
        self._opening: str | None = None
        self._scoped: tuple[str, dict[str, Any]] | None = None
        #: the conversation's public record: what the FSM's rules and the controller read
        self.record = PublicRecord()
        #: the controller's scope step's calls (``controller.next_lookup``), each {tool, args, ok, result}
        self.scope_calls: list[dict[str, Any]] = []
        self._finished = False
        self._voided = False
        self.controller_turns = 0
        self.outcome: dict[str, Any] | None = None
        self.error: str | None = None

    # ----- the Work protocol -------------------------------------------------------------------

    def attach(self, emit: Callable[..., Any]) -> None:
        """Send the events to ``emit(kind, **fields)`` from now on (e.g. the session's log)."""
        self._emit = emit

    def emit(self, kind: str, **fields: Any) -> None:
        if self._emit is not None:
            self._emit(kind, **fields)

    @property
    def ended(self) -> bool:
        return self.conversation.done or self.error is not None

    @property
    def decided(self) -> bool:
        """The conversation ended on its own (the customer, tau2's limits, the agent's stop at the
        session's end), not because the runner voided the session (a signal, an infrastructure
        failure): a voided conversation is never decided, whatever ended it afterwards."""
        return self.ended and not self._voided

    @property
    def decisions(self) -> dict[str, Any]:
        return {self.task_id: self.termination_reason} if self.decided else {}

    @property
    def accounts_left(self) -> int:
        return 0 if self.decided else 1

    def next_undecided(self) -> str | None:
        return None if self.ended else self.task_id

    @property
    def termination_reason(self) -> str | None:
        if self.error is not None and not self.conversation.done:
            return "error"
        return self.conversation.termination_reason

    def opening(self) -> str:
        """The customer's opening message (starts the conversation on first use)."""
        with self._lock:
            if self._opening is None:
                messages = self.conversation.start()
                texts = _texts_of(messages, "user")
                self._opening = texts[-1] if texts else ""
                self.record.opening = self._opening
                for text in texts:
                    self.emit("customer_message", text=text)
            return self._opening

    def first_message(self, condition: Any) -> str:
        """The session's first message: the frozen template with the domain's policy, its
        checklist, the FSM paragraph (FSM conditions) and the customer's opening message."""
        uses_fsm = condition if isinstance(condition, bool) else bool(getattr(condition, "uses_fsm", False))
        template = self.texts.read("first_message.md")
        fsm = ""
        if uses_fsm:
            scoped = self.scope()[0]
            fsm = self.texts.read_first("fsm_paragraph.md", f"fsm_paragraph_{self.domain}.md").strip() + "\n\n"
            fsm += f"{scoped}\n\n" if scoped else ""
        return template.format(
            policy=self.texts.read(f"policy_{self.domain}.md").strip(),
            checklist=self.texts.read(f"checklist_{self.domain}.md").strip(),
            fsm_paragraph=fsm,
            opening=self.opening(),
        )

    def continuation_message(self, state: str | None) -> str:
        where = f" (workflow state {state})" if state else ""
        return self.texts.read("continuation.md").format(state=where).strip()

    def system_append(self) -> str | None:
        return None

    def is_data_call(self, tool: str, result: Any) -> bool:
        return False

    def is_decision(self, tool: str) -> bool:
        return tool in (SEND_MESSAGE,) or any(t.name == tool for t in self.conversation.tools)

    def item_of(self, tool: str, args: dict) -> str | None:
        return None

    def contexts_after(self) -> int | None:
        return None   # one conversation, one context

    def context_label(self) -> str | None:
        return None

    def end_context(self, ended: str, emit: Any) -> None:
        raise NotImplementedError("a τ²-bench conversation runs in one context")

    def next_context(self) -> str:
        raise NotImplementedError("a τ²-bench conversation runs in one context")

    def start_fields(self) -> dict[str, Any]:
        return self.session_fields()

    def sim_options(self) -> dict[str, Any]:
        return {}

    def fsm_variables(self) -> dict[str, Any]:
        """The FSM frame's first variables. Telecom: the ledger over the public record so far (the
        controller's scope step, if any, has run), bound to the phone number of the customer's
        opening, with the record's key; other domains: none."""
        scoped = self.scope()[1]
        if self.domain != "telecom":
            return dict(scoped)
        from .controller import fsm_variables

        return fsm_variables(self.record, self.opening())

    def scope(self) -> tuple[str, dict[str, Any]]:
        """The controller's scope step, run once: the lookups its ``next_lookup`` asks for, as the
        controller's own calls; returns the text for the agent's first message ("" when there is no
        controller, the opening names no phone number, or the conversation ended) and {}."""
        with self._lock:
            if self._scoped is not None:
                return self._scoped
            next_lookup = getattr(self.controller, "next_lookup", None)
            shown: list[str] = []
            if next_lookup is not None:
                from .telecom_evidence import phone_of

                phone = phone_of(self.opening())
                while not self.ended and (step := next_lookup(self.record, phone)) is not None:
                    tool, args = step
                    result = self.run_tool(tool, args, by_controller=True)
                    self.scope_calls.append({"tool": tool, "args": args, "ok": result.ok, "result": result.text})
                    shown.append(f"{tool}({json.dumps(args)}) -> {result.text}")
                    if len(shown) >= 20:   # a customer with many lines: enough
                        break
            from .controller import SCOPE_MARK

            self._scoped = (f"{SCOPE_MARK}]\n" + "\n".join(shown) if shown else "", {})
            return self._scoped

    # ----- the tools ---------------------------------------------------------------------------

    def tool_names(self) -> list[str]:
        return [t.name for t in self.conversation.tools] + [SEND_MESSAGE]

    def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        """Run one agent call through tau2 (never raises: bad input is an error result)."""
        with self._lock:
            since = len(self.record.events)
            result = self._call(name, args)
            test = getattr(self.controller, "fresh_test", None)
            if test is not None and result.ok and not self.ended:
                request = test(self.record, since)
                if request:
                    answer = self.say(request, by_controller=True)
                    text = f"{result.text}\n\n{CONTROLLER_MARK} \"{request}\"]\nCustomer: {answer.text}"
                    result = ToolResult(result.ok, text, result.data, result.account)
            return result

    def _call(self, name: str, args: Any) -> ToolResult:
        if self.ended:
            return ToolResult(False, ENDED.format(reason=self.termination_reason))
        if not isinstance(args, dict):
            return ToolResult(False, f"Error: the arguments of {name} must be a JSON object of named arguments.")
        if name == SEND_MESSAGE:
            message = args.get("message")
            if not isinstance(message, str) or not message.strip():
                return ToolResult(False, "Error: send_message_to_customer needs a non-empty 'message' (a string).")
            extra = sorted(set(args) - {"message"})
            if extra:
                return ToolResult(False, f"Error: send_message_to_customer takes only 'message' (got {', '.join(extra)}).")
            return self.say(message)
        if name not in {t.name for t in self.conversation.tools}:
            return ToolResult(False, f"Error: unknown tool {name!r}; the tools are: {', '.join(self.tool_names())}.")
        return self._run_tool(name, args)

    def _act(self, message: Any) -> list[Any] | ToolResult:
        self.opening()
        try:
            return self.conversation.act(message)
        except ConversationError as exc:
            self.error = str(exc)
            return ToolResult(False, f"Error: {exc}")

    def _note(self, action: Any, added: list[Any], by_controller: bool) -> None:
        """Put an action of the agent's side and what followed it into the public record."""
        self.record.extend(turn_events("controller" if by_controller else "agent", action, added))
        if self.conversation.done:
            self.record.end(str(self.termination_reason))

    def say(self, message: str, *, by_controller: bool = False) -> ToolResult:
        """Send ``message`` to the customer; the result is the customer's reply."""
        action = self.conversation.text(message)
        added = self._act(action)
        if isinstance(added, ToolResult):
            return added
        self._note(action, added, by_controller)
        if by_controller:
            self.controller_turns += 1
        replies = _texts_of(added, "user")
        for text in replies:
            self.emit("customer_message", text=text)
        reply = "\n".join(replies)
        if self.conversation.done:
            self._emit_end()
            return ToolResult(True, f"{reply}\n\n[The customer has ended the conversation ({self.termination_reason}).]".strip(),
                              {"reply": reply, "ended": True, "reason": self.termination_reason})
        return ToolResult(True, reply, {"reply": reply, "ended": False})

    def run_tool(self, name: str, args: dict[str, Any], *, by_controller: bool = False) -> ToolResult:
        """Run one of the domain's tools through tau2 (``by_controller``: a controller's turn, counted)."""
        with self._lock:
            if self.ended:
                return ToolResult(False, ENDED.format(reason=self.termination_reason))
            return self._run_tool(name, args, by_controller=by_controller)

    def _run_tool(self, name: str, args: dict[str, Any], *, by_controller: bool = False) -> ToolResult:
        action = self.conversation.tool_call(name, args)
        added = self._act(action)
        if isinstance(added, ToolResult):
            return added
        self._note(action, added, by_controller)
        if by_controller:
            self.controller_turns += 1
        tool_messages = [m for m in added if getattr(m, "role", None) == "tool"]
        if not tool_messages:
            return ToolResult(False, f"Error: τ²-bench returned no result for {name}.")
        message = tool_messages[0]
        text = message.content or ""
        if by_controller:   # not the agent's call: logged here, or it would be in no log
            self.emit("controller_call", tool=name, args=dict(args), ok=not message.error, result=text)
        if self.conversation.done:
            self._emit_end()
        if message.error:
            return ToolResult(False, text if text.startswith("Error") else f"Error: {text}")
        return ToolResult(True, text, _json_object(text))

    def _emit_end(self) -> None:
        if not getattr(self, "_end_emitted", False):
            self._end_emitted = True
            self.emit("conversation_end", reason=self.termination_reason)

    # ----- the end -----------------------------------------------------------------------------

    def finish(self, log: Any = None, *, voided: bool = False) -> dict[str, Any]:
        """At the session's end (once): end the conversation as tau2's agent stops if it has not
        ended, score it with tau2's evaluator, write ``tau2_run.json`` and emit ``outcome``. A
        voided session (interrupted, an infrastructure failure) is ended and kept, never scored."""
        with self._lock:
            if self._finished:
                return self.outcome or {}
            self._finished = True
            self._voided = voided and not self.ended    # voided mid-conversation: never decided
            if log is not None:
                self._emit = log if callable(log) and not hasattr(log, "emit") else log.emit
            if self.error is None and self._opening is not None:
                try:
                    self.conversation.stop_as_agent()
                except ConversationError as exc:
                    self.error = str(exc)
            self.record.end(str(self.termination_reason))
            if self._opening is None:   # the conversation never started: nothing to score
                return {}
            self.conversation.join()
            self._emit_end()
            if voided:
                return {}
            simulation = self.conversation.simulation()
            capped = self.judge is not None and self.may_judge is not None and not self.may_judge()
            verdict = evaluate(simulation, self.task, self.domain, None if capped else self.judge)
            if capped and not verdict["judged"]:
                verdict["note"] = "the session's spending cap was reached before its judge was asked: not scored"
            simulation.reward_info = verdict.pop("reward_info")
            if self.session_dir is not None:
                self.session_dir.mkdir(parents=True, exist_ok=True)
                (self.session_dir / "tau2_run.json").write_text(simulation.model_dump_json(indent=2), encoding="utf-8")
            self.outcome = {**verdict, **self.counts(simulation.messages), "task_id": self.task_id,
                            "domain": self.domain, "termination_reason": self.termination_reason,
                            "tau2_version": data_record(self.domain)["tau2_version"],
                            "data_sha256": data_record(self.domain)["data_sha256"], "seed": self.conversation.seed,
                            "customer_model": self.customer.describe(),
                            "judge_model": self.judge.describe() if self.judge else None}
            if self.error is not None:
                self.outcome["error"] = self.error
            self.emit("outcome", family=self.family, **self.outcome)
            return self.outcome

    def counts(self, messages: list[Any]) -> dict[str, int]:
        """Agent turns in tau2's trajectory (every assistant message, tau2's greeting and the
        closing stop included), those the controller emitted (``controller_lookups`` of them its
        scope step's, before the agent's first call; the rest its fresh tests), and those scripted
        at all (the greeting and the controller's), plus the customer's device actions."""
        agent_turns = sum(1 for m in messages if getattr(m, "role", None) == "assistant")
        device = sum(len(m.tool_calls or []) for m in messages if getattr(m, "role", None) == "user")
        return {"agent_turns": agent_turns, "controller_turns": self.controller_turns,
                "controller_lookups": len(self.scope_calls), "scripted_turns": self.controller_turns + 1,
                "customer_device_actions": device}

    def session_fields(self) -> dict[str, Any]:
        """What ``session_start`` records of the family beside its ``order`` (``[task_id]``: the log
        holds the task id, the agent never sees the log)."""
        record = data_record(self.domain)
        return {"domain": self.domain, "tau2_version": record["tau2_version"], "data_sha256": record["data_sha256"],
                "data_files": record["files"], "customer_model": self.customer.describe(),
                "judge_model": self.judge.describe() if self.judge else None}


def wall_clock() -> float:
    return time.monotonic()
