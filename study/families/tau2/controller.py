"""The Telecom FSM condition's controller: turns it emits itself, counted apart from the agent's.

After every call that repairs something (a device repair the agent asked the customer for, or a
repair tool of the agent's: ``telecom_evidence.AGENT_REPAIRS``), unless the same message already
asked for a test, the controller sends the customer the fresh test of the original problem (the
symptom of the customer's opening message: the status bar, a speed test, an MMS) and returns the
customer's answer with the call's result, after ``telecom_evidence.CONTROLLER_MARK``. Each such
message is a turn of tau2's trajectory the agent did not write (``Tau2Work.controller_turns``).
It reads only public evidence (the opening, the call, its result); it never sees the task.
"""

from __future__ import annotations

from typing import Any

import study.families.tau2.telecom_evidence as ev


class TelecomController:
    def after(self, work: Any, name: str, args: dict[str, Any], result: Any) -> Any:
        repaired = name in ev.AGENT_REPAIRS
        if name == "send_message_to_customer":
            message = str(args.get("message") or "")
            repaired = bool(ev.repairs_requested(message)) and not ev.asks_for_test(message)
        symptom = ev.symptom_of(work.opening())
        if not repaired or symptom is None or work.ended:
            return result
        request = ev.TEST_REQUEST[symptom]
        answer = work.say(request, by_controller=True)
        text = f"{result.text}\n\n{ev.CONTROLLER_MARK} \"{request}\"]\nCustomer: {answer.text}"
        return type(result)(result.ok, text, result.data, result.account)


def fsm_variables(opening: str) -> dict[str, Any]:
    """The FSM frame's initial variables from the customer's opening message (public evidence):
    the phone number and the symptom the workflow binds."""
    return {"phone": ev.phone_of(opening), "symptom": ev.symptom_of(opening)}
