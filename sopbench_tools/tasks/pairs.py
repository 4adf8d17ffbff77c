"""Comparing the study's tool server with a task's own tools.py (``study task check``, the tests).

``our_calls`` makes every (tool, item) call of a task through the generic ToolBox, with the
arguments SOP-Bench's harness would pass (``arguments.call_arguments``; a chained argument from
the earlier tools' results for the item); ``upstream_answers`` has the same calls answered by
upstream's tools.py in a fresh process (``upstream_reference.py``); ``compare`` counts equal
results, equal errors, the preregistered task's one documented difference, and lists the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .arguments import call_arguments
from .task import Task

REFERENCE = Path(__file__).resolve().parent / "upstream_reference.py"


def tool_order(task: Task) -> list[str]:
    """The served task tools, each after the tools it takes outputs from."""
    served = [t.name for t in task.served_tools]
    done: list[str] = []
    while len(done) < len(served):
        for name in served:
            if name not in done and all(a in done or a not in served for a in task.tool(name).after):
                done.append(name)
    return done


def our_calls(task: Task, box=None, items: list[str] | None = None) -> list[tuple[str, str, dict, object]]:
    """(item, tool, args, ToolResult) for every served task tool and every item of ``box``'s batch
    (default: a ToolBox over ``items``, default all items), through the server."""
    from sopbench_tools.toolbox import ToolBox

    box = box or ToolBox(items or task.item_ids, task=task)
    calls = []
    order = tool_order(task)
    for item in box.order:
        produced: dict = {}
        for tool in order:
            args = call_arguments(task, tool, item, produced)
            result = box.call(tool, args)
            if result.ok and isinstance(result.data, dict):
                produced.update({k.replace(" ", "_"): v for k, v in result.data.items()})
            calls.append((item, tool, args, result))
    return calls


def upstream_answers(task: Task, requests: list[tuple[str, dict]], tmp: Path) -> list[dict]:
    """Upstream's answers to ``requests`` [(tool, args)], from a fresh Python process."""
    req, res = tmp / f"{task.name}-requests.jsonl", tmp / f"{task.name}-results.jsonl"
    req.write_text("".join(json.dumps({"tool": t, "args": a}, ensure_ascii=False) + "\n" for t, a in requests), encoding="utf-8")
    randoms = ",".join(t.name for t in task.tools if t.random)
    subprocess.run([sys.executable, str(REFERENCE), str(task.folder), task.name,
                    randoms, str(req), str(res)], check=True, stderr=subprocess.DEVNULL, timeout=600)
    return [json.loads(line) for line in res.read_text(encoding="utf-8").splitlines()]


def masked(value, keys: tuple[str, ...]):
    """``value`` with the values of ``keys`` (at any depth) replaced by "<volatile>"."""
    if isinstance(value, dict):
        return {k: "<volatile>" if k in keys else masked(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, keys) for v in value]
    return value


#: The one documented difference of the preregistered task's columns backend from upstream
#: (tool_definitions.py): account_rehabilitation_status "None" stays the string, where pandas gives NaN.
REFERRAL_DIFFERENCE = ("get_violation_history", "account_rehabilitation_status", "None")


def compare(task: Task, calls, answers) -> dict:
    """Counts of the comparison, and the differing pairs."""
    counts = {"pairs": len(calls), "equal_results": 0, "equal_errors": 0, "documented_difference": 0, "differ": []}
    for (item, tool, args, ours), theirs in zip(calls, answers):
        keys = task.tool(tool).volatile_keys
        if ours.ok and theirs["ok"]:
            mine, ref = masked(json.loads(ours.text), keys), masked(theirs["result"], keys)
            if mine == ref:
                counts["equal_results"] += 1
                continue
            name, field, text = REFERRAL_DIFFERENCE
            if (task.backend == "columns" and tool == name and mine.get(field) == text and ref.get(field) is None
                    and {k: v for k, v in mine.items() if k != field} == {k: v for k, v in ref.items() if k != field}):
                counts["documented_difference"] += 1
                continue
        elif not ours.ok and not theirs["ok"] and theirs["error"] in ours.text:
            counts["equal_errors"] += 1
            continue
        counts["differ"].append((item, tool, args, ours.text[:300], json.dumps(theirs)[:300]))
    return counts
