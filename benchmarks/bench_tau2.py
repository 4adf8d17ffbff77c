"""τ²-bench Telecom on the simulator: the 40 test tasks under Control and FSM, per agent policy and runtime.

Through the real CLIs (the default): each session is ``study.runner.session.run_session`` on the
study ``tau2-telecom`` (the runner's Python API: the CLI's frozen-manifest check is skipped, so the
sessions are marked exploratory), the agent played by the simulator's policy (``sim:oracle``,
``sim:goal-abandoner``, ...) behind Claude Code or Codex CLI, the customer by the simulator's
customer. Sessions go to ``OUT/tau2-telecom/exploratory/<model>/<condition>/task-<k>/``; a session
already complete there is not run again (so an interrupted run resumes). Then, per policy, runtime
and condition: tasks passed, each task not passed with why (tau2's termination reason, the failed
reward parts, a transfer with a fault open, the gate's refusals), wall time and model requests per
conversation (the agent's simulator's own count, ``sim_truth.jsonl``), the share of the agent's
turns the controller emitted; and Table 4 from the logs (``study tables --study tau2-telecom
--sessions OUT --allow-simulated --include-exploratory``). A JSON summary goes to
``OUT/bench_tau2.json``.

``--direct`` plays the policies without a CLI (``study.families.tau2.sim.direct``: the FSM's gate and stop
gate in process), seconds per task.

    python benchmarks/bench_tau2.py --out /tmp/tau2-bench                       # everything (~1 h on 2 cores)
    python benchmarks/bench_tau2.py --out /tmp/tau2-bench --tasks 4 --runtimes codex --policies oracle
    python benchmarks/bench_tau2.py --out /tmp/tau2-bench --report                # the numbers of what ran
    python benchmarks/bench_tau2.py --direct --tasks 40 --policies goal-abandoner
    python benchmarks/bench_tau2.py --out /tmp/tau2-bench --study tau2-airline --tasks 20 --policies oracle,adversarial
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STUDY = "tau2-telecom"   # --study: another τ²-bench study (tau2-airline, tau2-retail)
TRANSFER = "transfer_to_human_agents"


def _events(session: Path) -> list[dict]:
    path = session / "events.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _complete(session: Path) -> bool:
    kinds = {e["kind"] for e in _events(session)}
    return "session_end" in kinds and "outcome" in kinds


def _model_folder(policy: str, runtime: str) -> str:
    return f"sim-{policy}" + ("" if runtime == "claude-code" else f"@{runtime}")


def session_path(out: Path, policy: str, runtime: str, condition: str, k: int) -> Path:
    return out / STUDY / "exploratory" / _model_folder(policy, runtime) / condition / f"task-{k:02d}"


def run_cli(out: Path, policies: list[str], runtimes: list[str], conditions: list[str], tasks: int) -> None:
    from study.runner.session import SessionSpec, run_session

    for policy in policies:
        for runtime in runtimes:
            for condition in conditions:
                for k in range(1, tasks + 1):
                    where = session_path(out, policy, runtime, condition, k)
                    if _complete(where):
                        continue
                    started = time.monotonic()
                    try:
                        path = run_session(SessionSpec(condition=condition, seed=k, model=f"sim:{policy}", study=STUDY,
                                                       out_root=out, runtime=runtime))
                    except Exception as exc:  # noqa: BLE001 -- a bench reports a failed session and goes on
                        print(f"FAILED {policy} {runtime} {condition} task-{k:02d}: {type(exc).__name__}: {exc}", flush=True)
                        continue
                    o = _outcome(Path(path))
                    print(f"{policy:15s} {runtime:11s} {condition:7s} task-{k:02d} reward={o.get('reward')} "
                          f"{o.get('termination_reason')} {time.monotonic() - started:.1f}s", flush=True)


def _outcome(session: Path) -> dict:
    return next((e for e in reversed(_events(session)) if e["kind"] == "outcome"), {})


def _requests(session: Path) -> int | None:
    path = session / "sim_truth.jsonl"
    if not path.is_file():
        return None
    for line in reversed(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        if row.get("kind") == "server":
            return int(row["requests"])
    return None


def why_not(session: Path) -> str:
    """Why a session's task did not pass, from its log."""
    events = _events(session)
    o = _outcome(session)
    end = next((e for e in reversed(events) if e["kind"] == "session_end"), {})
    calls = [e for e in events if e["kind"] == "tool_call"]
    reasons = []
    if end.get("status") not in (None, "completed"):
        reasons.append(f"session {end.get('status')}: {end.get('error')}")
    if not o:
        return "; ".join(reasons + ["no outcome"])
    if not o.get("judged"):
        reasons.append("not judged")
    reasons.append(f"ended {o.get('termination_reason')}")
    failed = [k for k, v in (o.get("parts") or {}).items() if v < 1.0 and k in (o.get("reward_basis") or [])]
    if failed:
        reasons.append("failed " + ", ".join(failed))
    if any(c["tool"] == TRANSFER and c.get("ok") for c in calls):
        reasons.append("transferred to a human agent")
    refused = [c["tool"] for c in calls if c.get("allowed") is False]
    if refused:
        reasons.append(f"{len(refused)} calls refused ({', '.join(sorted(set(refused)))})")
    return "; ".join(reasons)


