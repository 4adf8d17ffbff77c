"""The study's guards (paper, Eqs. 4-6) on the paper's cases, through the real runtime and workflow.

Each case is a history of tool calls and the expected verdict of one transition; the refusal
messages must name what is missing (data tools) or who interleaved (accounts).
"""

from __future__ import annotations

import pytest

from fsm_helpers import decide, investigate, make_runtime, move, observe_all, record
from sopbench_tools.tool_definitions import DATA_TOOLS

D1, D2, D3, D4, D5 = DATA_TOOLS

INVESTIGATE_TO_DECIDE = [
    # (case, history, ok, words the message must contain, words it must not contain)
    ("one account, fully and exclusively", investigate("A1") + [record("A1")], True, ["A1"], []),
    ("no record yet", investigate("A1"), False, ["No record_analysis yet"], []),
    ("missing data: two tools never called", investigate("A1", [D1, D2, D3]) + [record("A1")], False, ["Missing data for account A1", D4, D5], [D1 + ",", D3 + ","]),
    ("missing data: failed call does not count", investigate("A1", [D1, D2, D3, D4]) + [(D5, {"account_id": "A1"}, False), record("A1")], False, [D5], [D4]),
    ("missing data: call after the record does not count", investigate("A1", [D1, D2, D3, D4]) + [record("A1"), (D5, {"account_id": "A1"}, True)], False, [D5], []),
    ("data of another account does not count", investigate("A1", [D1, D2, D3, D4]) + [(D5, {"account_id": "A2"}, True), record("A1")], False, [D5], []),
    ("interleaving: another account between the retrievals", investigate("A1", [D1]) + investigate("A2", [D1]) + investigate("A1", [D2, D3, D4, D5]) + [record("A1")], False, ["Interleaved accounts", "A2", "A1"], []),
    ("interleaving: another account after the record", investigate("A1") + [record("A1")] + investigate("A3", [D2]), False, ["Interleaved accounts", "A3"], []),
    ("batching: several accounts retrieved, then the first recorded", investigate("A1") + investigate("A2") + investigate("A3") + [record("A1")], False, ["A2, A3"], []),
    ("batching: the last of the batch passes (nothing after its first retrieval)", investigate("A1") + investigate("A2") + [record("A2")], True, ["A2"], []),
    ("re-investigating cleanly after interleaving passes", investigate("A1", [D1]) + investigate("A2", [D1]) + investigate("A1") + [record("A1")], True, ["A1"], []),
    ("only the last record counts", investigate("A1") + [record("A1"), record("A2")], False, ["Missing data for account A2", D1, D5], []),
    ("a failed record does not count", investigate("A1") + [record("A1"), ("record_analysis", {"account_id": "A2"}, False)], True, ["A1"], []),
    ("already decided", investigate("A1") + [record("A1"), decide("A1")] + investigate("A1") + [record("A1")], False, ["A1", "already has a decision"], []),
]


@pytest.mark.parametrize("case,history,ok,must,must_not", INVESTIGATE_TO_DECIDE, ids=[c[0] for c in INVESTIGATE_TO_DECIDE])
def test_investigate_to_decide_is_equation_4(tmp_path, main_wf, case, history, ok, must, must_not):
    rt = make_runtime(tmp_path, main_wf, ["A1", "A2", "A3"])
    observe_all(rt, history)
    result = move(rt, "S_decide")
    assert result.ok is ok, result.reason
    assert rt.state == ("S_decide" if ok else "S_investigate")
    for word in must:
        assert word in result.reason
    for word in must_not:
        assert word not in result.reason
    if ok:
        assert rt.frames()[-1]["variables"]["account"] == must[0]


DECIDE_TO_INVESTIGATE = [
    ("no decision yet", [], False, ["A1", "submit_decision"]),
    ("decision for another account only", [decide("A2")], False, ["A1"]),
    ("failed decision does not count", [("submit_decision", {"account_id": "A1", "action": "x"}, False)], False, ["A1"]),
    ("decision for the recorded account", [decide("A1")], True, ["A1"]),
    ("decision for another account, then the recorded one", [decide("A2"), decide("A1")], True, ["A1"]),
]


