"""Per-tool-call wall time, FSM vs Plain, with the simulator's ``oracle`` on the same batch.

Both sessions run in this process, one after the other, on the same seed and accounts, for a few
rounds (the medians are printed, since other work on the machine adds noise). The time
per call is the span from the first to the last logged tool call divided by the calls between
them (CLI start-up excluded). Goal: FSM / Plain <= 1.10. SIMULATED: the model answers at once,
so this measures the harness (CLI, MCP tools, hooks, FSM), not a model.

    python benchmarks/bench_sim_tool_call_time.py [--accounts 20] [--seed 1] [--also Remind Gates-only]
"""

from __future__ import annotations

import argparse
import json
from statistics import median

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
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each runs every condition once (default 3)")
    parser.add_argument("--also", nargs="*", default=[], metavar="CONDITION",
                        help="further conditions to time against Plain (e.g. Remind Stop-only Gates-only)")
    args = parser.parse_args()
    conditions = ("Plain", "FSM", *args.also)
    rounds = []  # per round: condition -> (per call, simulator share, calls, wall)
    for _ in range(args.repeat):
        rounds.append({c: (*per_call_seconds(d), wall) for c in conditions for d, wall in [run("oracle", c, args.seed, args.accounts)]})
    print(f"SIMULATED oracle, seed {args.seed}, {args.accounts} accounts, {args.repeat} rounds (medians; the machine is shared)")
    for c in conditions:
        per_call = median(r[c][0] for r in rounds)
        share = median(r[c][1] for r in rounds)
        print(f"  {c:11s} {rounds[0][c][2]:5d} tool calls  {1000 * per_call:6.1f} ms per call, of which the simulator "
              f"{1000 * share:4.1f} ms")
    for c in conditions[1:]:
        ratios = [r[c][0] / r["Plain"][0] for r in rounds]
        harness = [(r[c][0] - r[c][1]) / (r["Plain"][0] - r["Plain"][1]) for r in rounds]
        goal = f" (goal <= 1.10: {'met' if median(ratios) <= 1.10 else 'NOT met'})" if c == "FSM" else ""
        print(f"per-tool-call time {c} / Plain = {median(ratios):.3f} [rounds {min(ratios):.3f}-{max(ratios):.3f}]{goal}; "
              f"without the simulator's share {median(harness):.3f}")


if __name__ == "__main__":
    main()
