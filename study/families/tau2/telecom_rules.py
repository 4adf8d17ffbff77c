"""The Telecom FSM's rules: a fault ledger folded from the conversation's public record, and the
deny rules' checks, which read only that ledger.

Registered for the workflow ``TauTelecomTroubleshootingV1`` (``check_modules``):

* observer ``tau2_telecom_ledger``: after every completed call of the agent's, folds the public
  record's new events (``public.py``: the agent's and the controller's calls with their results,
  the customer's device actions with theirs, the end) into the frame's variables. What it reads
  is data (``telecom_evidence.py``): a call's name, its arguments, what the tool returned. It
  never decides from what anyone wrote. The variables:

  - the binding: ``phone`` (the opening's number, or else the number of the agent's first
    successful customer lookup), ``customer_id``, ``customer_lines``, ``line_id`` (the line whose
    details show that phone);
  - ``checks``: the latest result of each of the manual's three tests the customer ran (``service``:
    a status bar, which every device repair's result also shows; ``mobile_data``: a speed test, which
    passes only at "Excellent", the manual's "any speed below 'Excellent' is considered slow";
    ``mms``: can_send_mms), ``failed``: the tests that ever failed;
  - ``faults`` (in the manual's order) and ``open``: what the evidence shows open now, each with the
    result that showed it (``permissions_missing``: the messaging app's, from its permissions check
    and the grants since); ``irreversible``: a condition the agent cannot fix, shown by a result (a
    SIM locked with a PIN or PUK; the customer's line suspended past its contract end);
  - ``pending_test``: the last repair (a device repair of the customer's, or a repair tool of the
    agent's) with nothing since that could have tested it (a device check, a fresh test, a message
    to the customer); ``resolved``: a test ran and nothing the evidence shows is open;
  - logged, never judged (where only words could tell, the rules allow): ``untested_repairs`` (a
    repair made while the one before was untested), ``several_repairs`` (turns in which the
    customer made two repairs or more with no test between), ``other_line_reads`` (lookups of a
    line that is not the customer's);
  - ``ended``, ``phase`` (scope, diagnose, retest, close: the conversation ended), which the
    automatic transitions follow; ``seen``: how many events of the record are folded in.

  Without a public record (``variables["record"]`` names none in this process) it folds the call
  itself: the agent's own calls and results, without the customer's device actions.

* rule checks, one rule each in every state of the workflow: ``tau2_transfer_open`` (a transfer
  while the evidence shows the problem open, or before any test, unless something irreversible is
  shown), ``tau2_repair_untested`` (a repair tool of the agent's while the last repair is
  untested), ``tau2_other_customer`` (a call naming another customer), ``tau2_other_line`` (a
  change to another line than the customer's).
* named check ``tau2_phase`` (``with: {phase: X}``): the automatic transitions' guard.
"""

from __future__ import annotations

from typing import Any, Mapping

from study.fsm.checks import CheckResult, GuardContext, register_check
from study.fsm.rule_checks import register_observer, register_rule_check

import study.families.tau2.telecom_evidence as ev
from study.families.tau2.public import SEND, lookup

#: The ledger's variables and their first values (the workflow declares the same).
LEDGER = {"phone": None, "customer_id": None, "customer_lines": [], "line_id": None, "checks": {}, "failed": [],
          "faults": [], "open": [], "permissions_missing": [], "irreversible": None, "pending_test": "", "resolved": False,
          "untested_repairs": 0, "several_repairs": 0, "other_line_reads": [], "ended": False, "phase": "scope",
          "seen": 0, "record": None}


def _phase(v: Mapping[str, Any]) -> str:
    if v.get("ended"):
        return "close"
    if not v.get("line_id"):
        return "scope"
    if v.get("pending_test"):
        return "retest"
    return "diagnose"


