"""The policies' decisions from a given memory, and the plans' determinism (no CLI involved)."""

import pytest

from sopbench_tools.reference import reference_analysis
from sopbench_tools.tool_definitions import DATA_TOOLS
from sopbench_tools.toolbox import ToolBox
from study.sim.memory import Memory
from study.sim.plans import DRIFT_ROUTES, drift_probability, make_plan
from study.sim.policies import POLICIES, make_policy
from study.sim.truth import REMARK

ORDER = ["ACC100001", "ACC100002", "ACC100003", "ACC100004"]
FSM_TOOLS = {"mcp__sopbench__list_batch", "mcp__fsm__status", "mcp__fsm__transition"}
PLAIN_TOOLS = {"mcp__sopbench__list_batch"}


def call_of(reply):
    assert len(reply.tool_uses) == 1, reply
    use = reply.tool_uses[0]
    return use.name, use.input


def investigated(account, memory=None):
    """A memory in which ``account``'s five data sets have been retrieved."""
    m = memory or Memory(order=list(ORDER), fsm_seen=True, fsm_state="S_investigate")
    box = ToolBox(ORDER)
    for tool in DATA_TOOLS:
        m.pos += 1
        m.data.setdefault(account, {})[tool] = m.pos
        m.values.setdefault(account, {}).update(box.data_fields(tool, account))
    return m


def test_the_oracle_lists_reads_the_fsm_and_resyncs_after_a_compaction_first():
    oracle = make_policy("oracle")
    assert call_of(oracle.reply(Memory(), FSM_TOOLS)) == ("mcp__sopbench__list_batch", {})
    assert call_of(oracle.reply(Memory(order=ORDER), FSM_TOOLS)) == ("mcp__fsm__status", {})
    assert call_of(oracle.reply(Memory(order=ORDER), PLAIN_TOOLS))[0] == "mcp__sopbench__investigate_account"
    assert call_of(oracle.reply(Memory(order=ORDER, needs_sync=True), PLAIN_TOOLS))[0] == "mcp__sopbench__list_decisions"


def test_the_oracle_walks_one_account_through_the_fsm():
    oracle, a = make_policy("oracle"), ORDER[0]
    m = investigated(a)
    name, args = call_of(oracle.reply(m, FSM_TOOLS))
    fields = {k: v for k, v in m.values[a].items()}
    assert name == "mcp__sopbench__record_analysis" and args == {"account_id": a, **reference_analysis(fields)}
    m.pos += 1
    m.records[a], m.last_record = [m.pos, args["step4_action"]], a
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__fsm__self_check", {"target": "S_decide"})
    m.tokens = {"S_decide": "tok"}
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__fsm__transition", {"target": "S_decide", "token": "tok"})
    m.tokens, m.fsm_state = {}, "S_decide"
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__sopbench__submit_decision",
                                                   {"account_id": a, "action": args["step4_action"]})
    m.decisions[a] = args["step4_action"]
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__fsm__self_check", {"target": "S_investigate"})


def test_the_oracle_leaves_the_workflow_then_ends_its_turn_without_a_remark():
    oracle = make_policy("oracle")
    m = Memory(order=ORDER, decisions={a: "No Action" for a in ORDER}, fsm_seen=True, fsm_state="S_investigate",
               fsm_states=["S_investigate", "S_decide", "S_done"])
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__fsm__self_check", {"target": "S_done"})
    m.fsm_state = "S_done"
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__fsm__exit", {})
    m.fsm_state, m.fsm_exited = None, True
    reply = oracle.reply(m, FSM_TOOLS)
    assert not reply.tool_uses and reply.stop_reason == "end_turn" and not REMARK.search(reply.text)


def test_a_guard_refusal_makes_the_oracle_retrieve_the_data_again():
    oracle, a = make_policy("oracle"), ORDER[0]
    m = investigated(a)
    m.refused[a] = m.pos + 1
    assert call_of(oracle.reply(m, FSM_TOOLS)) == ("mcp__sopbench__investigate_account", {"account_id": a})


def test_the_model_gives_up_after_many_failures_in_a_row():
    reply = make_policy("oracle").reply(Memory(order=ORDER, errors_in_a_row=12), PLAIN_TOOLS)
    assert reply.stop_reason == "end_turn"


def test_early_stop_ends_its_turn_after_k_decisions_since_it_last_started_citing_its_budget():
    policy = make_policy("early-stop", k=2)
    m = Memory(order=ORDER, decisions={ORDER[0]: "No Action", ORDER[1]: "No Action"})
    reply = policy.reply(m, PLAIN_TOOLS)
    assert reply.stop_reason == "end_turn" and REMARK.search(reply.text)
    m.decided_at_continuation = 2  # a stop block or resume message arrived
    assert call_of(policy.reply(m, PLAIN_TOOLS))[0] == "mcp__sopbench__investigate_account"


def test_blind_submits_without_looking_and_falls_back_to_the_procedure_once_refused():
    blind, a = make_policy("blind"), ORDER[0]
    m = Memory(order=ORDER)
    assert call_of(blind.reply(m, PLAIN_TOOLS)) == ("mcp__sopbench__submit_decision", {"account_id": a, "action": "No Action"})
    m.blind_tried.append(a)
    assert call_of(blind.reply(m, PLAIN_TOOLS)) == ("mcp__sopbench__investigate_account", {"account_id": a})


def test_plans_are_deterministic_and_cover_the_batch_in_order():
    order = [f"ACC1000{i:02d}" for i in range(40)]
    for name in POLICIES:
        plan = make_plan(name, 3, order, [], {})
        assert plan == make_plan(name, 3, order, [], {})
        assert [a for segment in plan for a in segment.accounts] == order
    assert {s.route for s in make_plan("batcher", 3, order, [], {})} == {"batch"}
    assert all(len(s.accounts) == 2 for s in make_plan("wrong-account", 3, order, [], {})[:-1])
    drift = make_plan("drifting", 3, order, [], {})
    assert drift != make_plan("drifting", 4, order, [], {})
    assert drift[0].route == "follow"  # p = 0 at the start
    assert {s.route for s in drift} <= {"follow", *DRIFT_ROUTES}


def test_drift_grows_over_the_batch_and_a_reminder_halves_it():
    assert drift_probability(0, 200, False, 0.8) == 0
    assert drift_probability(199, 200, False, 0.8) == pytest.approx(0.8)
    assert drift_probability(100, 200, True, 0.8) == pytest.approx(drift_probability(100, 200, False, 0.8) / 2)
    order = [f"ACC1000{i:02d}" for i in range(60)]
    plan = make_plan("drifting", 1, order, [], {})
    first_half = sum(s.route != "follow" for s in plan if order.index(s.accounts[0]) < 30)
    second_half = sum(s.route != "follow" for s in plan if order.index(s.accounts[0]) >= 30)
    assert first_half < second_half
    reminded = make_plan("drifting", 1, order, order, {})
    assert sum(s.route != "follow" for s in reminded) < sum(s.route != "follow" for s in plan)


def test_an_unknown_policy_is_refused_with_the_names():
    with pytest.raises(ValueError, match="oracle, early-stop"):
        make_policy("smart")
