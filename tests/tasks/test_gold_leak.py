"""No tool returns a task's decision: on a copy of each task folder whose decision column(s) hold
a sentinel instead of the gold, every tool gives the same result as on the real folder (so no
tool reads the gold) and no result names a decision column, except a tool the manifest marks
``computes_decision_column`` (its value computed from the arguments, as the first check shows).
Every task, every served tool, the first 25 items (the sentinel is in every row). The two tasks
listed not runnable for this reason (their tools return the gold of every output column) are
checked to leak, so that their stated reason stays true."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from sopbench_tools.tasks import MANIFEST_DIR, load_task, task_names
from sopbench_tools.tasks.manifest import load_manifest
from sopbench_tools.toolbox import ToolBox

from sopbench_tools.tasks.pairs import masked, our_calls

SENTINEL = "GOLD-SENTINEL"
#: not runnable because their tools return the gold (their manifests' not_runnable_reason)
LEAKING = {"aircraft_inspection", "patient_intake"}


def _scrambled_copy(task, tmp_path):
    rel = task.folder.relative_to(MANIFEST_DIR.parent.parent / "data")
    copy = tmp_path / rel
    shutil.copytree(task.folder, copy)
    columns = {c.column for c in task.decision.columns}
    for name in ("test_set_with_outputs.csv", "test_set_without_outputs.csv", "data.csv"):
        path = copy / name
        if not path.exists():
            continue
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
        hit = [i for i, column in enumerate(rows[0]) if column in columns]
        for row in rows[1:]:
            for i in hit:
                row[i] = SENTINEL
        with open(path, "w", newline="", encoding="utf-8") as f:
            csv.writer(f).writerows(rows)
    return load_manifest(MANIFEST_DIR / f"{task.name}.yaml", tmp_path, verify=False)


def _keys(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


@pytest.mark.parametrize("name", task_names())
def test_no_tool_reads_or_returns_the_decision(name, tmp_path):
    task = load_task(name)
    scrambled = _scrambled_copy(task, tmp_path)
    assert {scrambled.gold_label(i) for i in scrambled.item_ids} == {SENTINEL}  # the copy really hides the gold
    items = task.item_ids[:25]
    real = our_calls(task, ToolBox(items, task=task))
    fake = our_calls(scrambled, ToolBox(items, task=scrambled))
    decision_columns = {c.column for c in task.decision.columns}
    leaks = []
    for (item, tool, _args, a), (_i, _t, _a, b) in zip(real, fake, strict=True):
        keys = task.tool(tool).volatile_keys
        if (a.ok, masked(a.data, keys)) != (b.ok, masked(b.data, keys)) or SENTINEL in b.text:
            leaks.append((item, tool, "reads the gold"))
        if a.ok and not task.tool(tool).computes_decision_column and decision_columns & set(_keys(json.loads(a.text))):
            leaks.append((item, tool, "names a decision column"))
    if name in LEAKING:
        assert leaks and not task.runnable
    else:
        assert leaks == []
