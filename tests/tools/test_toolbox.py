"""ToolBox in process: state files, recovery after a crash, and argument edge cases."""

from __future__ import annotations

import json

import pytest

from sopbench_tools.orders import order_for_seed
from sopbench_tools.state_log import ToolStateError
from sopbench_tools.toolbox import ToolBox

SCORES = {"abusive_account_creation": 2, "misleading_ad_copy": 2, "personal_orders": 1, "temporal_fraud": 0,
          "no_violation": 6}


def record_args(account: str, **changes) -> dict:
    args = {"account_id": account, "step1_scores": dict(SCORES), "step2_violation_type": "No Violation",
            "step3_risk_severity": "NONE", "step4_action": "No Action"}
    args.update(changes)
    return args


@pytest.fixture
def order() -> list[str]:
    return order_for_seed(2)[:4]


def test_decisions_and_records_are_on_disk_when_the_call_returns(tmp_path, order):
    box = ToolBox(order, tmp_path)
    assert box.call("record_analysis", record_args(order[0])).ok
    assert box.call("submit_decision", {"account_id": order[0], "action": "No Action"}).ok
    decisions = [json.loads(line) for line in (tmp_path / "decisions.jsonl").read_text().splitlines()]
    records = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    assert [(d["account_id"], d["action"]) for d in decisions] == [(order[0], "No Action")]
    assert [(r["account_id"], r["step1_scores"]) for r in records] == [(order[0], SCORES)]
    assert json.loads((tmp_path / "batch.json").read_text())["order"] == order


def test_a_torn_last_line_is_dropped_and_earlier_decisions_survive(tmp_path, order):
    box = ToolBox(order, tmp_path)
    assert box.call("submit_decision", {"account_id": order[0], "action": "No Action"}).ok
    with open(tmp_path / "decisions.jsonl", "a") as f:  # a crash in the middle of the next write
        f.write('{"n": 2, "account_id": "%s", "act' % order[1])
    reopened = ToolBox(order, tmp_path)
    assert reopened.decisions == {order[0]: "No Action"}
    # the torn (never confirmed) decision can be made now, and the file is whole again
    assert reopened.call("submit_decision", {"account_id": order[1], "action": "Inconclusive"}).ok
    assert ToolBox(order, tmp_path).decisions == {order[0]: "No Action", order[1]: "Inconclusive"}


def test_damage_before_the_last_line_stops_with_the_file_and_line(tmp_path, order):
    box = ToolBox(order, tmp_path)
    box.call("submit_decision", {"account_id": order[0], "action": "No Action"})
    box.call("submit_decision", {"account_id": order[1], "action": "No Action"})
    lines = (tmp_path / "decisions.jsonl").read_text().splitlines()
    (tmp_path / "decisions.jsonl").write_text("garbage\n" + lines[1] + "\n")
    with pytest.raises(ToolStateError, match=r"decisions.jsonl, line 1"):
        ToolBox(order, tmp_path)


def test_records_may_be_repeated_and_the_listing_tracks_progress(order):
    box = ToolBox(order)
    assert box.call("record_analysis", record_args(order[0])).ok
    assert box.call("record_analysis", record_args(order[0], step4_action="Inconclusive",
                                                    step2_violation_type="Inconclusive")).ok
    assert [r["step4_action"] for r in box.records] == ["No Action", "Inconclusive"]
    assert box.next_undecided() == order[0] and box.accounts_left == 4
    box.call("submit_decision", {"account_id": order[0], "action": "Inconclusive"})
    assert box.next_undecided() == order[1] and box.accounts_left == 3
    listing = box.call("list_batch", {}).data
    assert listing == {"accounts": order, "count": 4, "decided": 1}


@pytest.mark.parametrize("value, ok", [(3, True), (3.0, True), (3.5, False), (True, False), ("3", False), (-1, False)])
def test_step1_scores_must_be_integers_at_least_zero(order, value, ok):
    box = ToolBox(order)
    result = box.call("record_analysis", record_args(order[0], step1_scores={**SCORES, "temporal_fraud": value}))
    assert result.ok is ok, result.text
    assert len(box.records) == (1 if ok else 0)


def test_unknown_extra_score_key_is_named(order):
    result = ToolBox(order).call("record_analysis", record_args(order[0], step1_scores={**SCORES, "fraud": 1}))
    assert not result.ok and "unknown key(s) fraud" in result.text


def test_arguments_that_are_not_an_object_are_refused(order):
    result = ToolBox(order).call("investigate_account", ["ACC100185"])
    assert not result.ok and "must be a JSON object, got array" in result.text


@pytest.mark.parametrize("bad_order, words", [
    ([], "empty"),
    (["ACC100000", "ACC1"], "unknown account ids"),
    (["ACC100000", "ACC100000"], "more than once"),
])
def test_a_bad_batch_is_refused(bad_order, words):
    with pytest.raises(ValueError, match=words):
        ToolBox(bad_order)


def test_accounts_option_cuts_the_seed_order_and_is_checked():
    assert ToolBox.for_seed(2, 7).order == order_for_seed(2)[:7]
    with pytest.raises(ValueError, match="between 1 and 200"):
        ToolBox.for_seed(2, 0)
