"""Per-tool-call wall time, FSM vs Plain, with the simulator's ``oracle`` on the same batch.

Both sessions run in this process, one after the other, on the same seed and accounts. The time
per call is the span from the first to the last logged tool call divided by the calls between
them (CLI start-up excluded). Goal: FSM / Plain <= 1.10. SIMULATED: the model answers at once,
so this measures the harness (CLI, MCP tools, hooks, FSM), not a model.

    python benchmarks/bench_sim_tool_call_time.py [--accounts 20] [--seed 1]
"""

from __future__ import annotations

import argparse

from _sim_sessions import events, run, seconds


def per_call_seconds(session_dir) -> tuple[float, int]:
    calls = [e for e in events(session_dir) if e["kind"] == "tool_call"]
    span = seconds(calls[-1]["t"]) - seconds(calls[0]["t"])
    return span / (len(calls) - 1), len(calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = {}
    for condition in ("Plain", "FSM"):
        session_dir, wall = run("oracle", condition, args.seed, args.accounts)
        results[condition] = (*per_call_seconds(session_dir), wall)
    print(f"SIMULATED oracle, seed {args.seed}, {args.accounts} accounts")
    for condition, (per_call, calls, wall) in results.items():
        print(f"  {condition:6s} {calls:5d} tool calls  {1000 * per_call:7.1f} ms per call  session {wall:6.1f} s")
    ratio = results["FSM"][0] / results["Plain"][0]
    print(f"per-tool-call time FSM / Plain = {ratio:.3f} (goal <= 1.10: {'met' if ratio <= 1.10 else 'NOT met'})")


if __name__ == "__main__":
    main()
