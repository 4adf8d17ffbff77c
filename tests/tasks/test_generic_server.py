"""The generic tool server on a task other than the preregistered one: the item noun and labels
come from the task, decisions are validated against its labels (first one final), bad calls are
error results, and the MCP server lists SOP-Bench's own tool names and schemas."""

from __future__ import annotations

import json
import sys

import anyio

from sopbench_tools.tasks import load_task
from sopbench_tools.toolbox import ToolBox

TASK = load_task("dangerous_goods")
BATCH = TASK.item_ids[:3]


def test_tools_list_has_the_task_tools_with_sopbench_schemas_then_the_study_tools():
    specs = ToolBox(BATCH, task=TASK).tool_specs()
    upstream = {s["toolSpec"]["name"]: s["toolSpec"] for s in TASK.toolspecs}
    assert [s["name"] for s in specs] == [*upstream, "get_inputs", "record_analysis", "submit_decision",
                                           "list_batch", "list_decisions"]
    for spec in specs[:4]:
        assert spec["inputSchema"] == upstream[spec["name"]]["inputSchema"]["json"]
        assert spec["description"] == upstream[spec["name"]]["description"]
    decision = next(s for s in specs if s["name"] == "submit_decision")["inputSchema"]
    assert decision["properties"]["hazard_class"]["enum"] == list(TASK.labels)
    assert decision["required"] == ["product_id", "hazard_class"]


def test_a_decision_is_validated_against_the_labels_and_the_first_is_final(tmp_path):
    box = ToolBox(BATCH, tmp_path, task=TASK)
    bad = box.call("submit_decision", {"product_id": BATCH[0], "hazard_class": "Class Z"})
    assert not bad.ok and "hazard_class 'Class Z' is not one of the hazard classes of SOP 6.1" in bad.text
    assert box.call("submit_decision", {"product_id": BATCH[0], "hazard_class": "Hazard Class B"}).ok
    again = box.call("submit_decision", {"product_id": BATCH[0], "hazard_class": "Hazard Class C"})
    assert not again.ok and "the first decision of a product is final" in again.text
    assert ToolBox(BATCH, tmp_path, task=TASK).decisions == {BATCH[0]: "Hazard Class B"}
    assert box.call("list_batch", {}).data == {"products": BATCH, "count": 3, "decided": 1}
    assert box.call("list_decisions", {}).data == {"decisions": [{"product_id": BATCH[0], "hazard_class": "Hazard Class B"}],
                                                   "count": 1}


def test_task_tools_answer_with_upstream_results_and_refuse_bad_calls():
    box = ToolBox(BATCH, task=TASK)
    inputs = box.call("get_inputs", {"product_id": BATCH[0]}).data
    assert list(inputs) == list(TASK.item.input_columns)
    score = box.call("calculate_sds_label_score", {"product_id": BATCH[0], "sds_label_text": inputs["sds_label_text"]})
    assert score.ok and set(json.loads(score.text)) == {"product_id", "sds_label_score"}
    other = next(i for i in TASK.item_ids if i not in BATCH)
    outside = box.call("calculate_sds_label_score", {"product_id": other, "sds_label_text": "x"})
    assert not outside.ok and f"product '{other}' is not in this batch (call list_batch for its 3 products)" in outside.text
    extra = box.call("calculate_sds_label_score", {"product_id": BATCH[0], "sds_label_text": "x", "force": True})
    assert not extra.ok and "unexpected argument 'force'" in extra.text
    failed = box.call("calculate_sds_label_score", {"product_id": BATCH[0], "sds_label_text": ""})
    assert not failed.ok and failed.text.startswith("Error: calculate_sds_label_score failed: ValueError: Missing required")


def test_study_tools_serve_task_serves_it_over_stdio_to_the_official_mcp_client():
    import subprocess
    import sys
    from pathlib import Path

    from mcp import Client, StdioServerParameters

    repo = Path(__file__).resolve().parents[2]

    async def main():
        params = StdioServerParameters(command=sys.executable, cwd=str(repo), args=[
            "-m", "sopbench_tools", "--task", "dangerous_goods", "--seed", "2", "--accounts", "2"])
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            batch = json.loads((await client.call_tool("list_batch", {})).content[0].text)
            first = batch["products"][0]
            inputs = json.loads((await client.call_tool("get_inputs", {"product_id": first})).content[0].text)
            score = await client.call_tool("calculate_handling_score", {
                "product_id": first, "handling_and_storage_guidelines": inputs["handling_and_storage_guidelines"]})
            bad = await client.call_tool("submit_decision", {"product_id": first, "hazard_class": "D"})
            return tools, batch, score, bad

    tools, batch, score, bad = anyio.run(main)
    assert [t.name for t in tools][:4] == [s["toolSpec"]["name"] for s in TASK.toolspecs]
    assert batch["count"] == 2 and batch["decided"] == 0
    assert not score.is_error and "handling_score" in json.loads(score.content[0].text)
    assert bad.is_error and "is not one of the hazard classes" in bad.content[0].text
    unknown = subprocess.run([sys.executable, "-m", "sopbench_tools", "--task", "nope"], cwd=repo,
                             capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "unknown task 'nope'" in unknown.stderr


def test_loading_a_tasks_upstream_tools_writes_nothing_into_its_vendored_folder(tmp_path, monkeypatch):
    """The vendored folder is checked file by file and may be read-only: importing its tools.py
    must not leave a __pycache__ there (it did, and `study task check` then flagged it)."""
    import shutil

    from sopbench_tools.tasks.upstream import load_module

    monkeypatch.setattr(sys, "dont_write_bytecode", False)      # as in a Python without PYTHONDONTWRITEBYTECODE
    task = load_task("dangerous_goods")
    copy = tmp_path / "dangerous_goods"
    shutil.copytree(task.folder, copy, ignore=shutil.ignore_patterns("__pycache__"))
    load_module(copy / "tools.py", "upstream_tools_probe")
    assert sorted(p.name for p in copy.iterdir()) == sorted(
        p.name for p in task.folder.iterdir() if p.name != "__pycache__")


def test_a_call_that_names_the_item_by_a_unique_argument_is_attributed_to_that_item():
    from sopbench_tools.tasks.arguments import call_arguments

    task = load_task("content_flagging")
    assert dict(task.item_keys) == {"calculateBotProbabilityIndex": "userid", "calculate_user_trust_score": "userid"}
    assert dict(load_task("order_fulfillment").item_keys) == {}          # product_id, customer_id: shared
    a, b = task.item_ids[:2]
    assert task.item_table("userid")[task.rows[b]["userid"]] == b and len(task.item_table("userid")) == 168
    box = ToolBox([a, b], task=task)
    result = box.call("calculateBotProbabilityIndex", call_arguments(task, "calculateBotProbabilityIndex", b))
    assert result.ok and result.account == b
    assert box.call("calculateBotProbabilityIndex", {"userid": "nobody"}).account is None
    assert box.call("calculateContentSeverityIndex", {"content_id": a}).account == a