def summarize(out: Path, policies: list[str], runtimes: list[str], conditions: list[str], tasks: int) -> dict:
    summary: dict = {}
    for policy in policies:
        for runtime in runtimes:
            for condition in conditions:
                rows = []
                for k in range(1, tasks + 1):
                    where = session_path(out, policy, runtime, condition, k)
                    events = _events(where)
                    if not events:
                        continue
                    o = _outcome(where)
                    end = next((e for e in reversed(events) if e["kind"] == "session_end"), {})
                    calls = [e for e in events if e["kind"] == "tool_call"]
                    rows.append({
                        "task": k, "task_id": o.get("task_id"), "reward": o.get("reward"), "judged": o.get("judged"),
                        "wall_s": end.get("duration_s"), "requests": _requests(where),
                        "agent_turns": o.get("agent_turns", 0), "controller_turns": o.get("controller_turns", 0),
                        "device_actions": o.get("customer_device_actions", 0),
                        "transferred": any(c["tool"] == TRANSFER and c.get("ok") for c in calls),
                        "transfers_denied": sum(1 for c in calls if c["tool"] == TRANSFER and c.get("allowed") is False),
                        "refused": sum(1 for c in calls if c.get("allowed") is False),
                        "why": None if o.get("reward") == 1.0 else why_not(where),
                    })
                if rows:
                    summary[f"{policy}|{runtime}|{condition}"] = rows
    return summary


def _mean(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def report(summary: dict) -> None:
    print("\npolicy          runtime     condition  passed  wall s/conv  requests/conv  controller share  "
          "device actions/conv  transfers (fault open) / denied")
    for key, rows in summary.items():
        policy, runtime, condition = key.split("|")
        passed = sum(1 for r in rows if r["reward"] == 1.0)
        unjudged = sum(1 for r in rows if r["judged"] is False)
        turns = sum(r["agent_turns"] for r in rows)
        ctl = sum(r["controller_turns"] for r in rows)
        open_transfers = sum(1 for r in rows if r["transferred"] and r["reward"] != 1.0)
        denied = sum(1 for r in rows if r["transfers_denied"])
        wall, req, dev = _mean([r["wall_s"] for r in rows]), _mean([r["requests"] for r in rows]), _mean([r["device_actions"] for r in rows])
        print(f"{policy:15s} {runtime:11s} {condition:9s} {passed:3d}/{len(rows):<3d} {wall or 0:11.1f}  {req or 0:13.1f}  "
              f"{ctl:4d}/{turns:<4d} {ctl / turns if turns else 0:5.1%}  {dev or 0:19.1f}  {open_transfers:3d} / {denied}"
              + (f"   ({unjudged} not judged: they need the judge)" if unjudged else ""))
    for key, rows in summary.items():
        missed = [r for r in rows if r["reward"] != 1.0 and r["judged"] is not False]
        if missed and not key.startswith("goal-abandoner") or missed and key.endswith("|FSM"):
            print(f"\nnot passed, {key.replace('|', ' ')}:")
            for r in missed:
                print(f"  task-{r['task']:02d} {r['task_id']}: {r['why']}")


def table4(out: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "study.cli", "tables", "--study", STUDY, "--sessions", str(out),
                           "--allow-simulated", "--include-exploratory"], capture_output=True, text=True)
    print("\n" + done.stdout)
    if done.returncode:
        print(done.stderr[-2000:])


