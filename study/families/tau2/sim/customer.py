"""The simulated customer: tau2's user simulator's model, played by the study's simulator.

tau2's ``UserSimulator`` sends, through LiteLLM's ``anthropic/<id>``, a Messages API request: its
system prompt (tau2's guidelines and the task's scenario), the conversation with the roles
flipped (the agent's messages as ``user``, the customer's as ``assistant``, the customer's device
actions as ``tool_use`` with their ``tool_result``), and the customer's user tools. The
:class:`Customer` reads that request and answers as the scenario says:

* first, the reason for the call and the known information (name, phone number, location);
* to a message that asks for device actions (``speech.requested``): each action, one tool call
  per response, in the order asked; then a reply that reports each result verbatim (only where
  tau2 gives the customer tools: Telecom's device; Airline's and Retail's customers have none);
* when a test it has just run shows the scenario's resolution (the task's environment assertions:
  an excellent speed test, MMS that sends, a status bar with service) it ends the call with
  ``###STOP###``; after the agent says it transfers the customer, ``###TRANSFER###``;
* questions: its phone number or name from its known information; a refuel or a confirmation:
  yes, as the scenario allows; anything else: it asks what to do next.

The customer reads the task's evaluation criteria (the resolution) as ground truth; nothing of it
reaches the agent except through what a customer would say.
"""

from __future__ import annotations

import re
from typing import Any

from study.sim.protocol import ApiError, Reply, ToolUse

import study.families.tau2.sim.speech as speech

STOP = "###STOP###"
TRANSFER = "###TRANSFER###"
_PHONE = re.compile(r"\b\d{3}-\d{3}-\d{4}\b")
_TRANSFERRED = re.compile(r"transferr?(ed|ing)? (you )?to a human|being transferred|transfer you", re.IGNORECASE)


def _first_person(text: str) -> str:
    """The scenario's second person as the customer's first person."""
    swaps = [(r"\bYou are\b", "I am"), (r"\byou are\b", "I am"), (r"\bYour\b", "My"), (r"\byour\b", "my"),
             (r"\bYou\b", "I"), (r"\byou\b", "me"), (r"\bI mobile\b", "My mobile")]
    for pattern, repl in swaps:
        text = re.sub(pattern, repl, text)
    return text


def read_request(messages: list[dict]) -> list[tuple]:
    """The conversation as the customer sees it: ``("agent", text)``, ``("said", text)``,
    ``("call", id, name, input)``, ``("result", id, text)``, in order."""
    events: list[tuple] = []
    for message in messages:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else [b for b in content or [] if isinstance(b, dict)]
        for block in blocks:
            kind = block.get("type")
            if kind == "text" and block.get("text", "").strip():
                events.append(("agent" if message.get("role") == "user" else "said", block["text"].strip()))
            elif kind == "tool_use":
                events.append(("call", block.get("id"), block.get("name"), block.get("input") or {}))
            elif kind == "tool_result":
                inner = block.get("content")
                text = inner if isinstance(inner, str) else "\n".join(b.get("text", "") for b in inner or [] if isinstance(b, dict))
                events.append(("result", block.get("tool_use_id"), text))
    return events


