"""The Telecom FSM condition's controller: turns it emits itself, counted apart from the agent's.

The paper's runtime "binds the customer's phone line and original symptom" and "opens a fresh
test after every repair" (appendix D.2); its adapter emitted 62% of the FSM agent's turns. Ours
emits two kinds of turns, each a turn of tau2's trajectory the agent did not write
(``Tau2Work.controller_turns``):

* the scope step (:meth:`TelecomController.scope`), before the agent's first call: the customer
  looked up by the phone number of their opening message (``get_customer_by_phone``), then the
  customer's lines (``get_details_by_id``) until the one with that number; the results go into
  the agent's first message (after :data:`SCOPE_MARK`) and the session log (a ``controller_call``
  event each, the outcome's ``controller_lookups`` counts them) and, through the FSM's own ledger
  (``telecom_rules.ledger``), into the frame's first variables (the customer, the line, a
  suspended line's fault), so the workflow starts where a bound line puts it;
* after every call that repairs something (a device repair the agent asked the customer for, or
  a repair tool of the agent's: ``telecom_evidence.AGENT_REPAIRS``), unless the same message
  already asked for a test, the fresh test of the original problem (the symptom of the opening:
  the status bar, a speed test, an MMS), returned with the call's result after
  ``telecom_evidence.CONTROLLER_MARK``.

It reads only public evidence (the opening, the calls, their results); it never sees the task.
It does not diagnose or choose repairs: the agent does (the deny rules hold it to one repair at a
time), so what it emits is the procedure's bookkeeping, not the troubleshooting.
"""

from __future__ import annotations

import json
from typing import Any

import study.families.tau2.telecom_evidence as ev

#: Opens the scope step's results in the agent's first message.
SCOPE_MARK = "[The workflow's controller identified the customer and their line:"


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

    def scope(self, work: Any) -> tuple[str, dict[str, Any]]:
        """The scope step: the lookups that bind the customer and their line, as the controller's
        own calls. Returns the text for the agent's first message ("" when the opening names no
        phone number, or the conversation ended) and the FSM frame's first variables."""
        from study.families.tau2.telecom_rules import ledger

        variables = fsm_variables(work.opening())
        phone = variables["phone"]
        if phone is None or work.ended:
            return "", variables
        shown: list[str] = []

        def lookup(tool: str, args: dict[str, Any]) -> Any:
            result = work.run_tool(tool, args, by_controller=True)
            call = {"tool": tool, "args": args, "ok": result.ok, "result": result.text}
            variables.update(ledger(call, variables) or {})
            work.scope_calls.append(call)
            shown.append(f"{tool}({json.dumps(args)}) -> {result.text}")
            return result

        customer = lookup("get_customer_by_phone", {"phone_number": phone})
        lines = (customer.data or {}).get("line_ids") if customer.ok else None
        for line in lines if isinstance(lines, list) else []:
            if work.ended or variables.get("line_id"):
                break
            lookup("get_details_by_id", {"id": line})
        if not shown:
            return "", variables
        return f"{SCOPE_MARK}]\n" + "\n".join(shown), variables


def fsm_variables(opening: str) -> dict[str, Any]:
    """The FSM frame's initial variables from the customer's opening message (public evidence):
    the phone number and the symptom the workflow binds."""
    return {"phone": ev.phone_of(opening), "symptom": ev.symptom_of(opening)}
