"""The preregistered task through the generic tool server: the same definitions, results and
error texts as the ToolBox before it became generic (frozen in golden/referral_tools.json by
scripts/referral_tool_golden.py), and a manifest that reproduces the study's module constants."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

from sopbench_tools import dataset, tool_definitions as td
from sopbench_tools.tasks import load_task
from sopbench_tools.toolbox import ToolBox

GOLDEN = json.loads((Path(__file__).parent / "golden" / "referral_tools.json").read_text(encoding="utf-8"))
IDS = [f"ACC{100000 + i}" for i in range(200)]


def _golden_script():
    path = Path(__file__).resolve().parents[2] / "scripts" / "referral_tool_golden.py"
    spec = importlib.util.spec_from_file_location("referral_tool_golden", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tool_definitions_are_byte_identical():
    specs = json.dumps(ToolBox(IDS).tool_specs(), ensure_ascii=False)
    assert hashlib.sha256(specs.encode("utf-8")).hexdigest() == GOLDEN["tool_specs_sha256"]


def test_every_tool_result_of_every_account_is_byte_identical():
    box = ToolBox(IDS)
    for tool, digest in GOLDEN["results_sha256"].items():
        texts = "\n".join(box.call(tool, {"account_id": a}).text for a in IDS)
        assert hashlib.sha256(texts.encode("utf-8")).hexdigest() == digest, tool


def test_refused_calls_listing_and_decisions_give_the_same_texts():
    assert _golden_script().refused_and_listing_texts() == GOLDEN["calls"]


def test_the_record_result_is_unchanged():
    rec = ToolBox(IDS).call("record_analysis", {"account_id": IDS[0], **_golden_script().RECORD})
    assert {k: v for k, v in rec.data.items() if k != "t"} == GOLDEN["record_result"]


def test_the_manifest_reproduces_the_module_constants():
    task = load_task("referral_abuse_detection_v2")
    assert task.item.id_column == "account_id" and task.item.noun == "account" and task.item.plural == "accounts"
    assert task.data_tools == td.DATA_TOOLS == task.required_tools
    assert task.lookup_tools == td.LOOKUP_TOOLS
    assert (task.record.tool, task.decision.tool, task.listing_tools) == (td.RECORD_TOOL, td.DECISION_TOOL, td.LISTING_TOOLS)
    assert task.all_tools == td.ALL_TOOLS
    assert task.labels == dataset.ACTIONS
    assert [f.choices for f in task.record.fields] == [td.SCORE_KEYS, td.VIOLATION_TYPES, td.SEVERITIES, dataset.ACTIONS]
    assert {t: tuple(c for c, _ in task.tool(t).returns) for t in td.DATA_TOOLS} == \
        {t: tuple(c for c, _ in fields) for t, fields in td.DATA_FIELDS.items()}
    assert dict(task.tool("determine_enforcement_action").fixed_result) == td.ENFORCEMENT_NOTE
    old = dataset.load_task()
    assert task.sop == old.sop and task.item_ids == old.account_ids
    assert {a: task.gold_label(a) for a in task.item_ids} == old.gold
    assert {k: v for k, v in task.files.items() if k != "tools.py"} == dataset.EXPECTED_SHA256
    assert task.tool_order == {} and task.inputs_tool is None
