"""Every (tool, item) pair of every task with served tools gives through the study's generic
tool server what the task's own tools.py gives (called in a fresh process by
sopbench_tools/tasks/upstream_reference.py with the same arguments): the same JSON result, or an error result
carrying upstream's error. pandas and python-dateutil are in requirements.lock, so upstream runs
for real here; no precomputed results are used.

Upstream's side runs once for the module: upstream_reference.py's ``main`` for each task in turn,
in one fresh Python process (one interpreter start and pandas import, not one per task; nothing
of this package is imported there). ``study task check`` runs it a task at a time
(``pairs.upstream_answers``: tests/tasks/test_task_cli.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sopbench_tools.tasks import load_task, task_names

from sopbench_tools.tasks.pairs import REFERENCE, compare, our_calls

#: task -> (tool, item) pairs compared: items x served tools (README: "Tool equality").
EXPECTED_PAIRS = {
    "aircraft_inspection": 784, "content_flagging": 672, "customer_service": 1560, "dangerous_goods": 1096,
    "know_your_business": 720, "order_fulfillment": 120, "patient_intake": 396, "referral_abuse_detection_v1": 600,
    "referral_abuse_detection_v2": 1200, "traffic_spoofing_detection": 1200, "video_annotation": 3250,
    "video_classification": 1970, "warehouse_package_inspection": 1050,
}
#: Runs upstream_reference.py's main for each job [folder, task, random tools, requests, results];
#: pandas.read_csv is put back after each (main serves each task's files once through its own).
DRIVER = """
import json, runpy, sys
import pandas
main, real_read_csv = runpy.run_path(sys.argv[1])["main"], pandas.read_csv
for job in json.load(open(sys.argv[2], encoding="utf-8")):
    main(*job)
    pandas.read_csv = real_read_csv
"""


def test_every_task_with_served_tools_is_compared():
    served = {name for name in task_names() if load_task(name).served_tools}
    assert served == set(EXPECTED_PAIRS)
    assert not load_task("email_intent").served_tools  # its five toolspecs are withheld: tools.py lacks them
    assert sum(EXPECTED_PAIRS.values()) == 14618


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> dict[str, tuple[list, list[dict]]]:
    """Task name -> (every call through the server, upstream's answers to the same calls), upstream's
    in one process for all the tasks."""
    tmp = tmp_path_factory.mktemp("upstream")
    jobs, calls = [], {}
    for name in sorted(EXPECTED_PAIRS):
        task = load_task(name)
        calls[name] = our_calls(task)
        req, res = tmp / f"{name}-requests.jsonl", tmp / f"{name}-results.jsonl"
        req.write_text("".join(json.dumps({"tool": tool, "args": args}, ensure_ascii=False) + "\n"
                               for _item, tool, args, _r in calls[name]), encoding="utf-8")
        jobs.append([str(task.folder), task.name, ",".join(t.name for t in task.tools if t.random), str(req), str(res)])
    (tmp / "jobs.json").write_text(json.dumps(jobs), encoding="utf-8")
    subprocess.run([sys.executable, "-c", DRIVER, str(REFERENCE), str(tmp / "jobs.json")], check=True,
                   stderr=subprocess.DEVNULL, timeout=600)
    return {job[1]: (calls[job[1]], [json.loads(line) for line in open(job[4], encoding="utf-8")]) for job in jobs}


@pytest.mark.parametrize("name", sorted(EXPECTED_PAIRS))
def test_the_server_returns_what_upstream_tools_py_returns(name, compared):
    task = load_task(name)
    calls, answers = compared[name]
    assert len(answers) == len(calls)
    counts = compare(task, calls, answers)
    assert counts["pairs"] == EXPECTED_PAIRS[name] == len(task.item_ids) * len(task.served_tools)
    assert counts["differ"] == []
    # the columns backend differs from upstream only where tool_definitions.py says (the string "None")
    assert counts["documented_difference"] == (187 if name == "referral_abuse_detection_v2" else 0)
