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
from study.families.tau2.telecom_evidence import status_bar as ev_status_bar

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
    ``user_scenario`` and ``evaluation_criteria``, e.g. ``Task.model_dump(mode="json")``);
    ``seed``: picks the wording (with the task's id and the turn), so that one seed always says
    the same and different tasks and seeds say it differently."""

    name = "customer"

    def __init__(self, task: dict[str, Any], seed: int = 0):
        self.task = task
        self.seed = seed
        instructions = (task.get("user_scenario") or {}).get("instructions") or {}
        if isinstance(instructions, str):
            instructions = {"reason_for_call": instructions}
        self.instructions = instructions
        criteria = task.get("evaluation_criteria") or {}
        self.assertions = [a for a in criteria.get("env_assertions") or [] if a.get("env_type") == "user"]
        self.requests = 0

    def _pick(self, options: list[str] | tuple[str, ...], *key: Any) -> str:
        return speech.pick(options, self.seed, self.task.get("id"), *key)

    @property
    def tests(self) -> list[str]:
        """The device tests the scenario's resolution is checked by (what "the problem I called
        about" means to this customer)."""
        found = []
        for assertion in self.assertions:
            test = speech.TEST_OF_ASSERTION.get(assertion.get("func_name"))
            if test and test not in found:
                found.append(test)
        return found or ["check_status_bar"]

    # ----- the Responder -----------------------------------------------------------------------

    def respond(self, api: str, body: dict) -> Reply:
        self.requests += 1
        if api != "anthropic-messages":
            return Reply(error=ApiError(400, "the simulated customer answers tau2's user simulator through "
                                              "LiteLLM's anthropic/<model> (the Messages API) only"))
        return self.reply(read_request(body.get("messages") or []), has_tools=bool(body.get("tools")))

    def reply(self, events: list[tuple], has_tools: bool = True) -> Reply:
        if not any(e[0] in ("said", "call") for e in events):
            return Reply(text=self.opening(has_tools))
        last_agent = max((i for i, e in enumerate(events) if e[0] == "agent"), default=None)
        if last_agent is None:
            return Reply(text="Hello? Is anyone there?")
        turn = sum(1 for e in events if e[0] == "agent")
        agent_text = events[last_agent][1]
        if _TRANSFERRED.search(agent_text):
            return Reply(text=TRANSFER)
        since = events[last_agent + 1:]
        done = [(e[2], e[3]) for e in since if e[0] == "call"]
        wanted = self.wanted(agent_text) if has_tools else []   # Airline, Retail: the customer has no device
        todo, already = self.todo(wanted, events[:last_agent])
        if len(done) < len(todo):
            tool, args = todo[len(done)]
            return Reply(tool_uses=[ToolUse(tool, args)])
        results = {e[1]: e[2] for e in since if e[0] == "result"}
        calls = [e for e in since if e[0] == "call"]
        if calls or already:
            text = " ".join(already + ([self.report(calls, results, turn)] if calls else []))
            return Reply(text=text)
        return Reply(text=self.answer(agent_text, turn))

    def todo(self, wanted: list[tuple[str, dict[str, Any]]], before: list[tuple]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
        """The actions to perform of those asked for, and what the customer says of the others: a
        switch asked to be where the phone already shows it (airplane mode off, mobile data on, ...)
        is not flipped back, as a person looking at their screen would not ("It's already off.")."""
        state = _switches(before)
        todo, already = [], []
        for tool, args in wanted:
            target = _TARGET.get(tool)
            if target is not None and state.get(tool) == target[0]:
                already.append(f"{target[1]} is already {'on' if target[0] else 'off'}.")
                continue
            if target is not None and tool in state:
                state[tool] = not state[tool]
            todo.append((tool, args))
        return todo, already

    def wanted(self, agent_text: str) -> list[tuple[str, dict[str, Any]]]:
        """The device actions a message asks for, in order; a request to test "the problem you
        called about" adds the scenario's own tests."""
        wanted = speech.requested(agent_text)
        if speech.asks_problem_test(agent_text):
            wanted += [(t, {}) for t in self.tests if all(t != w for w, _ in wanted)]
        return wanted

    # ----- what the customer says --------------------------------------------------------------

    def opening(self, has_tools: bool = True) -> str:
        reason = _first_person(str(self.instructions.get("reason_for_call") or "I need help."))
        known = _first_person(str(self.instructions.get("known_info") or ""))
        if has_tools and _PHONE.search(known) and speech.rng(self.seed, self.task.get("id"), "no number").random() < 0.25:
            known = ""   # this customer gives their number only when asked
        greeting = self._pick(("Hi.", "Hello,", "Hi there!", "Good morning."), "greeting")
        return f"{greeting} {reason} {known}".strip()

    def report(self, calls: list[tuple], results: dict[str, str], turn: int = 0) -> str:
        lines = [self.describe(tool, results.get(call_id, "").strip(), turn, i)
                 for i, (_, call_id, tool, _args) in enumerate(calls)]
        text = " ".join(lines)
        if self.resolved(calls, results):
            thanks = self._pick(("That is what I needed, the problem is solved. Thank you!",
                                 "Looks great, that fixed it. Thanks so much!",
                                 "Excellent, it works now. Thank you for your help!"), "thanks", turn)
            return f"{text} {thanks} {STOP}"
        return text

    def describe(self, tool: str, result: str, turn: int, i: int) -> str:
        """The customer's words for one device action and its result (several phrasings; the
        result itself always in them, verbatim or paraphrased)."""
        key = (tool, turn, i)
        first, bar = (result.splitlines() or [""])[0], ev_status_bar(result)
        if tool == "run_speed_test":
            speed = re.search(r"([\d.]+) Mbps \(([^)]*)\)", result)
            if speed is None:
                return self._pick((f"It shows no connection at all. ({result}) I really need excellent internet speed.",
                                   f"I ran it: {result}",
                                   f"The speed test failed - {result} This is frustrating, I need excellent speed."), *key)
            mbps, desc = speed.group(1).split(".")[0], speed.group(2)
            if desc.lower() == "excellent":
                return self._pick((f"{mbps} Mbps... looks great! ({result})", f"I ran it: {result}",
                                   f"The speed test says {mbps} Mbps, {desc}."), *key)
            return self._pick((f"The speed test says {mbps} Mbps ({desc}). Still not the excellent speed I need.",
                               f"I ran it: {result}",
                               f"Excellent question - it came back at {mbps} Mbps, which it calls {desc}."), *key)
        if tool == "check_status_bar" and bar is not None:
            return self._pick((f"My status bar shows: {bar}.", f"I did that. It shows: {result}",
                               f"At the top of my screen I see {bar}."), *key)
        if tool == "can_send_mms":
            return self._pick((f"I tried. {result}", f"It says: {result}",
                               f"{'It went through!' if 'cannot' not in result else 'It will not send.'} ({result})"), *key)
        if bar is not None:   # a repair: what it says, and the status bar
            return self._pick((f"Done. {first} My status bar now shows: {bar}.",
                               f"I did that ({tool.replace('_', ' ')}). It shows: {result}",
                               f"Okay, {first[:1].lower() + first[1:]} The status bar says {bar}."), *key)
        return self._pick((f"I did that ({tool.replace('_', ' ')}). It shows: {result}", f"It says: {result}",
                           f"Okay. {result}"), *key)
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

    def answer(self, agent_text: str, turn: int = 0) -> str:
        low = agent_text.lower()
        known = str(self.instructions.get("known_info") or "")
        if "phone number" in low or "number" in low and "line" in low:
            phone = _PHONE.search(known)
            if not phone:
                return "I don't know that."
            return self._pick((f"My phone number is {phone.group(0)}.", f"Sure, it's {phone.group(0)}.",
                               f"It's {phone.group(0)}, that's the line with the problem."), "phone", turn)
        if "name" in low and ("your name" in low or "full name" in low):
            found = re.search(r"You are ([A-Z][a-z]+ [A-Z][a-z]+)", known)
            return f"My name is {found.group(1)}." if found else "I'd rather not say."
        if "refuel" in low or "add data" in low:
            amount = re.search(r"refuel (\d+(?:\.\d+)?) ?GB", str(self.instructions.get("task_instructions") or ""))
            return f"Yes, please add {amount.group(1)} GB of data." if amount else "No, thank you."
        if "anything else" in low:
            return self._pick((f"No, that's all. Thank you. {STOP}", f"Nope, that was it - thanks! {STOP}",
                               f"No, I'm all set. Excellent service, thank you. {STOP}"), "bye", turn)
        if re.search(r"\b(shall i|should i|may i|can i|would you like|do you want|confirm|okay if)\b", low):
            return self._pick(("Yes, please go ahead.", "Yes.", "Sure, go ahead.", "Yep, that's right, please do it."),
                              "yes", turn)
        return self._pick(("Okay. What should I do next?", "Alright, what's the next step?",
                           "Sure - what would you like me to do?"), "next", turn)


#: The switches a request names a direction for: the state asked for, and its name.
_TARGET = {"toggle_airplane_mode": (False, "Airplane Mode"), "toggle_data": (True, "Mobile data"),
           "toggle_roaming": (True, "Data Roaming"), "toggle_data_saver_mode": (False, "Data Saver"),
           "toggle_wifi_calling": (False, "Wi-Fi Calling")}
_NOW = {"toggle_airplane_mode": r"Airplane Mode is now (ON|OFF)|Airplane Mode: (ON|OFF)",
        "toggle_data": r"Mobile Data is now (ON|OFF)|Mobile Data Enabled: (Yes|No)",
        "toggle_roaming": r"Data Roaming is now (ON|OFF)|Data Roaming Enabled: (Yes|No)",
        "toggle_data_saver_mode": r"Data Saver Mode is now (ON|OFF)|Data Saver mode is (ON|OFF)",
        "toggle_wifi_calling": r"Wi-Fi Calling is now (ON|OFF)|Wi-Fi Calling is currently turned (ON|OFF)"}


def _switches(events: list[tuple]) -> dict[str, bool]:
    """What the customer's own device results so far show of each switch (the latest shown)."""
    state: dict[str, bool] = {}
    for event in events:
        if event[0] != "result":
            continue
        text = str(event[2])
        for tool, pattern in _NOW.items():
            for found in re.finditer(pattern, text):
                value = next(g for g in found.groups() if g)
                state[tool] = value in ("ON", "Yes")
        bar = ev_status_bar(text)
        if bar is not None:
            state["toggle_airplane_mode"] = "Airplane Mode" in bar
            if "Data Enabled" in bar:
                state["toggle_data"] = True
                state["toggle_data_saver_mode"] = "Data Saver" in bar
    return state


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
