"""The SOP 5.7 reference decision function, on the fields the tools return."""

from __future__ import annotations

from datetime import date

import pytest

from sopbench_tools.dataset import gold_labels
from sopbench_tools.reference import reference_action, reference_analysis, step2_violation_type
from sopbench_tools.tool_definitions import DATA_TOOLS
from sopbench_tools.toolbox import ToolBox


@pytest.fixture(scope="module")
def box() -> ToolBox:
    return ToolBox(sorted(gold_labels()))


@pytest.fixture(scope="module")
def fields(box) -> dict[str, dict]:
    """Each account's merged data, fetched through the tools as an agent would."""
    merged = {}
    for account in box.order:
        merged[account] = {}
        for tool in DATA_TOOLS:
            result = box.call(tool, {"account_id": account})
            assert result.ok
            merged[account].update(result.data)
    return merged


def test_reference_matches_the_gold_label_on_all_200_accounts(fields):
    gold = gold_labels()
    wrong = {a: (reference_action(fields[a]), gold[a]) for a in gold if reference_action(fields[a]) != gold[a]}
    assert wrong == {}
    assert len(gold) == 200


@pytest.mark.parametrize("day", [date(2025, 10, 3), date(2025, 12, 29), date(2026, 1, 1), date(2027, 6, 1)])
def test_evaluation_dates_from_2025_10_03_on_reproduce_gold(fields, day):
    gold = gold_labels()
    assert sum(reference_action(fields[a], day) == gold[a] for a in gold) == 200


def test_an_earlier_evaluation_date_makes_a_recent_violation_critical(fields):
    # ACC100170: Abusive Account Creation, 1 previous violation, warning issued, last violation
    # 2025-07-04. On 2025-10-02 that is 90 days ago (27 + 31 + 30 + 2), "within 90 days", so
    # CRITICAL -> Permanent Account Closure; a day later it is 91 days, so HIGH (one previous
    # violation) -> Account Closure, the gold label.
    assert reference_action(fields["ACC100170"], date(2025, 10, 2)) == "Permanent Account Closure"
    assert reference_action(fields["ACC100170"], date(2025, 10, 3)) == "Account Closure"


def test_hand_worked_no_violation_account(fields):
    # ACC100185 by hand. Abusive: address invalid +1, website unverified +1 = 2. Misleading:
    # website +1, quality Low +1 = 2 (CTR 0.399 is not > 0.4). Personal: 0 < 11 < 15 connected = 1.
    # Temporal: 0. No Violation: email not suspicious, login consistent, payment not shared,
    # orders not suspicious, no burst, complaints 0 <= 2 = 6 (off-hours 32.1 is not < 30).
    # Only No Violation meets its threshold (6) -> NONE -> No Action.
    assert reference_analysis(fields["ACC100185"]) == {
        "step1_scores": {"abusive_account_creation": 2, "misleading_ad_copy": 2, "personal_orders": 1,
                         "temporal_fraud": 0, "no_violation": 6},
        "step2_violation_type": "No Violation",
        "step3_risk_severity": "NONE",
        "step4_action": "No Action",
    }


def test_hand_worked_violation_account(fields):
    # ACC100184 by hand. Abusive: address invalid, website unverified, login inconsistent, age 6 < 30
    # = 4. Misleading: website, quality Low, orders suspicious, CTR 1.55 > 0.4, activity spike = 5.
    # Personal: orders suspicious, off-hours 22.0 < 30 = 2. Temporal: spike = 1. No Violation:
    # email fine, payment not shared, no burst, off-hours < 30, complaints 1 = 5 (< 6).
    # Highest qualifying: Misleading Ad Copy (5 > 4). Revenue 11356.69 > 5000 -> CRITICAL
    # -> Permanent Account Closure.
    assert reference_analysis(fields["ACC100184"]) == {
        "step1_scores": {"abusive_account_creation": 4, "misleading_ad_copy": 5, "personal_orders": 2,
                         "temporal_fraud": 1, "no_violation": 5},
        "step2_violation_type": "Misleading Ad Copy",
        "step3_risk_severity": "CRITICAL",
        "step4_action": "Permanent Account Closure",
    }


def scores(aac=0, mac=0, po=0, tf=0, nv=0) -> dict[str, int]:
    return {"abusive_account_creation": aac, "misleading_ad_copy": mac, "personal_orders": po,
            "temporal_fraud": tf, "no_violation": nv}


@pytest.mark.parametrize("given, expected", [
    (scores(aac=4, tf=4), "Temporal Fraud"),                  # tie: Temporal Fraud first
    (scores(aac=4, mac=4, po=4), "Abusive Account Creation"),  # tie: Abusive before Misleading
    (scores(mac=4, po=4), "Misleading Ad Copy"),              # tie: Misleading before Personal
    (scores(aac=5, tf=4), "Abusive Account Creation"),        # highest wins over priority
    (scores(po=3, aac=3, mac=3, tf=3), "Personal Orders"),    # only Personal Orders meets its threshold
    (scores(aac=6, nv=6), "Abusive Account Creation"),        # a violation wins a tie with No Violation
    (scores(mac=4, nv=6), "No Violation"),                    # No Violation competes by its count
    (scores(aac=3, mac=3, po=2, tf=3, nv=5), "Inconclusive"),  # nothing meets its threshold
])
def test_step2_highest_qualifying_score_with_the_sop_tie_order(given, expected):
    assert step2_violation_type(given) == expected


def test_reference_analysis_is_a_valid_record_analysis_call(box, fields):
    for account in box.order:
        result = box.call("record_analysis", {"account_id": account, **reference_analysis(fields[account])})
        assert result.ok, result.text
