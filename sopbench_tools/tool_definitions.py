"""The tools' names, argument vocabularies, descriptions, input schemas and usage texts.

What every tool is, for ``ToolBox`` (``toolbox.py``) to run and ``argument_checks.py`` to validate
against. ``docs/contracts.md`` ("Tools the agent sees") fixes the names, arguments and result format.

The six SOP-Bench tools keep SOP-Bench's names, descriptions and input schemas (read from the
vendored ``toolspecs.json``). The fields each data tool returns follow SOP-Bench's own
implementation (``referral_abuse_detection_v2/tools.py`` in ``amazon-science/SOP-Bench``, commit
156e9ecd), column for column and with its types:

============================  ==========================================================
tool                          fields (besides ``account_id``)
============================  ==========================================================
investigate_account           user_email, registration_timestamp, address_validity (bool),
                              email_pattern_suspicious (bool), website_verified (bool),
                              business_description, account_status, connected_accounts
                              (int), login_geographic_consistency (bool), account_age_days
                              (int)
analyze_traffic_patterns      revenue_amount (float), click_through_rate (float),
                              page_views (int), device_distribution,
                              referral_source_quality, payment_method_shared (bool),
                              order_patterns_suspicious (bool)
analyze_temporal_patterns     registration_burst_detected (bool),
                              off_hours_activity_percentage (float),
                              activity_spike_detected (bool)
get_violation_history         previous_violations_count (int), last_violation_date
                              (string, null when empty), warning_issued (bool),
                              account_rehabilitation_status
get_financial_impact          total_lifetime_revenue (float), refund_rate_percentage
                              (float), customer_complaint_count (int)
determine_enforcement_action  SOP-Bench's fixed note (never a decision)
============================  ==========================================================

One deliberate difference: SOP-Bench reads the CSV with pandas, which turns the string
``None`` of ``account_rehabilitation_status`` into NaN; here it stays the string ``"None"``,
the value the SOP names ("Active/Probation/None"). Values come from
``test_set_without_outputs.csv``, so no gold label can reach a result.

Our own tools: ``record_analysis`` (the STEP 1–4 record), ``submit_decision`` (the first
successful one per account is the decision) and the read-only ``list_batch`` and
``list_decisions``. Every argument is validated; a bad call returns an error result
``Error: <what was wrong>. <the valid form>`` and records nothing.
"""

from __future__ import annotations

from typing import Any, Callable

from .dataset import ACTIONS

DATA_TOOLS = (
    "investigate_account",
    "analyze_traffic_patterns",
    "analyze_temporal_patterns",
    "get_violation_history",
    "get_financial_impact",
)
LOOKUP_TOOLS = ("determine_enforcement_action",)
RECORD_TOOL = "record_analysis"
DECISION_TOOL = "submit_decision"
LISTING_TOOLS = ("list_batch", "list_decisions")
ALL_TOOLS = DATA_TOOLS + LOOKUP_TOOLS + (RECORD_TOOL, DECISION_TOOL) + LISTING_TOOLS

#: STEP 1 score names (keys of ``record_analysis.step1_scores``).
SCORE_KEYS = ("abusive_account_creation", "misleading_ad_copy", "personal_orders", "temporal_fraud", "no_violation")
#: STEP 2 results.
VIOLATION_TYPES = (
    "Abusive Account Creation",
    "Misleading Ad Copy",
    "Personal Orders",
    "Temporal Fraud",
    "No Violation",
    "Inconclusive",
)
#: STEP 3 results (``NONE`` for No Violation and Inconclusive).
SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE")


def _csv_bool(text: str) -> bool:
    if text not in ("True", "False"):
        raise ValueError(f"not a CSV boolean: {text!r}")
    return text == "True"


#: Each data tool's fields and their type, as in SOP-Bench's tools.py (see module docstring).
DATA_FIELDS: dict[str, tuple[tuple[str, Callable[[str], Any]], ...]] = {
    "investigate_account": (
        ("user_email", str),
        ("registration_timestamp", str),
        ("address_validity", _csv_bool),
        ("email_pattern_suspicious", _csv_bool),
        ("website_verified", _csv_bool),
        ("business_description", str),
        ("account_status", str),
        ("connected_accounts", int),
        ("login_geographic_consistency", _csv_bool),
        ("account_age_days", int),
    ),
    "analyze_traffic_patterns": (
        ("revenue_amount", float),
        ("click_through_rate", float),
        ("page_views", int),
        ("device_distribution", str),
        ("referral_source_quality", str),
        ("payment_method_shared", _csv_bool),
        ("order_patterns_suspicious", _csv_bool),
    ),
    "analyze_temporal_patterns": (
        ("registration_burst_detected", _csv_bool),
        ("off_hours_activity_percentage", float),
        ("activity_spike_detected", _csv_bool),
    ),
    "get_violation_history": (
        ("previous_violations_count", int),
        ("last_violation_date", str),
        ("warning_issued", _csv_bool),
        ("account_rehabilitation_status", str),
    ),
    "get_financial_impact": (
        ("total_lifetime_revenue", float),
        ("refund_rate_percentage", float),
        ("customer_complaint_count", int),
    ),
}

