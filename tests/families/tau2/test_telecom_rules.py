"""The Telecom rules judge calls and their results, never wording (issue 46, item 1).

Each case is a sequence of public events (what the agent and the controller called and got back,
what the customer's device did and showed, what anyone said), folded by the FSM's ledger and
judged by its rule checks, through the FSM runtime where the case is about a state. The words are
the ones real agents and customers write; the results are tau2's own formats. No tau2 needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import study.families.tau2.telecom_rules as rules
from study.families.tau2.public import PublicRecord

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / "study/families/tau2/workflows_template/telecom.yaml"
PHONE = "555-123-2002"
CUSTOMER = ('{"customer_id": "C1001", "full_name": "John Smith", "phone_number": "555-123-2002", '
            '"line_ids": ["L1001", "L1002", "L1003"]}')
LINE = ('{"line_id": "L1002", "phone_number": "555-123-2002", "status": "Active", "plan_id": "P1002", '
        '"roaming_enabled": true, "contract_end_date": "2026-12-31"}')
OTHER_LINE = ('{"line_id": "L1001", "phone_number": "555-123-2001", "status": "Active", "plan_id": "P1001", '
              '"contract_end_date": "2026-12-31"}')
EXCELLENT_BAR = "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%"


def agent(tool: str, result: str = "", ok: bool = True, **args) -> dict:
    return {"by": "agent", "tool": tool, "args": args, "ok": ok, "result": result}


def says(message: str, reply: str = "") -> dict:
    return {"by": "agent", "tool": "send_message_to_customer", "args": {"message": message}, "ok": True, "result": reply}


def device(tool: str, result: str, **args) -> dict:
    return {"by": "customer", "tool": tool, "args": args, "ok": True, "result": result}


def customer(words: str) -> dict:
    return {"by": "customer", "said": words}


def bound() -> list[dict]:
    return [agent("get_customer_by_phone", CUSTOMER, phone_number=PHONE), agent("get_details_by_id", LINE, id="L1002")]


def ledger(*events: dict, phone: str | None = PHONE) -> dict:
    return rules.fold(list(events), {**rules.LEDGER, "phone": phone})


def transfer(v: dict) -> str | None:
    return rules.transfer_open({"summary": "x"}, v, {})


def test_a_customer_who_says_excellent_has_run_no_test():
    """'Status Bar: 📶⁴ Excellent | 5G' in the customer's words, 'it shows no connection at all. I'm
    really frustrated as I need excellent internet speed': words, not a test; the speed test's own
    result is the test."""
    v = ledger(*bound(), says("What does your status bar show?", "Status Bar: 📶⁴ Excellent | 5G"),
               customer("Status Bar: 📶⁴ Excellent | 5G"),
               customer("it shows no connection at all. I'm really frustrated as I need excellent internet speed"))
    assert v["checks"] == {} and not v["resolved"]
    assert "no test on the customer's device" in transfer(v)
    v = ledger(*bound(), says("Please take a moment to test your data speed."),
               device("run_speed_test", "Speed test failed: No Connection."),
               customer("Now, I'm going to run a speed test to check if the data speed is up to the excellent standard"))
    assert v["checks"]["mobile_data"]["ok"] is False and "Speed test failed" in transfer(v)


def test_an_excellent_status_bar_does_not_close_a_mobile_data_problem():
    v = ledger(*bound(), device("run_speed_test", "Speed Test Result: 2.20 Mbps (Poor). Connection is slow."),
               device("check_status_bar", EXCELLENT_BAR))
    assert v["checks"]["service"]["ok"] and not v["checks"]["mobile_data"]["ok"]
    assert not v["resolved"] and "Poor" in transfer(v)
    # "250 Mbps… looks great": the result passes, the words do not matter
    v = ledger(*bound(), device("run_speed_test", "Speed test failed: No Connection."),
               device("run_speed_test", "Speed Test Result: 250.00 Mbps (Excellent). Connection is very fast."),
               customer("250 Mbps… looks great"))
    assert v["checks"]["mobile_data"]["ok"] and v["resolved"] and transfer(v) is None


def test_faults_the_status_bar_shows_stay_open_until_a_result_shows_them_closed():
    bar = "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔽 Data Saver | 🔋 80%"
    v = ledger(*bound(), device("check_status_bar", bar))
    assert v["faults"] == ["data_saver"] and "data_saver" in transfer(v)
    v = ledger(*bound(), device("check_status_bar", bar),
               device("toggle_data_saver_mode", f"Data Saver Mode is now OFF.\n{EXCELLENT_BAR}"))
    assert v["faults"] == [] and v["pending_test"] == "toggle_data_saver_mode"


def test_repairs_are_what_the_device_did_not_what_the_agent_wrote():
    """'let's try disconnecting the VPN', 'Let's resolve this by turning Data Roaming ON.', 'turn it on
    if it is not', 'make sure Airplane Mode is off': none of them is a repair until the customer's
    device shows one; 'turn off Airplane Mode. If that does not help, restart your phone.' is one
    message, judged by nobody's reading of it."""
    for words in ("let's try disconnecting the VPN", "Let's resolve this by turning Data Roaming ON.",
                  "turn it on if it is not", "make sure Airplane Mode is off",
                  "turn off Airplane Mode. If that does not help, restart your phone.",
                  "1. Open Settings.\n2. Tap Network.\n3. Turn Data Saver off."):
        v = ledger(*bound(), says(words, "ok"))
        assert v["pending_test"] == "" and v["untested_repairs"] == 0, words
    v = ledger(*bound(), says("let's try disconnecting the VPN", "done"),
               device("disconnect_vpn", f"VPN disconnected successfully.\n{EXCELLENT_BAR}"))
    assert v["pending_test"] == "disconnect_vpn"
    # two repairs in one turn with no test between: logged, never denied
    v = ledger(*bound(), says("turn off Airplane Mode. If that does not help, restart your phone.", "done"),
               device("toggle_airplane_mode", f"Airplane Mode is now OFF.\n{EXCELLENT_BAR}"),
               device("reboot_device", f"Restarting network services...\n{EXCELLENT_BAR}"))
    assert v["several_repairs"] == 1 and v["untested_repairs"] == 1


