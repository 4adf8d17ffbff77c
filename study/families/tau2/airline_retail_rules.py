"""The first frozen Airline and Retail FSMs' rules: who the customer is, and a confirmation per change.

Each domain's policy (texts_template/policy_<domain>.md) asks the same three things of the agent,
which the workflows ``TauAirlineReservationsV1`` and ``TauRetailOrdersV1`` hold it to:

* identify the customer before acting: Airline, the user id the customer gives, looked up
  (``get_user_details``) before any change or transfer; Retail, the user id located by email or
  by name and zip code (``find_user_id_by_*``), "even when the user already provides the user
  id", before any lookup of a profile, order or product, any change or transfer;
* before every action that updates the database, list its details and obtain the customer's
  explicit confirmation (yes): a change is admitted only when, since the last change (or the
  start), the agent sent the customer a message and the customer replied. Whether the message
  listed the change and the reply was a yes exists only in words, which no rule reads: the rule
  allows, and the ledger keeps the last reply (``confirmation_reply``) for whoever audits the
  conversation (a replay shows it);
* Retail only: one customer per conversation (no profile or change of another user's), and
  "exchange or modify order tools can only be called once per order" (after an order's items were
  modified it can no longer be modified or cancelled).

Registered for the two workflows (``check_modules``):

* observers ``tau2_airline_ledger``, ``tau2_retail_ledger``: after every completed call, from the
  call and its result only (data: which tool, its arguments, what it returned; never what a
  message says), update ``user_id``, ``confirmed`` (a message exchange since the last change),
  ``confirmation_reply``, ``owners`` (order -> its user, from the order's details),
  ``items_changed`` (orders whose items were modified or exchanged), ``ended`` and ``phase``
  (identify, serve, close), which the automatic transitions follow;
* rule checks ``tau2_unconfirmed_write``, ``tau2_other_user``, ``tau2_order_changed``;
* named check ``tau2_desk_phase`` (``with: {phase: X, domain: D}``): the automatic transitions'
  guard; its message says what the next phase needs.

Everything here reads public evidence (the agent's own calls, the tools' results, that the
customer replied); no task id, hidden state, expected action or reward
(tests/families/tau2/test_no_ground_truth.py). The checks are deliberately lenient (any reply to
any message counts as the confirmation): the paper's first Retail FSM lost by rejecting changes
the policy allowed, and "the fix was to check less, not more".
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from study.fsm.checks import CheckResult, GuardContext, register_check
from study.fsm.rule_checks import register_observer, register_rule_check

from study.families.tau2.public import STOP_MARKS

SEND = "send_message_to_customer"
#: The calls that change the database, per domain (the policies' "actions that update the database").
WRITES = {
    "airline": ("book_reservation", "cancel_reservation", "update_reservation_baggages", "update_reservation_flights",
                "update_reservation_passengers"),
    "retail": ("cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items",
               "modify_pending_order_payment", "modify_user_address", "return_delivered_order_items",
               "exchange_delivered_order_items"),
}
#: The calls that identify the customer, per domain.
IDENTIFY = {"airline": ("get_user_details",), "retail": ("find_user_id_by_email", "find_user_id_by_name_zip")}
#: Retail: the tools that change an order's items (once per order), and those a changed order refuses.
ITEMS_ONCE = ("modify_pending_order_items", "exchange_delivered_order_items")
PENDING_WRITES = ("cancel_pending_order", "modify_pending_order_address", "modify_pending_order_items",
                  "modify_pending_order_payment")
#: The session's own words when the conversation has ended (``work.py``: a tool's result, not anyone's message).
ENDED_MARKS = ("[The customer has ended the conversation", "the conversation with the customer has ended")


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _phase(v: Mapping[str, Any]) -> str:
    if v.get("ended"):
        return "close"
    return "serve" if v.get("user_id") else "identify"


def ledger(domain: str, call: Mapping[str, Any], variables: Mapping[str, Any]) -> dict[str, Any]:
    """The observer of ``domain``: the variables this call's public evidence changes."""
    tool, args, ok = call.get("tool"), call.get("args") or {}, bool(call.get("ok"))
    text = str(call.get("result") or "")
    v: dict[str, Any] = {}
    if any(mark in text for mark in ENDED_MARKS) or (tool == SEND and any(m in text for m in STOP_MARKS)):
        v["ended"] = True
    if ok and tool in IDENTIFY[domain] and not variables.get("user_id"):
        found = _json(text).get("user_id") if domain == "airline" else text.strip()
        if isinstance(found, str) and found and not found.lower().startswith("error"):
            v["user_id"] = found
    reply = text.split("\n\n[The customer has ended", 1)[0].strip()
    if ok and tool == SEND and reply:
        v["confirmed"] = True             # the customer answered a message: only words could say it was a yes
        v["confirmation_reply"] = reply[:300]
    if ok and tool in WRITES[domain]:
        v["confirmed"] = False            # one confirmation, one change
        if tool in ITEMS_ONCE and args.get("order_id"):
            v["items_changed"] = sorted({*(variables.get("items_changed") or []), str(args["order_id"])})
    if ok and tool == "get_order_details":
        order = _json(text)
        if order.get("order_id") and order.get("user_id"):
            v["owners"] = {**(variables.get("owners") or {}), str(order["order_id"]): str(order["user_id"])}
    v["phase"] = _phase({**variables, **v})
    return v


