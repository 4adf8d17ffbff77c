"""The first frozen Airline and Retail FSMs: their rules through the FSM runtime (no tau2 needed),
and the simulator's agents playing real tasks against them directly (tau2 needed; skipped, with the
install line, without the extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

from study.families.tau2 import tau2_problem

ROOT = Path(__file__).resolve().parents[3]
FAMILY = ROOT / "study/families/tau2"
PROBLEM = tau2_problem()
needs_tau2 = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")


def _fsm(domain: str, tmp_path: Path):
    from study.fsm import FsmRuntime, Workflow

    workflow = Workflow.load(FAMILY / f"workflows_template/{domain}.yaml")
    fsm = FsmRuntime(tmp_path / domain, {workflow.name: workflow})
    fsm.enter(workflow.name)
    return fsm


def _do(fsm, tool: str, args: dict, result: str = "", ok: bool = True) -> str | None:
    """Ask the gate; when admitted, record the call with its result. Returns the refusal or None."""
    decision = fsm.gate(tool, args)
    if not decision.allowed:
        return decision.reason
    fsm.observe(tool, args, ok, result=result)
    return None


def test_the_confirmation_rule_reads_that_the_customer_replied_never_what_they_said(tmp_path):
    """Whether a reply is a yes exists only in words: the rule allows once the customer answered a
    message since the last change, whatever the words ("check less, not more"), and the ledger
    keeps the reply for an audit; with no exchange since the last change it denies."""
    fsm = _fsm("airline", tmp_path)
    assert _do(fsm, "get_user_details", {"user_id": "ann_lee_1234"}, '{"user_id": "ann_lee_1234"}') is None
    cancel = ("cancel_reservation", {"reservation_id": "ABC123"})
    assert "confirm" in _do(fsm, *cancel)
    for reply in ("No, wait.", "Sí, adelante.", "👍", "Let me think... fine, do it", "Excellent"):
        assert _do(fsm, "send_message_to_customer", {"message": "Cancel ABC123?"}, reply) is None
        assert fsm.frames()[-1]["variables"]["confirmation_reply"] == reply
        assert _do(fsm, *cancel, '{"status": "cancelled"}') is None
        assert "Each change needs its own confirmation" in _do(fsm, *cancel)
    # a message the customer did not answer (an empty reply) is no exchange
    assert _do(fsm, "send_message_to_customer", {"message": "Shall I?"}, "") is None
    assert "confirm" in _do(fsm, *cancel)


def test_airline_no_change_or_transfer_before_the_customer_is_identified_then_a_yes_per_change(tmp_path):
    fsm = _fsm("airline", tmp_path)
    cancel = ("cancel_reservation", {"reservation_id": "ABC123"})
    assert "not identified" in _do(fsm, *cancel)
    assert "Identify the customer first" in _do(fsm, "transfer_to_human_agents", {"summary": "x"})
    assert _do(fsm, "get_reservation_details", {"reservation_id": "ABC123"}, '{"reservation_id": "ABC123"}') is None
    assert _do(fsm, "get_user_details", {"user_id": "ann_lee_1234"}, '{"user_id": "ann_lee_1234"}') is None
    assert fsm.state == "serve"
    assert "confirm" in _do(fsm, *cancel)
    assert _do(fsm, "send_message_to_customer", {"message": "Shall I cancel reservation ABC123 (yes/no)?"},
               "Yes, please.") is None
    assert _do(fsm, "get_reservation_details", {"reservation_id": "ABC123"}, "{}") is None   # a lookup keeps the yes
    assert _do(fsm, *cancel, '{"status": "cancelled"}') is None
    # one yes, one change
    assert "Each change needs its own confirmation" in _do(fsm, "update_reservation_baggages",
                                                           {"reservation_id": "XYZ", "total_baggages": 1})
    assert _do(fsm, "send_certificate", {"user_id": "ann_lee_1234", "amount": 100}, "ok") is None
    assert _do(fsm, "transfer_to_human_agents", {"summary": "x"}, "Transfer successful") is None
    assert fsm.stop_gate().allowed is False                      # the customer is still on the line
    assert _do(fsm, "send_message_to_customer", {"message": "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT."},
               "###TRANSFER###\n\n[The customer has ended the conversation (user_stop).]") is None
    assert fsm.state == "close" and fsm.stop_gate().allowed


def test_retail_authenticates_first_serves_one_user_and_changes_an_orders_items_once(tmp_path):
    fsm = _fsm("retail", tmp_path)
    assert "Authenticate the customer first" in _do(fsm, "get_user_details", {"user_id": "mei_ko_1111"})
    assert "Authenticate the customer first" in _do(fsm, "get_order_details", {"order_id": "#W1"})
    assert _do(fsm, "find_user_id_by_email", {"email": "nobody@example.com"}, "Error: User not found", ok=False) is None
    assert fsm.state == "identify"
    assert _do(fsm, "find_user_id_by_name_zip", {"first_name": "Mei", "last_name": "Ko", "zip": "1"}, "mei_ko_1111") is None
    assert fsm.state == "serve"
    assert "one user per conversation" in _do(fsm, "get_user_details", {"user_id": "someone_else_2222"})
    assert _do(fsm, "get_order_details", {"order_id": "#W2"}, '{"order_id": "#W2", "user_id": "someone_else_2222"}') is None
    assert "belongs to someone_else_2222" in _do(fsm, "cancel_pending_order", {"order_id": "#W2", "reason": "no longer needed"})
    assert _do(fsm, "get_order_details", {"order_id": "#W1"}, '{"order_id": "#W1", "user_id": "mei_ko_1111"}') is None
    items = ("modify_pending_order_items", {"order_id": "#W1", "item_ids": ["1"], "new_item_ids": ["2"],
                                             "payment_method_id": "paypal_1"})
    assert "confirm" in _do(fsm, *items)
    assert _do(fsm, "send_message_to_customer", {"message": "Modify items of #W1: 1 -> 2. Confirm?"}, "Yes.") is None
    assert _do(fsm, *items, '{"order_id": "#W1"}') is None
    assert _do(fsm, "send_message_to_customer", {"message": "Anything else to change, shall I?"}, "Yes.") is None
    assert "once per order" in _do(fsm, *items)
    assert "once per order" in _do(fsm, "cancel_pending_order", {"order_id": "#W1", "reason": "no longer needed"})
    assert _do(fsm, "modify_user_address", {"user_id": "mei_ko_1111", "address1": "1 Road", "address2": "",
                                            "city": "X", "state": "Y", "country": "USA", "zip": "1"}, "{}") is None


@needs_tau2
@pytest.mark.xdist_group("tau2")
@pytest.mark.parametrize("domain,task_id", [("airline", "19"), ("retail", "5")])
def test_the_oracle_passes_under_the_fsm_unrefused_and_the_adversarial_agent_is_refused(tmp_path, domain, task_id):
    from study.families.tau2 import data
    from study.families.tau2.conversation import ModelEndpoint
    from study.families.tau2.work import Tau2Work
    from study.sim.server import SimServer
    from study.families.tau2.sim import make_agent
    from study.families.tau2.sim.customer import Customer
    from study.families.tau2.sim.direct import play

    task = data.load_task(domain, task_id).model_dump(mode="json")
    played = {}
    for policy in ("oracle", "adversarial"):
        with SimServer(Customer(task)) as sim:
            work = Tau2Work(domain, task_id, ModelEndpoint("sim-customer", base_url=sim.base_url),
                            texts=FAMILY / "texts_template")
            played[policy] = play(work, make_agent(policy, task, domain=domain), fsm=_fsm(domain, tmp_path / policy))
    oracle, adversarial = played["oracle"], played["adversarial"]
    assert oracle.outcome["reward"] == 1.0 and oracle.outcome["judged"] and not oracle.denied
    assert oracle.outcome["termination_reason"] == "user_stop"   # the customer ended it: nothing else to do
    refused = [(call.tool, reason) for call, reason in adversarial.denied]
    assert refused[0][0] == "transfer_to_human_agents"
    assert [r for _, r in refused[1:] if "first" in r]            # its change before identifying the customer
    assert [r for _, r in refused if "confirm" in r]              # its change without a yes
    assert adversarial.outcome["reward"] == 1.0