def run_direct(policies: list[str], conditions: list[str], tasks: int, domain: str = "telecom") -> None:
    from study.families.tau2 import data
    from study.families.tau2.controller import TelecomController
    from study.families.tau2.conversation import ModelEndpoint
    from study.families.tau2.work import Tau2Work
    from study.fsm import FsmRuntime, Workflow
    from study.sim.server import SimServer
    from study.families.tau2.sim import make_agent
    from study.families.tau2.sim.customer import Customer
    from study.families.tau2.sim.direct import play

    here = Path(__file__).resolve().parents[1] / "study/families/tau2"
    workflow = Workflow.load(here / f"workflows_template/{domain}.yaml")
    ids = data.frozen_order(data.task_ids(domain))[:tasks]
    for policy in policies:
        for condition in conditions:
            passed = turns = ctl = denied = unjudged = refused = 0
            began = time.monotonic()
            for task_id in ids:
                task = data.load_task(domain, task_id).model_dump(mode="json")
                with SimServer(Customer(task)) as sim, tempfile.TemporaryDirectory() as tmp:
                    work = Tau2Work(domain, task_id, ModelEndpoint("sim-customer", base_url=sim.base_url),
                                    texts=here / "texts_template",
                                    controller=TelecomController() if condition == "FSM" and domain == "telecom" else None)
                    fsm = None
                    if condition == "FSM":
                        fsm = FsmRuntime(Path(tmp), {workflow.name: workflow}, variables=work.fsm_variables())
                        fsm.enter(workflow.name)
                    played = play(work, make_agent(policy, task, domain=domain), fsm=fsm)
                o = played.outcome
                passed += o["reward"] == 1.0
                unjudged += not o["judged"]
                turns += o["agent_turns"]
                ctl += o["controller_turns"]
                denied += any(c.tool == TRANSFER for c, _ in played.denied)
                refused += len(played.denied)
                if o["reward"] != 1.0 and o["judged"] and policy == "oracle":
                    print(f"  not passed: {task_id}: {o['termination_reason']} {o['parts']}")
                    for call, out in played.view.steps:
                        print(f"    {call.tool} {json.dumps(call.args)[:90]} -> {(out.denied or out.text)[:140]!r}")
            print(f"direct {domain} {policy} {condition}: passed {passed}/{len(ids)} ({unjudged} not judged: no judge); "
                  f"controller share {ctl}/{turns}; tasks with a denied transfer {denied}; calls refused {refused}; "
                  f"{time.monotonic() - began:.0f} s", flush=True)


def main() -> None:
    global STUDY
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="where the sessions go (the CLI runs)")
    parser.add_argument("--study", default=STUDY, help="the τ²-bench study (default tau2-telecom)")
    parser.add_argument("--tasks", type=int, default=40, help="the first N tasks of the frozen order (default 40)")
    parser.add_argument("--policies", default="oracle,goal-abandoner")
    parser.add_argument("--conditions", default="Control,FSM")
    parser.add_argument("--runtimes", default="claude-code,codex")
    parser.add_argument("--report", action="store_true", help="run nothing: the numbers of the sessions in --out")
    parser.add_argument("--direct", action="store_true", help="play the policies without a CLI")
    parser.add_argument("--domain", default="telecom", help="--direct only: telecom, airline or retail")
    args = parser.parse_args()
    policies, conditions, runtimes = (a.split(",") for a in (args.policies, args.conditions, args.runtimes))
    STUDY = args.study
    if args.direct:
        run_direct(policies, conditions, args.tasks, args.domain)
        return
    if args.out is None:
        parser.error("--out DIR is needed for the CLI runs (or --direct)")
    if not args.report:
        run_cli(args.out, policies, runtimes, conditions, args.tasks)
    summary = summarize(args.out, policies, runtimes, conditions, args.tasks)
    (args.out / "bench_tau2.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    report(summary)
    table4(args.out)


if __name__ == "__main__":
    main()