class Customer:
    """The customer of one task (a ``Responder``). ``task``: the tau2 task as a dict (its
    ``user_scenario`` and ``evaluation_criteria``, e.g. ``Task.model_dump(mode="json")``)."""

    name = "customer"

    def __init__(self, task: dict[str, Any]):
        self.task = task
        instructions = (task.get("user_scenario") or {}).get("instructions") or {}
        if isinstance(instructions, str):
            instructions = {"reason_for_call": instructions}
        self.instructions = instructions
        criteria = task.get("evaluation_criteria") or {}
        self.assertions = [a for a in criteria.get("env_assertions") or [] if a.get("env_type") == "user"]
        self.requests = 0

    # ----- the Responder -----------------------------------------------------------------------

    def respond(self, api: str, body: dict) -> Reply:
        self.requests += 1
        if api != "anthropic-messages":
            return Reply(error=ApiError(400, "the simulated customer answers tau2's user simulator through "
                                              "LiteLLM's anthropic/<model> (the Messages API) only"))
        return self.reply(read_request(body.get("messages") or []), has_tools=bool(body.get("tools")))

    def reply(self, events: list[tuple], has_tools: bool = True) -> Reply:
        if not any(e[0] in ("said", "call") for e in events):
            return Reply(text=self.opening())
        last_agent = max((i for i, e in enumerate(events) if e[0] == "agent"), default=None)
        if last_agent is None:
            return Reply(text="Hello? Is anyone there?")
        agent_text = events[last_agent][1]
        if _TRANSFERRED.search(agent_text):
            return Reply(text=TRANSFER)
        since = events[last_agent + 1:]
        done = [(e[2], e[3]) for e in since if e[0] == "call"]
        wanted = speech.requested(agent_text) if has_tools else []   # Airline, Retail: the customer has no device
        if len(done) < len(wanted):
            tool, args = wanted[len(done)]
            return Reply(tool_uses=[ToolUse(tool, args)])
        results = {e[1]: e[2] for e in since if e[0] == "result"}
        calls = [e for e in since if e[0] == "call"]
        if calls:
            return Reply(text=self.report(calls, results))
        return Reply(text=self.answer(agent_text))

    # ----- what the customer says --------------------------------------------------------------

    def opening(self) -> str:
        reason = _first_person(str(self.instructions.get("reason_for_call") or "I need help."))
        known = _first_person(str(self.instructions.get("known_info") or ""))
        return f"Hi. {reason} {known}".strip()

    def report(self, calls: list[tuple], results: dict[str, str]) -> str:
        lines = []
        for _, call_id, tool, _args in calls:
            lines.append(f"I did that ({tool.replace('_', ' ')}). It shows: {results.get(call_id, '').strip()}")
        text = " ".join(lines)
        if self.resolved(calls, results):
            return f"{text} That is what I needed, the problem is solved. Thank you! {STOP}"
        return text

    def resolved(self, calls: list[tuple], results: dict[str, str]) -> bool:
        """Whether a test just run shows the scenario's resolution (every user assertion whose
        test was run holds, and at least one was)."""
        seen = {tool: results.get(call_id, "") for _, call_id, tool, _ in calls}
        checked = False
        for assertion in self.assertions:
            name, args = assertion.get("func_name"), assertion.get("arguments") or {}
            test = speech.TEST_OF_ASSERTION.get(name)
            if test is None:
                continue
            if name == "assert_service_status" and args.get("expected_status") != "connected":
                return False  # the scenario's end state is no service: nothing the customer sees resolves it
            if test not in seen:
                return False
            checked = True
            if not _holds(name, args, seen[test], bool(assertion.get("assert_value", True))):
                return False
        return checked

    def answer(self, agent_text: str) -> str:
        low = agent_text.lower()
        known = str(self.instructions.get("known_info") or "")
        if "phone number" in low or "number" in low and "line" in low:
            phone = _PHONE.search(known)
            return f"My phone number is {phone.group(0)}." if phone else "I don't know that."
        if "name" in low and ("your name" in low or "full name" in low):
            found = re.search(r"You are ([A-Z][a-z]+ [A-Z][a-z]+)", known)
            return f"My name is {found.group(1)}." if found else "I'd rather not say."
        if "refuel" in low or "add data" in low:
            amount = re.search(r"refuel (\d+(?:\.\d+)?) ?GB", str(self.instructions.get("task_instructions") or ""))
            return f"Yes, please add {amount.group(1)} GB of data." if amount else "No, thank you."
        if "anything else" in low:
            return f"No, that's all. Thank you. {STOP}"
        if re.search(r"\b(shall i|should i|may i|can i|would you like|do you want|confirm|okay if)\b", low):
            return "Yes, please go ahead."
        return "Okay. What should I do next?"


def _holds(name: str, args: dict[str, Any], result: str, expected: bool) -> bool:
    low = result.lower()
    if name == "assert_internet_speed":
        desc = str(args.get("expected_desc") or "excellent").lower()
        value = desc in low and "failed" not in low
    elif name == "assert_mobile_data_status":
        value = "failed" not in low and "no connection" not in low
    elif name == "assert_can_send_mms":
        value = ("cannot" not in low) == bool(args.get("expected_status", True))
    elif name == "assert_service_status":
        connected = not any(w in low for w in ("no signal", "no service", "airplane", "no sim"))
        value = connected == (args.get("expected_status") == "connected")
    else:
        return True
    return value == expected