def test_a_test_asked_with_a_repair_in_one_message_counts_when_the_customer_runs_it():
    v = ledger(*bound(), says("Please turn Data Saver off and then run a speed test.", "done"),
               device("toggle_data_saver_mode", f"Data Saver Mode is now OFF.\n{EXCELLENT_BAR}"),
               device("run_speed_test", "Speed Test Result: 250.00 Mbps (Excellent). Connection is very fast."))
    assert v["pending_test"] == "" and v["resolved"]


def test_the_agents_own_repair_waits_for_a_test_and_the_controllers_test_clears_it():
    v = ledger(*bound(), agent("refuel_data", '{"message": "ok"}', customer_id="C1001", line_id="L1002", gb_amount=2))
    assert v["pending_test"] == "refuel_data" and v["phase"] == "retest"
    assert "has not been tested" in rules.repair_untested({}, v, {})
    v = rules.fold([{"by": "controller", "tool": "send_message_to_customer",
                     "args": {"message": "Please run a speed test now"}, "ok": True, "result": "ok"}], v)
    assert v["pending_test"] == "" and rules.repair_untested({}, v, {}) is None


def test_the_line_is_bound_from_the_agents_own_lookups_when_the_opening_has_no_number():
    v = ledger(agent("get_customer_by_name", f"[{CUSTOMER}]", full_name="John Smith", dob="1985-06-15"),
               agent("get_details_by_id", OTHER_LINE, id="L1001"), agent("get_details_by_id", LINE, id="L1002"),
               agent("get_data_usage", '{"data_used_gb": 1}', customer_id="C1001", line_id="L1001"), phone=None)
    assert (v["phone"], v["customer_id"], v["line_id"]) == (PHONE, "C1001", "L1002")
    # looking for the line is no read of another line; a read of another line once it is bound is logged, not judged
    assert v["other_line_reads"] == ["L1001"]
    v2 = ledger(agent("get_customer_by_phone", CUSTOMER, phone_number=PHONE), agent("get_details_by_id", LINE, id="L1002"),
                phone=None)
    assert v2["line_id"] == "L1002"
    # a failed lookup binds nothing
    v3 = ledger(agent("get_customer_by_phone", "Error: Customer with phone number 555-000-0000 not found", ok=False,
                      phone_number="555-000-0000"), phone=None)
    assert v3["phone"] is None
    assert rules.other_customer({"customer_id": "C1002", "line_id": "L1004"}, v, {}) is not None
    assert rules.other_line({"customer_id": "C1001", "line_id": "L1001"}, v, {}) is not None
    assert rules.other_line({"customer_id": "C1001", "line_id": "L1002"}, v, {}) is None