def unconfirmed_write(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    if variables.get("confirmed"):
        return None
    return ("Before a change to the database, list the action's details to the customer (send_message_to_customer) and "
            "ask them to confirm; make the change only after they answer yes. Each change needs its own confirmation: "
            "no message has been exchanged with the customer since the last change.")


def other_user(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    user = variables.get("user_id")
    if not user:
        return None
    if "user_id" in args and args.get("user_id") != user:
        return (f"You can only help one user per conversation: the customer is {user}, not {args.get('user_id')}; "
                "deny requests about other users.")
    owner = (variables.get("owners") or {}).get(str(args.get("order_id")))
    if owner and owner != user:
        return (f"Order {args.get('order_id')} belongs to {owner}, not to the customer {user}: you can only help one "
                "user per conversation.")
    return None


def order_changed(args: Mapping[str, Any], variables: Mapping[str, Any], params: Mapping[str, Any]) -> str | None:
    order = str(args.get("order_id") or "")
    if not order or order not in (variables.get("items_changed") or []):
        return None
    return (f"Order {order}'s items were already modified or exchanged in this conversation: exchange or modify order "
            "tools can only be called once per order, and an order whose items were modified can no longer be "
            "modified or cancelled.")


#: What the agent is told it needs for the next phase (the guard's message: the gate's "Next:").
PHASE_NEEDS = {
    ("serve", "airline"): "identify the customer first: ask for their user id and look it up with get_user_details",
    ("serve", "retail"): "authenticate the customer first: locate their user id via email (find_user_id_by_email) or "
                         "via name and zip code (find_user_id_by_name_zip)",
    ("close", None): "the customer is still on the line: keep serving them within the policy until they end the "
                     "conversation (ask whether there is anything else)",
}


def phase_is(ctx: GuardContext) -> CheckResult:
    wanted = ctx.params["phase"]
    now = ctx.variables.get("phase")
    if now == wanted:
        return CheckResult(True, "")
    needs = PHASE_NEEDS.get((wanted, ctx.params.get("domain"))) or PHASE_NEEDS.get((wanted, None))
    return CheckResult(False, needs or f"the conversation is in phase {now}, not {wanted}")


register_observer("tau2_airline_ledger", lambda call, variables: ledger("airline", call, variables))
register_observer("tau2_retail_ledger", lambda call, variables: ledger("retail", call, variables))
register_rule_check("tau2_unconfirmed_write", unconfirmed_write)
register_rule_check("tau2_other_user", other_user)
register_rule_check("tau2_order_changed", order_changed)
register_check("tau2_desk_phase", params=["phase"], optional=["domain"])(phase_is)
