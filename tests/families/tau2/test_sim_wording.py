"""The simulator's τ²-bench agents and customer vary their wording (issue 46, item 4).

Several phrasings per intent, chosen by a seeded generator: the same seed says the same thing,
other seeds and tasks say it otherwise; every phrasing a simulated agent writes is one the
simulated customer performs. The Telecom oracle passes under the FSM whatever its wording.
"""

from __future__ import annotations

import pytest

import study.families.tau2.sim.speech as speech
from study.families.tau2 import tau2_problem

PROBLEM = tau2_problem()
needs_tau2 = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")

ARGS = {"set_network_mode_preference": {"mode": "4g_5g_preferred"},
        "grant_app_permission": {"app_name": "messaging", "permission": "storage"}}


def test_every_action_has_several_phrasings_and_each_is_heard_as_itself():
    for action in speech.ACTIONS:
        if action.tool != "check_network_status":
            assert speech.variants(action.tool) >= 2, action.tool
        for variant in range(speech.variants(action.tool)):
            text = speech.request_text(action.tool, ARGS.get(action.tool), variant)
            heard = speech.requested(text)
            assert [t for t, _ in heard] == [action.tool], text
            if action.tool in ARGS:
                assert heard[0][1] == ARGS[action.tool], text


@pytest.mark.parametrize("repair", [a.tool for a in speech.ACTIONS if a.kind == "repair"])
def test_a_repair_and_a_test_in_one_message_are_heard_in_order(repair):
    for variant in range(speech.variants(repair)):
        for test in ("run_speed_test", "can_send_mms", "check_status_bar"):
            ask = speech.request_text(repair, ARGS.get(repair), variant)
            then = speech.request_text(test, None, variant)
            heard = [t for t, _ in speech.requested(f"{ask} Then {then[0].lower()}{then[1:]}")]
            assert heard == [repair, test], (ask, then)


def test_the_controllers_test_of_the_problem_is_the_customers_own():
    from study.families.tau2.controller import test_request
    from study.families.tau2.sim.customer import Customer

    data_task = {"id": "t", "evaluation_criteria": {"env_assertions": [
        {"env_type": "user", "func_name": "assert_internet_speed", "arguments": {"expected_desc": "excellent"}}]}}
    customer = Customer(data_task)
    assert customer.wanted(test_request([])) == [("run_speed_test", {})]
    assert customer.wanted(test_request(["service"])) == [("check_status_bar", {}), ("run_speed_test", {})]
    mms = Customer({"id": "m", "evaluation_criteria": {"env_assertions": [
        {"env_type": "user", "func_name": "assert_can_send_mms", "arguments": {"expected_status": True}}]}})
    assert mms.wanted(test_request([])) == [("can_send_mms", {})]


def test_the_customer_words_vary_with_the_seed_and_not_within_it():
    from study.families.tau2.sim.customer import Customer

    task = {"id": "x", "user_scenario": {"instructions": {"reason_for_call": "My mobile data is slow.",
                                                          "known_info": "You are John Smith with phone number 555-123-2002."}}}
    openings = {Customer(task, seed).opening() for seed in range(40)}
    assert len(openings) >= 4 and any("555-123-2002" not in o for o in openings)   # some give the number only when asked
    assert Customer(task, 7).opening() == Customer(task, 7).opening()
    result = "Speed Test Result: 4.40 Mbps (Poor). Connection is slow."
    said = {Customer(task, seed).describe("run_speed_test", result, 3, 0) for seed in range(30)}
    assert len(said) >= 3 and any("excellent" in s.lower() for s in said)
    failed = {Customer(task, seed).describe("run_speed_test", "Speed test failed: No Connection.", 1, 0) for seed in range(30)}
    assert any("no connection at all" in s for s in failed)


@needs_tau2
def test_the_oracles_wording_varies_across_seeds_and_tasks_and_repeats_within_a_seed():
    from study.families.tau2 import data
    from study.families.tau2.sim.agents import make_agent

    task_id = "[mobile_data_issue]bad_network_preference|bad_vpn|data_mode_off|data_saver_mode_on|data_usage_exceeded|" \
              "user_abroad_roaming_enabled_off[PERSONA:Easy]"
    task = data.load_task("telecom", task_id).model_dump(mode="json")

    def messages(seed: int) -> list[str]:
        return [c.args["message"] for c in make_agent("oracle", task, seed).plan() if c.tool == "send_message_to_customer"]

    assert messages(1) == messages(1)
    worded = {tuple(messages(seed)) for seed in range(6)}
    assert len(worded) >= 4
    together = [m for seed in range(6) for m in messages(seed) if len(speech.requested(m)) == 2]
    assert together   # a repair and its test asked in one message, in some plans
    combined = {make_agent("multi-repair", task, seed).combined().args["message"] for seed in range(6)}
    assert len(combined) >= 3 and any("\n1) " in m for m in combined)


@needs_tau2
@pytest.mark.xdist_group("tau2")
@pytest.mark.parametrize("seed", [2, 5])
def test_the_oracle_passes_under_the_fsm_whatever_its_wording(tmp_path, seed):
    from pathlib import Path

    from study.families.tau2 import data
    from study.families.tau2.controller import TelecomController
    from study.families.tau2.conversation import ModelEndpoint
    from study.families.tau2.work import Tau2Work
    from study.fsm import FsmRuntime, Workflow
    from study.sim.server import SimServer
    from study.families.tau2.sim.agents import make_agent
    from study.families.tau2.sim.customer import Customer
    from study.families.tau2.sim.direct import play

    family = Path(__file__).resolve().parents[3] / "study/families/tau2"
    task_id = "[mms_issue]bad_network_preference|break_app_both_permissions[PERSONA:Easy]"
    task = data.load_task("telecom", task_id).model_dump(mode="json")
    with SimServer(Customer(task, seed)) as sim:
        work = Tau2Work("telecom", task_id, ModelEndpoint("sim-customer", base_url=sim.base_url),
                        texts=family / "texts_template", controller=TelecomController())
        wf = Workflow.load(family / "workflows_template/telecom.yaml")
        fsm = FsmRuntime(tmp_path, {wf.name: wf}, variables=work.fsm_variables())
        fsm.enter(wf.name)
        played = play(work, make_agent("oracle", task, seed), fsm=fsm)
    assert played.outcome["reward"] == 1.0 and not played.denied