class _Fold:
    """The ledger being folded: the variables, mutable, with the faults' evidence."""

    def __init__(self, variables: Mapping[str, Any]):
        self.v = {key: _copy(value if variables.get(key) is None else variables[key]) for key, value in LEDGER.items()}
        self.shown: dict[str, str] = {o["what"]: o["shown"] for o in self.v["open"] if o.get("what") in ev.FAULT_ORDER}
        self.turn_repairs = 0   # device repairs in the customer's current turn since the last test

    # the binding ---------------------------------------------------------------------------------

    def bind_customer(self, facts: dict[str, Any], asked_phone: str | None) -> None:
        v = self.v
        if not facts:
            return
        if not v["phone"]:   # an opening without the number: the line is the one the agent looked up
            v["phone"] = asked_phone or facts.get("phone")
        if not v["customer_id"] and v["phone"] in (asked_phone, facts.get("phone")):
            v["customer_id"], v["customer_lines"] = facts.get("customer_id"), facts.get("line_ids") or []

    def line(self, facts: dict[str, Any]) -> None:
        v = self.v
        if not facts:
            return
        mine = facts.get("phone") and facts.get("phone") == v["phone"]
        if mine and not v["line_id"]:
            v["line_id"] = facts["line_id"]
        if facts.get("line_id") != v["line_id"]:
            return
        shown = f"line {facts['line_id']} status {'Suspended' if facts['suspended'] else 'Active'}"
        self.fault("line_suspended", facts["suspended"], shown)
        if facts["suspended"] and facts["contract_ended"]:
            v["irreversible"] = "the customer's line is suspended and its contract has ended"

    # evidence ------------------------------------------------------------------------------------

    def fault(self, name: str, is_open: bool, shown: str) -> None:
        if is_open:
            self.shown[name] = shown
        else:
            self.shown.pop(name, None)

    def check(self, symptom: str, passed: bool, shown: str) -> None:
        self.v["checks"][symptom] = {"ok": passed, "shown": shown}
        if not passed and symptom not in self.v["failed"]:
            self.v["failed"].append(symptom)

    def repaired(self, what: str) -> None:
        v = self.v
        if v["pending_test"]:
            v["untested_repairs"] += 1
        v["pending_test"] = what

    def tested(self) -> None:
        self.v["pending_test"] = ""
        self.turn_repairs = 0

    # the events ----------------------------------------------------------------------------------

    def event(self, e: Mapping[str, Any]) -> None:
        by = e.get("by")
        if by == "conversation":
            self.v["ended"] = True
        elif by == "customer" and "tool" in e:
            self.device(str(e.get("tool")), dict(e.get("args") or {}), str(e.get("result") or ""), bool(e.get("ok")))
        elif by in ("agent", "controller") and "tool" in e:
            self.turn_repairs = 0
            self.call(str(e.get("tool")), dict(e.get("args") or {}), str(e.get("result") or ""), bool(e.get("ok")))

    def device(self, tool: str, args: dict[str, Any], result: str, ok: bool) -> None:
        if not ok:
            return
        seen = ev.device_observation(tool, args, result)
        for symptom, (passed, shown) in seen["checks"].items():
            self.check(symptom, passed, shown)
        for name, (is_open, shown) in seen["faults"].items():
            self.fault(name, is_open, shown)
        if seen["permissions_missing"] is not None:
            self.v["permissions_missing"] = seen["permissions_missing"]
        granted = ev.granted_permission(tool, args, result)
        if granted and granted in self.v["permissions_missing"]:
            self.v["permissions_missing"].remove(granted)
            if self.v["permissions_missing"]:
                self.fault("app_permission", True, f"the messaging app still lacks: {', '.join(self.v['permissions_missing'])}")
            else:
                self.fault("app_permission", False, "")
        if seen["irreversible"]:
            self.v["irreversible"] = seen["irreversible"]
        if seen["repair"]:
            self.turn_repairs += 1
            if self.turn_repairs == 2:
                self.v["several_repairs"] += 1
            self.repaired(tool)
        elif tool.startswith("check_") or tool in ("run_speed_test", "can_send_mms"):
            self.tested()

    def call(self, tool: str, args: dict[str, Any], result: str, ok: bool) -> None:
        v = self.v
        if tool == SEND:
            self.tested()   # a message to the customer may have asked for a test: only words could tell
            return
        if not ok:
            return
        if tool in ("get_customer_by_phone", "get_customer_by_id", "get_customer_by_name", "get_details_by_id"):
            asked = ev.phone_of(str(args.get("phone_number") or "")) if tool == "get_customer_by_phone" else None
            self.bind_customer(ev.customer_facts(result), asked)
        if tool == "get_details_by_id":
            facts = ev.line_facts(result)
            self.line(facts)
            if facts and v["line_id"] and facts.get("line_id") != v["line_id"]:
                v["other_line_reads"] = sorted({*v["other_line_reads"], str(facts["line_id"])})
        if "line_id" in args and v["line_id"] and args.get("line_id") != v["line_id"] and tool not in ev.LINE_WRITES:
            v["other_line_reads"] = sorted({*v["other_line_reads"], str(args.get("line_id"))})
        on_my_line = not v["line_id"] or args.get("line_id") in (None, v["line_id"])
        if tool == "get_data_usage" and on_my_line:
            exceeded = ev.usage_exceeded(result)
            if exceeded is not None:
                self.fault("data_exceeded", exceeded, f"get_data_usage: {result.strip()[:200]}")
        if tool == "get_bills_for_customer":
            overdue = ev.overdue_bills(result)
            if overdue is not None:
                self.fault("bill_overdue", bool(overdue), f"overdue bills: {', '.join(overdue)}" if overdue else "")
        if tool == "resume_line" and on_my_line:
            self.line(ev.line_facts(result))
        if tool == "refuel_data" and on_my_line:
            self.fault("data_exceeded", False, "")
        if tool in ev.AGENT_REPAIRS:
            self.repaired(tool)

    # the result ------------------------------------------------------------------------------

    def done(self) -> dict[str, Any]:
        v = self.v
        failing = [{"what": s, "shown": c["shown"]} for s, c in v["checks"].items() if not c["ok"]]
        faults = [f for f in ev.FAULT_ORDER if f in self.shown]
        v["faults"] = faults
        v["open"] = [{"what": f, "shown": self.shown[f]} for f in faults] + failing
        v["resolved"] = bool(v["checks"]) and not v["open"]
        v["phase"] = _phase(v)
        return v


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(x) for k, x in value.items()}
    if isinstance(value, list):
        return [_copy(x) for x in value]
    return value


