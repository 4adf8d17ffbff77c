"""Every runnable SOP-Bench task through the real CLI against the simulator (not CI: minutes per task).

For each runnable task: ``sim:oracle`` under FSM and FSM-lean must decide every item with FC =
batch size; ``sim:adversarial`` under FSM must get no decision route through (without looking,
partial data, interleaved, another account) and the scorer's routes must equal the simulator's
ground truth (``sim_truth.jsonl``). Prints the table task x condition (FC, routes, cost).

The sessions run in a fresh project made with ``study new --task referral_abuse_detection_v2``
and frozen there (``study.project.trial``, as ``study task check`` does), so every other task's
sessions are exploratory, as in this project.

    python benchmarks/bench_tasks.py                  # the first 3 items of each seed-2 order
    python benchmarks/bench_tasks.py --items 10       # the first 10
    python benchmarks/bench_tasks.py --items all      # full batches (long: every item of every task)
    python benchmarks/bench_tasks.py --tasks dangerous_goods,video_annotation --items 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from sopbench_tools.tasks import load_task, task_names  # noqa: E402
from study.procedure.escape_routes import ROUTE_KEYS  # noqa: E402
from study.project.trial import make_scratch_project, run_sim_session  # noqa: E402
from sopbench_tools.tasks.attribution import unsupported_reason  # noqa: E402

#: the batch when --items is not given
ITEMS = 3
DECISION_ROUTES = ("without_looking", "partial_data", "interleaved", "another_account")
RUNS = (("FSM", "oracle"), ("FSM-lean", "oracle"), ("FSM", "adversarial"))


def run_one(project: Path, env: dict[str, str], task: str, condition: str, policy: str, accounts: int | None) -> dict:
    run = run_sim_session(project, task, condition, policy, accounts, env=env)
    row = {k: v for k, v in asdict(run).items() if k != "folder"}
    return {k: v for k, v in row.items() if v is not None or k in ("rc", "fc")}


def verdict(row: dict) -> str:
    if row.get("fc") is None:
        return "FAIL (no session: " + " ".join(row.get("error") or ["?"]) + ")"
    if row["policy"] == "oracle":
        return "ok" if row["fc"] == row["batch"] == row["decided"] else "FAIL (FC != batch)"
    through = [r for r in DECISION_ROUTES if row["routes"].get(r)]
    same = all(row["routes"].get(k) == row["truth"].get(k) for k in ROUTE_KEYS)
    return "ok" if not through and same else f"FAIL (through {through}, scorer == truth: {same})"


def items_arg(text: str) -> int | None:
    """``--items``: a positive number of items, or ``all`` (None: every item of the task)."""
    if text.strip().lower() == "all":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"--items takes a positive number or 'all', not {text!r}")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", "--accounts", dest="items", type=items_arg, default=ITEMS, metavar="N|all",
                        help=f"The first N items of each batch, or all of them (default: {ITEMS}).")
    parser.add_argument("--tasks", default=None, help="Comma-separated task names (default: every runnable task).")
    opts = parser.parse_args()
    names = opts.tasks.split(",") if opts.tasks else task_names()
    tasks = [n for n in names if unsupported_reason(load_task(n)) is None]
    skipped = [(n, unsupported_reason(load_task(n))) for n in names if n not in tasks]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-tasks-") as tmp:
        # a copy of the code, so that edits made meanwhile in the checkout do not reach the sessions
        code = Path(tmp) / "code"
        for package in ("study", "analysis", "sopbench_tools", "preregistration"):
            shutil.copytree(REPO / package, code / package, ignore=shutil.ignore_patterns("__pycache__"))
        env = {**os.environ, "PYTHONPATH": str(code)}
        env.pop("STUDY_ROOT", None)
        project = make_scratch_project(Path(tmp), env)
        for task in tasks:
            items = min(opts.items, len(load_task(task).item_ids)) if opts.items else None
            for condition, policy in RUNS:
                row = run_one(project, env, task, condition, policy, items)
                row["verdict"] = verdict(row)
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    print("| task | condition | policy | batch | decided | FC | routes (scorer) | routes (truth) | cost ($) | s | verdict |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    short = lambda r: " ".join(f"{k}={v}" for k, v in (r or {}).items() if v) or "none"  # noqa: E731
    for r in rows:
        cost = f"{r['cost']:.2f}" if r.get("cost") is not None else "-"
        print(f"| {r['task']} | {r['condition']} | {r['policy']} | {r.get('batch', '-')} | {r.get('decided', '-')} | "
              f"{r.get('fc', '-')} | {short(r.get('routes'))} | {short(r.get('truth'))} | {cost} | {r['seconds']} | {r['verdict']} |")
    for name, reason in skipped:
        print(f"| {name} | - | - | - | - | - | - | - | - | - | not runnable: {reason} |")
    failed = [r for r in rows if r["verdict"] != "ok"]
    print(f"\n{len(rows) - len(failed)} of {len(rows)} runs ok; {len(skipped)} task(s) not runnable.")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
