"""The tool server over stdio, driven by the official MCP client exactly as an agent's client would.

Every test spawns the real ``python -m sopbench_tools`` and talks MCP to it.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sopbench_tools.dataset import ACTIONS, TASK_DIR
from sopbench_tools.orders import order_for_seed

# The fields each data tool returns, copied from SOP-Bench's own implementation
# (amazon-science/SOP-Bench, src/amazon_sop_bench/benchmarks/data/referral_abuse_detection_v2/tools.py).
SOPBENCH_FIELDS = {
    "investigate_account": [
        "account_id", "user_email", "registration_timestamp", "address_validity", "email_pattern_suspicious",
        "website_verified", "business_description", "account_status", "connected_accounts",
        "login_geographic_consistency", "account_age_days",
    ],
    "analyze_traffic_patterns": [
        "account_id", "revenue_amount", "click_through_rate", "page_views", "device_distribution",
        "referral_source_quality", "payment_method_shared", "order_patterns_suspicious",
    ],
    "analyze_temporal_patterns": [
        "account_id", "registration_burst_detected", "off_hours_activity_percentage", "activity_spike_detected",
    ],
    "get_violation_history": [
        "account_id", "previous_violations_count", "last_violation_date", "warning_issued",
        "account_rehabilitation_status",
    ],
    "get_financial_impact": ["account_id", "total_lifetime_revenue", "refund_rate_percentage", "customer_complaint_count"],
}
SOPBENCH_NOTE = {
    "message": "Enforcement action determined successfully",
    "note": "Agent must calculate violation scores and risk severity to determine final action",
}


def csv_rows() -> dict[str, dict[str, str]]:
    with open(TASK_DIR / "test_set_without_outputs.csv", newline="", encoding="utf-8") as f:
        return {row["account_id"]: row for row in csv.DictReader(f)}


def matches_csv(value, text: str) -> bool:
    """A typed tool value equals the CSV text: booleans, numbers, strings; null for empty."""
    if text == "":
        return value is None
    if text in ("True", "False"):
        return value is (text == "True")
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value == int(text)
    if isinstance(value, float):
        return value == float(text)
    return value == text


@pytest.mark.parametrize("entry", [("-m", "sopbench_tools"), ("-m", "study.cli", "tools", "serve")],
                         ids=["python -m sopbench_tools", "study tools serve"])
def test_tool_list_and_schemas(run_server, entry):
    async def scenario(c):
        return await c.list_tools()

    tools = {t.name: t for t in run_server(scenario, "--seed", "2", entry=entry)}
    assert list(tools) == [
        "investigate_account", "analyze_traffic_patterns", "analyze_temporal_patterns", "get_violation_history",
        "get_financial_impact", "determine_enforcement_action", "record_analysis", "submit_decision",
        "list_batch", "list_decisions",
    ]
    # SOP-Bench's six tools: its own descriptions and input schemas, unchanged.
    specs = json.loads((TASK_DIR / "toolspecs.json").read_text())
    for spec in (s["toolSpec"] for s in specs):
        assert tools[spec["name"]].description == spec["description"]
        assert tools[spec["name"]].input_schema == spec["inputSchema"]["json"]
    record = tools["record_analysis"].input_schema
    assert set(record["required"]) == {
        "account_id", "step1_scores", "step2_violation_type", "step3_risk_severity", "step4_action"}
    assert set(record["properties"]["step1_scores"]["required"]) == {
        "abusive_account_creation", "misleading_ad_copy", "personal_orders", "temporal_fraud", "no_violation"}
    assert record["properties"]["step4_action"]["enum"] == list(ACTIONS)
    decision = tools["submit_decision"].input_schema
    assert decision["required"] == ["account_id", "action"]
    assert decision["properties"]["action"]["enum"] == list(ACTIONS)
    assert tools["list_batch"].input_schema.get("required", []) == []
    assert tools["list_decisions"].input_schema.get("required", []) == []


def test_data_tools_return_the_csv_row_with_sopbench_fields_and_no_gold(run_server):
    rows = csv_rows()

    async def scenario(c):
        return {(tool, a): await c.data(tool, {"account_id": a}) for a in rows for tool in SOPBENCH_FIELDS}

    results = run_server(scenario, "--seed", "2")
    served_columns = set()
    for (tool, account), fields in results.items():
        assert list(fields) == SOPBENCH_FIELDS[tool]
        assert fields["account_id"] == account
        for column, value in fields.items():
            assert matches_csv(value, rows[account][column]), (tool, account, column, value)
        served_columns |= set(fields)
    # Every input column is served by some tool, and nothing else (the gold column is not in this CSV).
    assert served_columns == set(next(iter(rows.values())))
    assert "final_decision" not in served_columns
    # Spot-check typing on accounts with a violation date and a Probation status.
    assert results[("get_violation_history", "ACC100170")]["last_violation_date"] == "2025-07-04T12:31:45Z"
    assert results[("get_violation_history", "ACC100000")]["last_violation_date"] is None
    assert results[("analyze_traffic_patterns", "ACC100184")]["revenue_amount"] == pytest.approx(11356.685249227869)
    assert results[("investigate_account", "ACC100184")]["address_validity"] is False


def test_determine_enforcement_action_returns_the_fixed_note_never_a_decision(run_server):
    accounts = order_for_seed(2)[:10]

    async def scenario(c):
        return [await c.data("determine_enforcement_action", {"account_id": a}) for a in accounts]

    for note in run_server(scenario, "--seed", "2"):
        assert note == SOPBENCH_NOTE
        assert not any(action in json.dumps(note) for action in ACTIONS)


def test_second_decision_is_an_error_and_the_first_stands(run_server):
    first = order_for_seed(2)[0]

    async def scenario(c):
        one = await c.call("submit_decision", {"account_id": first, "action": "No Action"})
        two = await c.call("submit_decision", {"account_id": first, "action": "Account Closure"})
        listed = await c.data("list_decisions", {})
        return one, two, listed

    one, two, listed = run_server(scenario, "--seed", "2")
    assert one[0] and json.loads(one[1])["action"] == "No Action"
    assert not two[0]
    assert two[1].startswith("Error: ") and first in two[1] and "already has a decision" in two[1]
    assert listed == {"decisions": [{"account_id": first, "action": "No Action"}], "count": 1}


# (tool, arguments, words the error must contain): every kind of bad input.
BAD_CALLS = [
    ("investigate_account", {}, "missing argument 'account_id'"),
    ("investigate_account", {"account_id": "ACC100185", "verbose": True}, "unexpected argument 'verbose'"),
    ("investigate_account", {"account_id": 100185}, "must be a string, got integer"),
    ("get_financial_impact", {"account_id": ["ACC100185"]}, "must be a string, got array"),
    ("analyze_traffic_patterns", {"account_id": ""}, "argument 'account_id' is empty"),
    ("analyze_traffic_patterns", {"account_id": "   "}, "argument 'account_id' is empty"),
    ("analyze_temporal_patterns", {"account_id": "ACC999999"}, "unknown account id 'ACC999999'"),
    ("get_violation_history", {"account_id": "ACC100000"}, "not in this batch"),
    ("determine_enforcement_action", {}, "missing argument 'account_id'"),
    ("submit_decision", {"account_id": "ACC100185"}, "missing argument 'action'"),
    ("submit_decision", {"account_id": "ACC100185", "action": "Ban"}, "not one of the seven enforcement actions"),
    ("submit_decision", {"account_id": "ACC100185", "action": "no action"}, "not one of the seven"),
    ("submit_decision", {"account_id": "ACC100185", "action": None}, "must be a string, got null"),
    ("submit_decision", {"account_id": "ACC100185", "action": "No Action", "reason": "x"}, "unexpected argument"),
    ("record_analysis", {"account_id": "ACC100185"}, "missing argument 'step1_scores'"),
    ("record_analysis", {"account_id": "ACC100185", "step1_scores": "AAC=2", "step2_violation_type": "No Violation",
                         "step3_risk_severity": "NONE", "step4_action": "No Action"}, "must be an object, got string"),
    ("record_analysis", {"account_id": "ACC100185",
                         "step1_scores": {"abusive_account_creation": 2, "misleading_ad_copy": 2,
                                          "personal_orders": 1, "temporal_fraud": -1, "no_violation": 6},
                         "step2_violation_type": "No Violation", "step3_risk_severity": "NONE",
                         "step4_action": "No Action"}, "temporal_fraud must be an integer >= 0"),
    ("record_analysis", {"account_id": "ACC100185",
                         "step1_scores": {"abusive_account_creation": 2, "misleading_ad_copy": 2,
                                          "personal_orders": 1, "temporal_fraud": 0},
                         "step2_violation_type": "No Violation", "step3_risk_severity": "NONE",
                         "step4_action": "No Action"}, "lacks no_violation"),
    ("record_analysis", {"account_id": "ACC100185",
                         "step1_scores": {"abusive_account_creation": 2, "misleading_ad_copy": 2,
                                          "personal_orders": 1, "temporal_fraud": 0, "no_violation": 6},
                         "step2_violation_type": "Fraud", "step3_risk_severity": "NONE",
                         "step4_action": "No Action"}, "step2_violation_type 'Fraud' is not one of"),
    ("record_analysis", {"account_id": "ACC100185",
                         "step1_scores": {"abusive_account_creation": 2, "misleading_ad_copy": 2,
                                          "personal_orders": 1, "temporal_fraud": 0, "no_violation": 6},
                         "step2_violation_type": "No Violation", "step3_risk_severity": "NONE",
                         "step4_action": "Close it"}, "step4_action 'Close it' is not one of the seven"),
    ("list_batch", {"account_id": "ACC100185"}, "list_batch takes no arguments"),
    ("list_decisions", {"all": True}, "list_decisions takes no arguments"),
    ("delete_account", {"account_id": "ACC100185"}, "unknown tool 'delete_account'"),
]


def test_every_kind_of_bad_input_is_an_error_result_and_the_server_keeps_serving(run_server, tmp_path):
    state = tmp_path / "tools"

    async def scenario(c):
        outcomes = []
        for tool, args, _words in BAD_CALLS:
            outcomes.append(await c.call(tool, args))
            # the server still answers, and nothing was recorded
            batch = await c.data("list_batch", {})
            assert batch["decided"] == 0 and batch["count"] == 5
        return outcomes, await c.data("list_decisions", {})

    outcomes, decisions = run_server(scenario, "--seed", "2", "--accounts", "5", "--state-dir", str(state))
    for (tool, args, words), (ok, text, _texts) in zip(BAD_CALLS, outcomes):
        assert not ok, (tool, args, text)
        assert text.startswith("Error: "), text
        assert words in text, (words, text)
        # the message gives the valid form to use instead
        assert "Call " in text or "The tools are:" in text, text
    assert decisions == {"decisions": [], "count": 0}
    assert saved_lines(state / "records.jsonl") == [] and saved_lines(state / "decisions.jsonl") == []


def saved_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


SCORES = {"abusive_account_creation": 2, "misleading_ad_copy": 2, "personal_orders": 1, "temporal_fraud": 0,
          "no_violation": 6}


def test_restarted_server_keeps_confirmed_records_and_decisions(run_server, tmp_path):
    state = tmp_path / "tools"
    first, second, third = order_for_seed(2)[:3]

    async def before_restart(c):
        assert (await c.call("record_analysis", {
            "account_id": first, "step1_scores": SCORES, "step2_violation_type": "No Violation",
            "step3_risk_severity": "NONE", "step4_action": "No Action"}))[0]
        assert (await c.call("submit_decision", {"account_id": first, "action": "No Action"}))[0]
        assert (await c.call("submit_decision", {"account_id": second, "action": "Inconclusive"}))[0]

    async def after_restart(c):
        again = await c.call("submit_decision", {"account_id": first, "action": "Warning Issued"})
        new = await c.call("submit_decision", {"account_id": third, "action": "No Action"})
        return again, new, await c.data("list_decisions", {}), await c.data("list_batch", {})

    run_server(before_restart, "--seed", "2", "--accounts", "5", "--state-dir", str(state))
    again, new, decisions, batch = run_server(after_restart, "--seed", "2", "--accounts", "5", "--state-dir", str(state))
    assert not again[0] and "already has a decision ('No Action')" in again[1]
    assert new[0]
    assert decisions["decisions"] == [
        {"account_id": first, "action": "No Action"},
        {"account_id": second, "action": "Inconclusive"},
        {"account_id": third, "action": "No Action"},
    ]
    assert batch["decided"] == 3
    records = [json.loads(line) for line in (state / "records.jsonl").read_text().splitlines()]
    assert [(r["account_id"], r["step1_scores"], r["step4_action"]) for r in records] == [(first, SCORES, "No Action")]


def test_server_refuses_a_state_dir_of_another_batch(tmp_path):
    state = tmp_path / "tools"
    state.mkdir()
    (state / "batch.json").write_text(json.dumps({"order": order_for_seed(3)[:5]}))
    proc = subprocess.run(
        [sys.executable, "-m", "sopbench_tools", "--seed", "2", "--accounts", "5", "--state-dir", str(state)],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60,
    )
    assert proc.returncode != 0
    assert "another batch" in proc.stderr and str(state) in proc.stderr and "fresh --state-dir" in proc.stderr


@pytest.mark.e2e
def test_plain_claude_cli_connects_to_the_stdio_server(tmp_path):
    """The real Claude Code CLI (bundled with claude-agent-sdk) registers and health-checks the server."""
    import claude_agent_sdk

    cli = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
    assert cli.exists(), f"claude-agent-sdk ships no bundled CLI at {cli}"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
    add = subprocess.run([cli, "mcp", "add", "sopbench", "--", sys.executable, "-m", "sopbench_tools",
                          "--seed", "2", "--accounts", "3"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=120)
    assert add.returncode == 0, add.stderr
    listed = subprocess.run([cli, "mcp", "list"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    line = next(line for line in listed.stdout.splitlines() if line.startswith("sopbench:"))
    assert "Connected" in line, listed.stdout + listed.stderr
