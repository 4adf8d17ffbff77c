"""The Telecom FSM condition's controller: turns it emits itself, counted apart from the agent's.

The paper's runtime "binds the customer's phone line and original symptom" and "opens a fresh
test after every repair" (appendix D.2); its adapter emitted 62% of the FSM agent's turns. Ours
decides two kinds of turns, which the session's work (``Tau2Work``) makes and counts
(``controller_turns``):

* the scope step (:meth:`TelecomController.next_lookup`), before the agent's first call: the
  customer looked up by the phone number of their opening message (``get_customer_by_phone``),
  then the customer's lines (``get_details_by_id``) until the one with that number; the results
  go into the agent's first message (after :data:`SCOPE_MARK`), the session log (a
  ``controller_call`` event each) and, through the FSM's own ledger (``telecom_rules``), the
  frame's first variables (the customer, the line, a suspended line's fault);
* after every repair (:meth:`TelecomController.fresh_test`), the fresh test of the customer's
  problem, unless the customer already ran it after the repair. A repair is data: a repair tool of
  the agent's that succeeded, or a device action of the customer's that changes the phone (tau2's
  trajectory records it as the customer's tool call), never a sentence that sounds like one. The
  test asks for the checks that have failed so far and for the check that shows the problem the
  customer called about; its words and the customer's reply follow the call's result, after
  ``telecom_evidence.CONTROLLER_MARK``.

It is a function of the public record (``public.PublicRecord``) only: it holds nothing (no task,
no work, no session), is given the record at each step and returns what to do; the work does it.
It does not diagnose or choose repairs: the agent does, so what it emits is the procedure's
bookkeeping, not the troubleshooting.
"""

from __future__ import annotations

from typing import Any

import study.families.tau2.telecom_evidence as ev
from study.families.tau2.public import SEND, PublicRecord

#: Opens the scope step's results in the agent's first message.
SCOPE_MARK = "[The workflow's controller identified the customer and their line:"
#: The device checks that run each of the manual's tests (an explicit check, not a repair's status bar).
_CHECK_OF = {tool: symptom for symptom, tools in ev.SYMPTOM_CHECKS.items() for tool in tools}


def test_request(failed: list[str]) -> str:
    """The controller's words for a fresh test: the tests that have failed, and the problem's own."""
    named = [ev.TEST_REQUEST[s] for s in ev.SYMPTOM_CHECKS if s in failed]
    if named:
        return (f"Please {' and '.join(named)} now, and check whether the problem you called about is fixed; "
                "tell me exactly what you see.")
    return ("Please check now whether the problem you called about is fixed: run the check that shows it (your status "
            "bar for signal, a speed test for mobile data, or sending a picture message for MMS) and tell me exactly "
            "what it shows.")


class TelecomController:
    """Stateless: every method reads the record it is given."""

    __slots__ = ()

    def next_lookup(self, record: PublicRecord, phone: str | None) -> tuple[str, dict[str, Any]] | None:
        """The scope step's next lookup (None: done, or nothing to look up without a number)."""
        if phone is None or record.ended:
            return None
        mine = [e for e in record.events if e.get("by") == "controller" and "tool" in e]
        customers = [e for e in mine if e["tool"] == "get_customer_by_phone"]
        if not customers:
            return "get_customer_by_phone", {"phone_number": phone}
        facts = ev.customer_facts(customers[-1]["result"]) if customers[-1].get("ok") else {}
        looked = {e["args"].get("id"): ev.line_facts(e["result"]) for e in mine if e["tool"] == "get_details_by_id"}
        if any(f.get("phone") == phone for f in looked.values()):
            return None
        for line in facts.get("line_ids") or []:
            if line not in looked:
                return "get_details_by_id", {"id": line}
        return None

    def fresh_test(self, record: PublicRecord, since: int) -> str | None:
        """The fresh test to ask for after the call whose events start at ``since`` (None: none
        is needed: nothing was repaired, or the customer already ran the test after the repair)."""
        from study.families.tau2.telecom_rules import LEDGER, fold

        if record.ended:
            return None
        events = record.events[since:]
        if not events or events[0].get("by") not in ("agent", "controller"):
            return None
        call = events[0]
        failed = fold(record.events, LEDGER)["failed"]
        if call.get("tool") in ev.AGENT_REPAIRS and call.get("ok"):
            return test_request(failed)
        if call.get("tool") != SEND:
            return None
        device = [e for e in events[1:] if e.get("by") == "customer" and "tool" in e and e.get("ok")]
        last = max((i for i, e in enumerate(device) if e["tool"] in ev.DEVICE_REPAIRS), default=None)
        if last is None:
            return None
        ran = {_CHECK_OF[e["tool"]] for e in device[last + 1:] if e["tool"] in _CHECK_OF}
        if (failed and set(failed) <= ran) or (not failed and ran):
            return None
        return test_request(failed)


def fsm_variables(record: Any, opening: str) -> dict[str, Any]:
    """The FSM frame's initial variables: the ledger over the record so far, bound to the phone
    number of the customer's opening message (public evidence)."""
    from study.families.tau2.telecom_rules import initial_variables

    return initial_variables(record, ev.phone_of(opening))
