"""The reference decision function: SOP section 5.7, STEP 1 to STEP 4, computed from the fields
the five data tools return (the typed values of ``ToolBox``).

For the simulator's oracle and for tests only. No tool the agent sees uses it, and "correct"
in the analysis always means the gold label, never this function.

Choices the SOP leaves open, made so that all 200 gold labels are reproduced (the tests check it):

* STEP 2, "highest score": each of the five scores competes once it meets its own threshold
  (4, 4, 3, 4 and 6), No Violation included, and the highest raw count wins (34 accounts have
  both a qualifying violation and a qualifying No Violation score; in all of them No Violation
  is higher and gold says No Action, while "any qualifying violation beats No Violation" would
  miss 28 labels). Ties go by the SOP's priority order Temporal Fraud > Abusive Account
  Creation > Misleading Ad Copy > Personal Orders, with No Violation last, so a violation wins
  a tie with No Violation (the data has no such tie). No qualifying score gives Inconclusive.
* STEP 3, "last_violation_date within 90 days": at most 90 days from the violation's date to
  the evaluation date (a violation dated after the evaluation date counts as within). The
  evaluation date defaults to 2026-01-01; every evaluation date from 2025-10-03 on reproduces
  the gold labels (checked day by day up to 2027), earlier ones do not. STEP 3 gives ``NONE``
  for No Violation and Inconclusive.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Mapping

#: The default evaluation date for "within 90 days" (STEP 3).
DEFAULT_EVALUATION_DATE = date(2026, 1, 1)

#: STEP 2 threshold of each score, keyed as ``record_analysis.step1_scores``.
THRESHOLDS = {
    "abusive_account_creation": 4,
    "misleading_ad_copy": 4,
    "personal_orders": 3,
    "temporal_fraud": 4,
    "no_violation": 6,
}

#: STEP 2 tie order (first wins) and the violation type each score names.
PRIORITY = ("temporal_fraud", "abusive_account_creation", "misleading_ad_copy", "personal_orders", "no_violation")
VIOLATION_NAMES = {
    "abusive_account_creation": "Abusive Account Creation",
    "misleading_ad_copy": "Misleading Ad Copy",
    "personal_orders": "Personal Orders",
    "temporal_fraud": "Temporal Fraud",
    "no_violation": "No Violation",
}

#: STEP 4 actions by severity, for the two groups of violation types.
ACTIONS_SEVERE_TYPES = {"CRITICAL": "Permanent Account Closure", "HIGH": "Account Closure",
                        "MEDIUM": "Temporary Suspension", "LOW": "Warning Issued"}
ACTIONS_PERSONAL_ORDERS = {"CRITICAL": "Account Closure", "HIGH": "Temporary Suspension",
                           "MEDIUM": "Warning Issued", "LOW": "No Action"}


def step1_scores(f: Mapping[str, Any]) -> dict[str, int]:
    """STEP 1: the five indicator counts (weighted items count 2)."""
    connected = f["connected_accounts"]
    off_hours = f["off_hours_activity_percentage"]
    young = f["account_age_days"] < 30
    return {
        "abusive_account_creation": sum((
            not f["address_validity"],
            f["email_pattern_suspicious"],
            not f["website_verified"],
            connected >= 15,
            not f["login_geographic_consistency"],
            2 * f["registration_burst_detected"],
            young,
        )),
        "misleading_ad_copy": sum((
            not f["website_verified"],
            f["referral_source_quality"] in ("Low", "Medium"),
            f["order_patterns_suspicious"],
            f["click_through_rate"] > 0.4,
            f["activity_spike_detected"],
            f["customer_complaint_count"] > 5,
        )),
        "personal_orders": sum((
            f["payment_method_shared"],
            0 < connected < 15,
            f["order_patterns_suspicious"],
            f["referral_source_quality"] == "High",
            off_hours < 30,
        )),
        "temporal_fraud": sum((
            2 * f["registration_burst_detected"],
            off_hours > 60,
            f["activity_spike_detected"],
            2 * (young and connected >= 15),
        )),
        "no_violation": sum((
            f["address_validity"],
            not f["email_pattern_suspicious"],
            f["website_verified"],
            f["login_geographic_consistency"],
            not f["payment_method_shared"],
            not f["order_patterns_suspicious"],
            not f["registration_burst_detected"],
            off_hours < 30,
            f["customer_complaint_count"] <= 2,
        )),
    }


def step2_violation_type(scores: Mapping[str, int]) -> str:
    """STEP 2: the highest score among those meeting their threshold; ties by PRIORITY."""
    qualifying = [key for key in PRIORITY if scores[key] >= THRESHOLDS[key]]
    if not qualifying:
        return "Inconclusive"
    best = max(qualifying, key=lambda key: (scores[key], -PRIORITY.index(key)))
    return VIOLATION_NAMES[best]


def _violation_date(value: str) -> date:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).date()


def step3_risk_severity(violation_type: str, f: Mapping[str, Any],
                        evaluation_date: date = DEFAULT_EVALUATION_DATE) -> str:
    """STEP 3: CRITICAL, HIGH, MEDIUM or LOW for a violation; NONE otherwise."""
    if violation_type in ("No Violation", "Inconclusive"):
        return "NONE"
    revenue = f["revenue_amount"]
    violations = f["previous_violations_count"]
    connected = f["connected_accounts"]
    last = f["last_violation_date"]
    recent = last is not None and (evaluation_date - _violation_date(last)).days <= 90
    if (revenue > 5000 or violations >= 2 or (violations >= 1 and f["warning_issued"] and recent)
            or f["customer_complaint_count"] > 10):
        return "CRITICAL"
    if 1000 < revenue <= 5000 or violations == 1 or connected >= 25 or f["refund_rate_percentage"] > 40:
        return "HIGH"
    if 100 < revenue <= 1000 or f["account_rehabilitation_status"] == "Probation" or 15 <= connected < 25:
        return "MEDIUM"
    return "LOW"


def step4_action(violation_type: str, severity: str, f: Mapping[str, Any]) -> str:
    """STEP 4: the enforcement action for the violation type and severity."""
    if violation_type == "No Violation":
        return "No Action"
    if violation_type == "Inconclusive":
        return "Manual Review Required" if f["previous_violations_count"] > 0 else "Inconclusive"
    if violation_type == "Personal Orders":
        return ACTIONS_PERSONAL_ORDERS[severity]
    return ACTIONS_SEVERE_TYPES[severity]


def reference_analysis(fields: Mapping[str, Any], evaluation_date: date = DEFAULT_EVALUATION_DATE) -> dict[str, Any]:
    """The four steps' results, keyed as the arguments of ``record_analysis`` (without
    ``account_id``). ``fields``: the merged results of the five data tools for one account."""
    scores = step1_scores(fields)
    violation_type = step2_violation_type(scores)
    severity = step3_risk_severity(violation_type, fields, evaluation_date)
    return {
        "step1_scores": scores,
        "step2_violation_type": violation_type,
        "step3_risk_severity": severity,
        "step4_action": step4_action(violation_type, severity, fields),
    }


def reference_action(fields: Mapping[str, Any], evaluation_date: date = DEFAULT_EVALUATION_DATE) -> str:
    """The SOP 5.7 enforcement action for one account's merged data-tool fields."""
    return reference_analysis(fields, evaluation_date)["step4_action"]
