"""Per-tool-call wall time, FSM vs Plain, with the simulator's ``oracle`` on the same batch.

Both sessions run in this process, one after the other, on the same seed and accounts. The time
per call is the span from the first to the last logged tool call divided by the calls between
them (CLI start-up excluded). Goal: FSM / Plain <= 1.10. SIMULATED: the model answers at once,
so this measures the harness (CLI, MCP tools, hooks, FSM), not a model.

    python benchmarks/bench_sim_tool_call_time.py [--accounts 20] [--seed 1]
"""

from __future__ import annotations

import argparse
import json

from _sim_sessions import events, run, seconds


def per_call_seconds(session_dir) -> tuple[float, float, int]:
    """Wall time per tool call, and the simulator's own share of it (from its truth file)."""
    calls = [e for e in events(session_dir) if e["kind"] == "tool_call"]
    span = seconds(calls[-1]["t"]) - seconds(calls[0]["t"])
    truth = [json.loads(line) for line in (session_dir / "sim_truth.jsonl").read_text().splitlines()]
    busy = next(line["busy_s"] for line in truth if line["kind"] == "server")
    return span / (len(calls) - 1), busy / len(calls), len(calls)


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
    for condition, (per_call, sim_share, calls, wall) in results.items():
        print(f"  {condition:6s} {calls:5d} tool calls  {1000 * per_call:7.1f} ms per call, of which the simulator "
              f"{1000 * sim_share:5.1f} ms  session {wall:6.1f} s")
    ratio = results["FSM"][0] / results["Plain"][0]
    harness = (results["FSM"][0] - results["FSM"][1]) / (results["Plain"][0] - results["Plain"][1])
    print(f"per-tool-call time FSM / Plain = {ratio:.3f} (goal <= 1.10: {'met' if ratio <= 1.10 else 'NOT met'})")
    print(f"without the simulator's own time (CLI, tools, hooks, FSM only): FSM / Plain = {harness:.3f}")


if __name__ == "__main__":
    main()
