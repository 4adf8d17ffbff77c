"""Benchmark: FSM gate and guard decision times at a history of 2,000 events.

Run: ``python benchmarks/bench_fsm_gate.py`` (options: ``--events N``, ``--gate-calls N``,
``--shell-runs N``). Prints p50 and p99 of:

- the tool-call gate (in process; the goal is p99 <= 1 ms), over admitted and refused calls;
- the transition guard with the study's in-process checks (Eq. 4 refused: nothing is written;
  Eq. 4 passing: includes the atomic, fsync'ed commit of the frame);
- the transition guard with a shell check (the tool log and variables written to files, one
  ``/bin/sh`` process per decision);
- ``observe`` (append one call and write the frame), for scale.

The history is built by running the study's workflow over accounts one at a time (five data
calls, a record, a decision, two transitions per account) until it holds ``--events`` events.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sopbench_tools.tool_definitions import DATA_TOOLS  # noqa: E402
from study.fsm import FsmRuntime, Workflow  # noqa: E402

MAIN = ROOT / "preregistration" / "workflows" / "referral_abuse_per_account.yaml"
GATE_GOAL_P99_MS = 1.0

SHELL_WORKFLOW = """\
workflow: ShellBench
tools: [work]
initial: S_a
exit: S_c
states:
  S_a: {allow: [work]}
  S_b: {allow: [work]}
  S_c: {}
transitions:
  - from: S_a
    to: S_b
    guard:
      hard:
        - command: 'grep -q "\\"tool\\": \\"work\\"" "$FSM_TOOL_LOG" && test -s "$FSM_VARIABLES"'
          timeout: 10
  - {from: S_b, to: S_a}
  - {from: S_a, to: S_c}
"""


def percentiles(samples_ns: list[int]) -> tuple[float, float]:
    """(p50, p99) in milliseconds."""
    ms = sorted(s / 1e6 for s in samples_ns)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return q[49], q[98]


def timed(fn, runs: int) -> list[int]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - t0)
    return out


def build_history(rt: FsmRuntime, events: int) -> int:
    """Process accounts one at a time until the history holds ``events`` events; return accounts done."""
    n = 0
    while len(rt.frames()[-1]["history"]) < events:
        n += 1
        account = f"ACC{n:06d}"
        for tool in DATA_TOOLS:
            rt.observe(tool, {"account_id": account}, True)
        rt.observe("record_analysis", {"account_id": account}, True)
        assert rt.transition("S_decide", rt.self_check("S_decide")["token"]).ok
        rt.observe("submit_decision", {"account_id": account, "action": "No Action"}, True)
        assert rt.transition("S_investigate", rt.self_check("S_investigate")["token"]).ok
    return n


def report(name: str, samples: list[int], goal_ms: float | None = None) -> None:
    p50, p99 = percentiles(samples)
    line = f"{name:<58} n={len(samples):>6}  p50 {p50:8.4f} ms  p99 {p99:8.4f} ms"
    if goal_ms is not None:
        line += f"  p99/goal = {p99 / goal_ms:.3f} (goal p99 <= {goal_ms:g} ms: {'met' if p99 <= goal_ms else 'NOT met'})"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--gate-calls", type=int, default=20000)
    parser.add_argument("--guard-runs", type=int, default=2000)
    parser.add_argument("--shell-runs", type=int, default=200)
    opts = parser.parse_args()

    wf = Workflow.load(MAIN)
    with tempfile.TemporaryDirectory() as tmp:
        batch = [f"ACC{i:06d}" for i in range(1, opts.events)]
        rt = FsmRuntime(Path(tmp) / "main", {wf.name: wf}, {"batch": batch})
        rt.enter(wf.name)
        accounts = build_history(rt, opts.events)
        history = len(rt.frames()[-1]["history"])
        print(f"history: {history} events ({accounts} accounts), state {rt.state}, fsync on")

        calls = [("investigate_account", {"account_id": "ACC000001"}), ("submit_decision", {"account_id": "ACC000001", "action": "No Action"}),
                 ("list_batch", {}), ("record_analysis", {"account_id": "ACC000001"})]
        gate_samples = []
        for i in range(opts.gate_calls):
            tool, args = calls[i % len(calls)]
            t0 = time.perf_counter_ns()
            rt.gate(tool, args)
            gate_samples.append(time.perf_counter_ns() - t0)
        report("tool-call gate (in process, admitted and refused)", gate_samples, GATE_GOAL_P99_MS)

        # Eq. 4 refused: the last record's account is already decided, nothing is committed.
        def refused_guard() -> None:
            token = rt.self_check("S_decide")["token"]
            t0 = time.perf_counter_ns()
            result = rt.transition("S_decide", token)
            refused_guard.samples.append(time.perf_counter_ns() - t0)
            assert not result.ok

        refused_guard.samples = []
        for _ in range(opts.guard_runs):
            refused_guard()
        report("guard, in-process checks (Eq. 4 refused, no write)", refused_guard.samples)

        stop_samples = timed(rt.stop_gate, opts.gate_calls)
        report("stop gate (in process)", stop_samples)

        # Eq. 4 passing then Eq. 5 passing: each transition commits the frame (fsync).
        commit_samples = []
        for k in range(min(opts.guard_runs, 200)):
            account = f"BENCH{k:05d}"
            for tool in DATA_TOOLS:
                rt.observe(tool, {"account_id": account}, True)
            rt.observe("record_analysis", {"account_id": account}, True)
            token = rt.self_check("S_decide")["token"]
            t0 = time.perf_counter_ns()
            assert rt.transition("S_decide", token).ok
            commit_samples.append(time.perf_counter_ns() - t0)
            rt.observe("submit_decision", {"account_id": account, "action": "No Action"}, True)
            assert rt.transition("S_investigate", rt.self_check("S_investigate")["token"]).ok
        report(f"guard + atomic commit (Eq. 4 passing, {len(rt.frames()[-1]['history'])} events)", commit_samples)

        observe_samples = timed(lambda: rt.observe("list_batch", {}, True), 200)
        report("observe (append one call, write the frame)", observe_samples)

        shell_wf = Workflow.from_text(SHELL_WORKFLOW, "shell-bench.yaml")
        srt = FsmRuntime(Path(tmp) / "shell", {shell_wf.name: shell_wf}, {"note": "x"}, fsync=False)
        srt.enter(shell_wf.name)
        for i in range(opts.events):
            srt.observe("work", {"account_id": f"ACC{i % 200:06d}"}, True)
        shell_samples = []
        for _ in range(opts.shell_runs):
            token = srt.self_check("S_b")["token"]
            t0 = time.perf_counter_ns()
            assert srt.transition("S_b", token).ok
            shell_samples.append(time.perf_counter_ns() - t0)
            srt.transition("S_a", srt.self_check("S_a")["token"])
        report(f"guard, shell check (passing, {opts.events}+ events to files, /bin/sh)", shell_samples)


if __name__ == "__main__":
    main()
