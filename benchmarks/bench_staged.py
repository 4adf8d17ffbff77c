"""The staged protocols through the real CLIs, offline: each run's fresh contexts, measured.

One real run per protocol, condition and runtime (the runner, the workspace, the CLI's own tools,
the FSM's gate, guards and stop gate; the simulator playing the protocol's scripted agent), each a
sequence of fresh contexts. Printed per run, measured in this run:

- the run's verdict by the protocol's own scorer (AutoResearch: valid rows, complete, best
  accuracy; month-end close: correct periods);
- per context: wall time and model requests (the simulator's responses: the log's ``usage``
  events), and the agent's turns (tool calls and final answers);
- the harness's share: of the agent's tool calls, those that are the FSM's own (status,
  self_check, transition, exit: the procedure's moves the enforcement adds), and the wall time of
  the guards' check scripts is in the context's time.

Then Tables 5, 10a and 10b from those logs (``study.families.workspace.tables``). SIMULATED numbers: they measure
the harness, never a model.

    python benchmarks/bench_staged.py [--protocols autoresearch,month-end-close] [--size N]
        [--runtimes claude-code,codex] [--policies oracle,drifter] [--out DIR]

``--size N``: N trials per AutoResearch stage, the first N month-end periods (default: the
paper's 25 trials and six periods).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import datetime
from pathlib import Path

from study.runner.session import SessionSpec, run_session

STUDIES = {"autoresearch": "autoresearch", "month-end-close": "month-end-close"}
POLICIES = {"autoresearch": ("oracle", "drifter"), "month-end-close": ("oracle", "out-of-turns")}
FSM_TOOLS = ("status", "self_check", "transition", "exit", "enter")


def _t(event: dict) -> float:
    return datetime.fromisoformat(event["t"].replace("Z", "+00:00")).timestamp()


def measure(folder: Path) -> dict:
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines()]
    contexts, current = [], None
    for e in events:
        if e["kind"] == "context_start":
            current = {"n": e["n"], "start": _t(e), "requests": 0, "calls": 0, "fsm_calls": 0}
        elif current is not None and e["kind"] == "usage":
            current["requests"] += 1
        elif current is not None and e["kind"] == "tool_call":
            current["calls"] += 1
            current["fsm_calls"] += e.get("server") == "fsm"
        elif current is not None and e["kind"] == "context_end":
            current["wall_s"] = _t(e) - current["start"]
            contexts.append(current)
            current = None
    outcome = next((e for e in events if e["kind"] == "outcome"), {})
    end = events[-1]
    return {"contexts": contexts, "outcome": outcome, "status": end.get("status"), "cost": end.get("cost_usd")}


def verdict(outcome: dict) -> str:
    if outcome.get("protocol") == "autoresearch":
        return (f"valid rows {outcome.get('valid_rows')}/{outcome.get('required_rows')}, complete "
                f"{'yes' if outcome.get('complete') else 'no'}, best accuracy {outcome.get('best_accuracy')}")
    if outcome.get("protocol") == "month-end-close":
        marks = " ".join("1" if p["correct"] else ("-" if not p["started"] else "0") for p in outcome.get("periods", []))
        return f"correct periods {outcome.get('correct_periods')}/{len(outcome.get('periods', []))} ({marks})"
    return "no outcome"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--protocols", default="autoresearch,month-end-close")
    parser.add_argument("--runtimes", default="claude-code,codex")
    parser.add_argument("--conditions", default="Plain,FSM")
    parser.add_argument("--policies", default=None, help="default: each protocol's oracle and its drifting agent")
    parser.add_argument("--size", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="bench-staged-"))
    print(f"SIMULATED: the harness measured, never a model. Sessions in {out}")
    studies = []
    for protocol in args.protocols.split(","):
        studies.append(STUDIES[protocol])
        policies = args.policies.split(",") if args.policies else POLICIES[protocol]
        for policy in policies:
            for runtime in args.runtimes.split(","):
                for condition in args.conditions.split(","):
                    started = time.monotonic()
                    folder = run_session(SessionSpec(condition=condition, seed=1, model=f"sim:{policy}",
                                                     study=STUDIES[protocol], out_root=out, accounts=args.size,
                                                     runtime=runtime))
                    m = measure(folder)
                    contexts = m["contexts"]
                    n = len(contexts) or 1
                    calls = sum(c["calls"] for c in contexts)
                    fsm = sum(c["fsm_calls"] for c in contexts)
                    print(f"{protocol:15} {policy:13} {runtime:11} {condition:5} {m['status']}: {verdict(m['outcome'])}")
                    print(f"    {len(contexts)} contexts in {time.monotonic() - started:.0f} s: per context "
                          f"{sum(c['wall_s'] for c in contexts) / n:.1f} s, {sum(c['requests'] for c in contexts) / n:.1f} "
                          f"model requests, {calls / n:.1f} tool calls; the FSM's moves {fsm}/{calls} of the calls "
                          f"({100 * fsm / calls if calls else 0:.0f}%); cost ${m['cost']:.2f} (simulated)")
    from analysis.render import render
    from study.families.workspace.tables import tables
    from analysis.study_sessions import load_study_sessions

    found = load_study_sessions(out, studies, include_exploratory=True, allow_simulated=True)
    for table in tables(found):
        print()
        print(render(table, "md"))


if __name__ == "__main__":
    main()