#: What SOP-Bench's determine_enforcement_action returns, for every account.
ENFORCEMENT_NOTE = {
    "message": "Enforcement action determined successfully",
    "note": "Agent must calculate violation scores and risk severity to determine final action",
}

_ACCOUNT_SCHEMA = {"type": "string", "description": "Unique identifier for the account"}
_NO_ARGS_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}

#: Descriptions and input schemas of our own tools (the SOP-Bench ones come from toolspecs.json).
OWN_TOOL_SPECS: dict[str, dict[str, Any]] = {
    RECORD_TOOL: {
        "description": (
            "Records your STEP 1-4 analysis of one account (SOP section 5.7): the five STEP 1 "
            "scores, the STEP 2 violation type, the STEP 3 risk severity (NONE for No Violation "
            "and Inconclusive) and the STEP 4 enforcement action."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "account_id": _ACCOUNT_SCHEMA,
                "step1_scores": {
                    "type": "object",
                    "description": "STEP 1: the five violation indicator scores",
                    "properties": {key: {"type": "integer", "minimum": 0} for key in SCORE_KEYS},
                    "required": list(SCORE_KEYS),
                    "additionalProperties": False,
                },
                "step2_violation_type": {"type": "string", "enum": list(VIOLATION_TYPES)},
                "step3_risk_severity": {"type": "string", "enum": list(SEVERITIES)},
                "step4_action": {"type": "string", "enum": list(ACTIONS)},
            },
            "required": ["account_id", "step1_scores", "step2_violation_type", "step3_risk_severity", "step4_action"],
            "additionalProperties": False,
        },
    },
    DECISION_TOOL: {
        "description": (
            "Submits the final enforcement decision for one account: one of the seven actions "
            "of SOP section 6.1. The first decision submitted for an account is final and "
            "cannot be changed."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "account_id": _ACCOUNT_SCHEMA,
                "action": {"type": "string", "enum": list(ACTIONS), "description": "The enforcement action"},
            },
            "required": ["account_id", "action"],
            "additionalProperties": False,
        },
    },
    "list_batch": {
        "description": "Lists the accounts of this batch in processing order, with how many have been decided.",
        "inputSchema": _NO_ARGS_SCHEMA,
    },
    "list_decisions": {
        "description": "Lists the decisions submitted so far, in submission order.",
        "inputSchema": _NO_ARGS_SCHEMA,
    },
}

_EXAMPLE_ID = "ACC100042"
_EXAMPLE_SCORES = ", ".join(f'"{key}": 0' for key in SCORE_KEYS)
#: The valid form of each tool's call, quoted in its error messages.
USAGE = {
    **{name: f'Call {name} with {{"account_id": "<an account id of this batch, e.g. {_EXAMPLE_ID}>"}}.'
       for name in DATA_TOOLS + LOOKUP_TOOLS},
    RECORD_TOOL: (
        f'Call record_analysis with {{"account_id": "<account id>", "step1_scores": {{{_EXAMPLE_SCORES}}} '
        "(integers >= 0), \"step2_violation_type\": one of " + ", ".join(VIOLATION_TYPES)
        + ', "step3_risk_severity": one of ' + ", ".join(SEVERITIES)
        + ', "step4_action": one of the seven actions (' + ", ".join(ACTIONS) + ")}."
    ),
    DECISION_TOOL: (
        'Call submit_decision with {"account_id": "<account id>", "action": one of '
        + ", ".join(f'"{a}"' for a in ACTIONS) + "}."
    ),
    "list_batch": "Call list_batch with no arguments ({}).",
    "list_decisions": "Call list_decisions with no arguments ({}).",
}

#: Each tool's arguments and the kind of value each must hold.
ARGUMENTS: dict[str, tuple[tuple[str, str], ...]] = {
    **{name: (("account_id", "account"),) for name in DATA_TOOLS + LOOKUP_TOOLS},
    RECORD_TOOL: (
        ("account_id", "account"),
        ("step1_scores", "scores"),
        ("step2_violation_type", "violation_type"),
        ("step3_risk_severity", "severity"),
        ("step4_action", "action"),
    ),
    DECISION_TOOL: (("account_id", "account"), ("action", "action")),
    "list_batch": (),
    "list_decisions": (),
}