@pytest.mark.parametrize("case,after,ok,must", DECIDE_TO_INVESTIGATE, ids=[c[0] for c in DECIDE_TO_INVESTIGATE])
def test_decide_to_investigate_is_equation_5(tmp_path, main_wf, case, after, ok, must):
    rt = make_runtime(tmp_path, main_wf, ["A1", "A2"])
    observe_all(rt, investigate("A1") + [record("A1")])
    assert move(rt, "S_decide").ok
    observe_all(rt, after)
    result = move(rt, "S_investigate")
    assert result.ok is ok, result.reason
    for word in must:
        assert word in result.reason
    assert rt.state == ("S_investigate" if ok else "S_decide")


def _process(rt, account):
    observe_all(rt, investigate(account) + [record(account)])
    assert move(rt, "S_decide").ok
    observe_all(rt, [decide(account)])
    assert move(rt, "S_investigate").ok


def test_batch_complete_is_equation_6_and_names_what_is_left(tmp_path, main_wf):
    batch = [f"A{i}" for i in range(1, 9)]
    rt = make_runtime(tmp_path, main_wf, batch)
    _process(rt, "A1")
    result = move(rt, "S_done")
    assert not result.ok
    assert "7 of 8 accounts have no decision" in result.reason
    assert "A2, A3, A4, A5, A6, ..." in result.reason and "Next: A2" in result.reason
    # decisions out of order still complete the batch; the guard reads only who was decided
    for account in reversed(batch[1:]):
        _process(rt, account)
    result = move(rt, "S_done")
    assert result.ok, result.reason
    assert rt.state == "S_done"
    assert not rt.stop_gate().allowed  # the exit state is not a pause state ...
    rt.exit()  # ... the agent leaves the workflow, then may end the turn
    assert rt.state is None and rt.stop_gate().allowed


def test_batch_not_complete_when_the_variable_is_missing(tmp_path, main_wf):
    from study.fsm import FsmRuntime

    rt = FsmRuntime(tmp_path / "frames", {main_wf.name: main_wf})  # no batch given
    rt.enter(main_wf.name)
    result = move(rt, "S_done")
    assert not result.ok and "variable 'batch'" in result.reason


def test_static_permissions_leave_the_other_account_route_open(tmp_path, main_wf, bound_wf):
    """The preregistered workflow admits submit_decision for any account in S_decide (as in the
    paper); the exploratory bound workflow admits it only for the account of the last record."""
    for wf, other_allowed in ((main_wf, True), (bound_wf, False)):
        rt = make_runtime(tmp_path / wf.name, wf, ["A1", "A2"])
        assert not rt.gate("submit_decision", {"account_id": "A1", "action": "No Action"}).allowed  # S_investigate
        observe_all(rt, investigate("A1") + [record("A1")])
        assert move(rt, "S_decide").ok
        assert rt.gate("submit_decision", {"account_id": "A1", "action": "No Action"}).allowed
        other = rt.gate("submit_decision", {"account_id": "A2", "action": "No Action"})
        assert other.allowed is other_allowed
        if not other_allowed:
            assert "'A1'" in other.reason and "'A2'" in other.reason and "account" in other.reason
        assert not rt.gate("investigate_account", {"account_id": "A2"}).allowed  # data tools closed in S_decide


def test_stop_only_permits_everything_and_blocks_the_stop_until_done(tmp_path, stop_only_wf):
    rt = make_runtime(tmp_path, stop_only_wf, ["A1"])
    for tool in stop_only_wf.tools:
        assert rt.gate(tool, {"account_id": "A1"}).allowed
    blocked = rt.stop_gate()
    assert not blocked.allowed and "S_work" in blocked.reason and "S_done" in blocked.reason
    assert not move(rt, "S_done").ok
    observe_all(rt, [decide("A1")])  # no procedure is enforced in Stop-only
    assert move(rt, "S_done").ok
    rt.exit()
    assert rt.stop_gate().allowed