def fold(events: list[Mapping[str, Any]], variables: Mapping[str, Any]) -> dict[str, Any]:
    """The ledger after ``events``, from ``variables`` (a pure function of public evidence)."""
    state = _Fold(variables)
    for event in events:
        state.event(event)
    return state.done()


def ledger(call: Mapping[str, Any], variables: Mapping[str, Any]) -> dict[str, Any]:
    """The observer: the record's events not folded yet (without a record: this call)."""
    record = lookup(variables.get("record"))
    if record is None:
        return fold([{"by": "agent", "tool": call.get("tool"), "args": call.get("args") or {},
                      "ok": bool(call.get("ok")), "result": str(call.get("result") or "")}], variables)
    seen = int(variables.get("seen") or 0)
    updated = fold(record.events[seen:], variables)
    updated["seen"] = len(record.events)
    return updated


def initial_variables(record: Any, phone: str | None) -> dict[str, Any]:
    """The frame's first variables: the ledger over what the record holds so far (the controller's
    scope step), bound to the opening's phone number."""
    start = {**_copy(LEDGER), "phone": phone, "record": record.key if record is not None else None}
    if record is None:
        return fold([], start)
    variables = fold(record.events, start)
    variables["seen"] = len(record.events)
    return variables


# ----- the rules' checks ------------------------------------------------------------------------


def open_summary(variables: Mapping[str, Any], limit: int = 4) -> str:
    shown = [f"{o['what']}: {o['shown']}" for o in variables.get("open") or []]
    more = f"; and {len(shown) - limit} more" if len(shown) > limit else ""
    return "; ".join(shown[:limit]) + more


def transfer_open(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    if variables.get("irreversible"):
        return None
    if variables.get("open"):
        return ("A transfer to a human agent is denied: the customer's problem is still open, as the customer's own "
                f"device and the line's records show ({open_summary(variables)}), and nothing shows it cannot be fixed "
                "here. Find the next fault, ask for one repair, and have the customer test again.")
    if not variables.get("checks"):
        return ("A transfer to a human agent is denied: no test on the customer's device has shown anything yet (no "
                "status bar, speed test or MMS check), so nothing shows the problem cannot be fixed here. Diagnose "
                "first: ask the customer to run the check that shows their problem.")
    return None


def repair_untested(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    pending = variables.get("pending_test")
    if not pending:
        return None
    return (f"The last repair ({pending}) has not been tested yet: have the customer test the original problem "
            "before the next repair.")


def other_customer(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    customer = variables.get("customer_id")
    named = args.get("customer_id")
    if not customer or named is None or named == customer:
        return None
    return f"This conversation is about the customer {customer}; {named} is another customer."


def other_line(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    line = variables.get("line_id")
    named = args.get("line_id")
    if not line or named is None or named == line:
        return None
    return (f"This conversation is about the customer's line {line} (the one with their phone number); {named} is "
            "another line, which this conversation does not change.")


#: What the next phase needs (the guard's message: the stop gate's "Next:").
def _needs(wanted: str, v: Mapping[str, Any]) -> str:
    if wanted == "diagnose":
        return ("look the customer up by their phone number and find their line (get_details_by_id of each of their "
                "lines, until the one with that number)")
    if wanted == "close":
        if v.get("open"):
            return f"the customer's problem is still open ({open_summary(v)}): keep troubleshooting with the customer"
        if not v.get("checks"):
            return "no test has shown the customer's problem fixed yet: have the customer test it"
        return ("the customer is still on the line: ask whether there is anything else and let them end the "
                "conversation")
    if wanted == "retest":
        return "ask for the next repair"
    return f"the conversation is in phase {v.get('phase')}, not {wanted}"


def phase_is(ctx: GuardContext) -> CheckResult:
    wanted = ctx.params["phase"]
    now = ctx.variables.get("phase")
    return CheckResult(now == wanted, "" if now == wanted else _needs(wanted, ctx.variables))


register_observer("tau2_telecom_ledger", ledger)
register_rule_check("tau2_transfer_open", transfer_open)
register_rule_check("tau2_repair_untested", repair_untested)
register_rule_check("tau2_other_customer", other_customer)
register_rule_check("tau2_other_line", other_line)
register_check("tau2_phase", params=["phase"])(phase_is)