def test_only_a_result_shows_something_irreversible():
    v = ledger(*bound(), device("check_status_bar", "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"),
               customer("It says my SIM is locked with a PIN, I think"))
    assert v["irreversible"] is None and transfer(v) is not None
    v = ledger(*bound(), device("check_status_bar", "Status Bar: 📵 No Signal | 📵 Data Disabled | 🔋 80%"),
               device("check_sim_status", "The SIM card is locked with a PIN code."))
    assert "locked" in v["irreversible"] and transfer(v) is None
    ended = LINE.replace('"Active"', '"Suspended"').replace("2026-12-31", "2024-12-31")
    v = ledger(agent("get_customer_by_phone", CUSTOMER, phone_number=PHONE), agent("get_details_by_id", ended, id="L1002"))
    assert v["irreversible"] and transfer(v) is None
    suspended = LINE.replace('"Active"', '"Suspended"')
    v = ledger(agent("get_customer_by_phone", CUSTOMER, phone_number=PHONE), agent("get_details_by_id", suspended, id="L1002"))
    assert v["faults"] == ["line_suspended"] and transfer(v) is not None


def test_the_rules_hold_in_every_state_and_a_fixed_problem_can_open_again(tmp_path):
    from study.fsm import FsmRuntime, Workflow

    wf = Workflow.load(WORKFLOW)
    record = PublicRecord(f"My data is slow. {PHONE}")
    fsm = FsmRuntime(tmp_path, {wf.name: wf}, variables=rules.initial_variables(record, PHONE))
    fsm.enter(wf.name)
    for state in wf.states:   # the same deny rules everywhere
        assert [r.check.name for r in wf.states[state].permissions.deny] == \
               [r.check.name for r in wf.states["diagnose"].permissions.deny]

    def act(event: dict, *more: dict) -> None:
        record.extend([event, *more])
        fsm.observe(event["tool"], event["args"], event["ok"], result=event["result"])

    act(*bound()[:1])
    act(bound()[1])
    assert fsm.state == "diagnose"
    act(says("Please run a speed test."), device("run_speed_test", "Speed Test Result: 250.00 Mbps (Excellent)."))
    assert fsm.frames()[-1]["variables"]["resolved"] and fsm.gate("transfer_to_human_agents", {"summary": "x"}).allowed
    act(says("And once more, please."), device("run_speed_test", "Speed test failed: No Connection."))
    v = fsm.frames()[-1]["variables"]
    assert not v["resolved"] and fsm.state == "diagnose"
    assert not fsm.gate("transfer_to_human_agents", {"summary": "x"}).allowed
    assert not fsm.stop_gate().allowed
    record.end("user_stop")
    act(says("Bye"))
    assert fsm.state == "close" and fsm.stop_gate().allowed
    # the rules still hold in close
    assert not fsm.gate("transfer_to_human_agents", {"summary": "x"}).allowed


@pytest.mark.parametrize("words", ["transfer me to a human", "I want a human agent now!", "excellent"])
def test_what_the_customer_says_changes_nothing(words):
    before = ledger(*bound(), device("run_speed_test", "Speed test failed: No Connection."))
    after = rules.fold([customer(words)], before)
    assert after == before
