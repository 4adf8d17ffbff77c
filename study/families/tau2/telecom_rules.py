"""The Telecom FSM's rules: a fault ledger kept from public evidence, and the deny rules' checks.

Registered for the workflow ``TauTelecomTroubleshootingV1`` (``check_modules``):

* observer ``tau2_telecom_ledger``: after every completed call, from the call and its result
  only, updates the frame's variables: the customer's line (``line_id``: the line whose details
  show the customer's phone; ``phone`` and ``symptom`` come from the customer's opening message,
  given as initial variables), the ``faults`` seen open (in the manual's dependency order),
  ``pending_test`` (a repair not yet followed by a fresh test), ``resolved`` (the last test showed
  the original symptom fixed), ``irreversible`` (public evidence of a condition the agent cannot
  fix: a locked SIM, a line suspended past its contract end), ``ended``, and ``phase`` (scope,
  diagnose, retest, close), which the automatic transitions follow.
* rule checks: ``tau2_transfer_open`` (a transfer while the goal is open and nothing
  irreversible is shown), ``tau2_repair_untested`` (a repair before the last one was tested),
  ``tau2_several_repairs`` (more than one repair in one message), ``tau2_other_line`` (a line
  tool on another line than the customer's).
* named check ``tau2_phase`` (``with: {phase: X}``): the automatic transitions' guard.
"""

from __future__ import annotations

from typing import Any, Mapping

from study.fsm.checks import CheckResult, GuardContext, register_check
from study.fsm.rule_checks import register_observer, register_rule_check

import study.families.tau2.telecom_evidence as ev

SEND = "send_message_to_customer"
FAULT_ORDER = ("airplane_mode", "sim", "payment", "line_suspended", "apn", "mobile_data", "device_roaming",
               "line_roaming", "data_saver", "network_mode", "vpn", "wifi_calling", "app_permission", "restart")


def _phase(v: Mapping[str, Any]) -> str:
    if v.get("ended") or v.get("resolved"):
        return "close"
    if not v.get("line_id"):
        return "scope"
    if v.get("pending_test"):
        return "retest"
    return "diagnose"


def _ordered(faults: set[str]) -> list[str]:
    return [f for f in FAULT_ORDER if f in faults] + sorted(faults - set(FAULT_ORDER))


def ledger(call: Mapping[str, Any], variables: Mapping[str, Any]) -> dict[str, Any]:
    """The observer: the variables this call's public evidence changes."""
    tool, args, ok = call.get("tool"), call.get("args") or {}, bool(call.get("ok"))
    text = str(call.get("result") or "")
    v: dict[str, Any] = {}
    faults = set(variables.get("faults") or [])
    if ev.has_ended(text):
        v["ended"] = True
    if ok and tool == "get_details_by_id":
        facts = ev.line_facts(text)
        if facts and facts.get("phone") and facts.get("phone") == v.get("phone", variables.get("phone")):
            v["line_id"] = facts["line_id"]
            if facts["suspended"]:
                faults.add("line_suspended")
                if facts["contract_ended"]:
                    v["irreversible"] = "the line is suspended and its contract has ended"
    if ok and tool == "get_customer_by_phone" and '"customer_id"' in text:
        v["customer_id"] = _field(text, "customer_id")
        if not variables.get("phone"):   # an opening without the number: the line is the one looked up
            v["phone"] = ev.phone_of(str(args.get("phone_number") or ""))
    repaired = []
    if ok and tool in ev.AGENT_REPAIRS:
        repaired.append(tool)
    tested, reply = False, text
    if ok and tool == SEND:
        message = str(args.get("message") or "")
        repaired += ev.repairs_requested(message)
        tested = ev.asks_for_test(message) and not repaired
        found = ev.irreversible(text)
        if found:
            v["irreversible"] = found
    if ok and ev.CONTROLLER_MARK in text:  # the controller tested after the repair, in the same result
        tested, reply = True, text.split(ev.CONTROLLER_MARK, 1)[1]
    if tested:
        v["pending_test"] = ""
        if ev.test_passed(variables.get("symptom"), reply):
            v["resolved"] = True
            faults.clear()
    if repaired and not v.get("resolved"):
        faults.difference_update(repaired)
        if "pending_test" not in v:
            v["pending_test"] = repaired[-1]
    for name, pattern in (("airplane_mode", "airplane mode: on"), ("airplane_mode", "✈️")):
        if pattern in text.lower() and "now off" not in text.lower():
            faults.add(name)
    v["faults"] = _ordered(faults)
    merged = {**variables, **v}
    v["phase"] = _phase(merged)
    return v


def _field(text: str, key: str) -> str | None:
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data.get(key) if isinstance(data, dict) else None


def transfer_open(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    if variables.get("resolved") or variables.get("irreversible"):
        return None
    faults = ", ".join(variables.get("faults") or []) or "the customer's original problem is not fixed"
    return (f"A transfer to a human agent is denied while the customer's problem ({variables.get('symptom') or 'reported'}) "
            f"is still open and nothing shows it cannot be fixed here (open: {faults}). Diagnose the next fault, ask for "
            "one repair, and have the customer test again.")


def repair_untested(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    pending = variables.get("pending_test")
    if not pending:
        return None
    if params.get("message") and not ev.repairs_requested(str(args.get("message") or "")):
        return None
    return (f"The last repair ({pending}) has not been tested yet: ask the customer for a fresh test of the original "
            "problem before the next repair.")


def several_repairs(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    asked = ev.repairs_requested(str(args.get("message") or ""))
    if len(asked) < 2:
        return None
    return f"One repair at a time: this message asks for {len(asked)} ({', '.join(asked)}). Ask for the first one only."


def other_line(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    line = variables.get("line_id")
    if not line or "line_id" not in args or args.get("line_id") == line:
        return None
    return f"This conversation is about the customer's line {line}; {args.get('line_id')} is another line."


def phase_is(ctx: GuardContext) -> CheckResult:
    wanted = ctx.params["phase"]
    now = ctx.variables.get("phase")
    return CheckResult(now == wanted, "" if now == wanted else f"the conversation is in phase {now}, not {wanted}")


register_observer("tau2_telecom_ledger", ledger)
register_rule_check("tau2_transfer_open", transfer_open)
register_rule_check("tau2_repair_untested", repair_untested)
register_rule_check("tau2_several_repairs", several_repairs)
register_rule_check("tau2_other_line", other_line)
register_check("tau2_phase", params=["phase"])(phase_is)
