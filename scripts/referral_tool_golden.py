"""Write tests/tasks/golden/referral_tools.json: the preregistered task's tool definitions and the
sha256 of every tool's results over all 200 accounts, plus the text of a set of refused calls.

Run ONCE, before the tool server became generic (commit 71ea815's ToolBox), to freeze what the
agent saw; tests/tasks/test_referral_generic.py checks the generic server against it.
    PYTHONPATH=. python scripts/referral_tool_golden.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from sopbench_tools.toolbox import ToolBox

OUT = Path(__file__).resolve().parent.parent / "tests" / "tasks" / "golden" / "referral_tools.json"
SCORES = {"abusive_account_creation": 2, "misleading_ad_copy": 2, "personal_orders": 1, "temporal_fraud": 0, "no_violation": 6}
RECORD = {"step1_scores": SCORES, "step2_violation_type": "No Violation", "step3_risk_severity": "NONE", "step4_action": "No Action"}
#: (name, tool, args) of calls made in this order on a 3-account batch; their texts are frozen
CALLS = [
    ("unknown tool", "frobnicate", {}),
    ("args not an object", "investigate_account", ["x"]),
    ("missing account", "investigate_account", {}),
    ("extra argument", "investigate_account", {"account_id": "{a0}", "x": 1}),
    ("account not a string", "get_financial_impact", {"account_id": 7}),
    ("empty account", "get_financial_impact", {"account_id": " "}),
    ("unknown account", "analyze_traffic_patterns", {"account_id": "ACC999999"}),
    ("account not in batch", "analyze_traffic_patterns", {"account_id": "{other}"}),
    ("lookup", "determine_enforcement_action", {"account_id": "{a0}"}),
    ("listing args", "list_batch", {"x": 1}),
    ("record bad type", "record_analysis", {"account_id": "{a0}", **RECORD, "step2_violation_type": "Fraud"}),
    ("record bad severity", "record_analysis", {"account_id": "{a0}", **RECORD, "step3_risk_severity": "low"}),
    ("record bad action", "record_analysis", {"account_id": "{a0}", **RECORD, "step4_action": "Ban"}),
    ("record scores not object", "record_analysis", {"account_id": "{a0}", **RECORD, "step1_scores": [1]}),
    ("record scores keys", "record_analysis", {"account_id": "{a0}", **RECORD, "step1_scores": {"x": 1}}),
    ("record score negative", "record_analysis", {"account_id": "{a0}", **RECORD, "step1_scores": {**SCORES, "temporal_fraud": -1}}),
    ("record missing", "record_analysis", {"account_id": "{a0}"}),
    ("decision bad action", "submit_decision", {"account_id": "{a0}", "action": "Ban"}),
    ("decision missing", "submit_decision", {"account_id": "{a0}"}),
    ("list batch", "list_batch", {}),
    ("list decisions empty", "list_decisions", {}),
    ("decision", "submit_decision", {"account_id": "{a0}", "action": "No Action"}),
    ("decision twice", "submit_decision", {"account_id": "{a0}", "action": "Inconclusive"}),
    ("list decisions", "list_decisions", {}),
    ("list batch after", "list_batch", {}),
]


def _fill(value, names):
    if isinstance(value, str) and value.startswith("{") and value.endswith("}") and value[1:-1] in names:
        return names[value[1:-1]]
    if isinstance(value, dict):
        return {k: _fill(v, names) for k, v in value.items()}
    return value


def refused_and_listing_texts() -> dict[str, str]:
    batch = ["ACC100007", "ACC100042", "ACC100113"]
    box = ToolBox(batch)
    names = {"a0": batch[0], "other": "ACC100001"}
    texts = {}
    for name, tool, args in CALLS:
        texts[name] = box.call(tool, _fill(args, names)).text
    return texts


def main() -> None:
    ids = [f"ACC{100000 + i}" for i in range(200)]
    box = ToolBox(ids)
    results = {}
    for tool in ("investigate_account", "analyze_traffic_patterns", "analyze_temporal_patterns",
                 "get_violation_history", "get_financial_impact", "determine_enforcement_action"):
        texts = "\n".join(box.call(tool, {"account_id": a}).text for a in ids)
        results[tool] = hashlib.sha256(texts.encode("utf-8")).hexdigest()
    specs = json.dumps(box.tool_specs(), ensure_ascii=False, sort_keys=False)
    golden = {"tool_specs": box.tool_specs(), "tool_specs_sha256": hashlib.sha256(specs.encode("utf-8")).hexdigest(),
              "results_sha256": results, "calls": refused_and_listing_texts()}
    # records: the record result minus its timestamp
    rec = box.call("record_analysis", {"account_id": ids[0], **RECORD})
    golden["record_result"] = {k: v for k, v in rec.data.items() if k != "t"}
    OUT.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
