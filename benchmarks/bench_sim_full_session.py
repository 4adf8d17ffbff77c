"""Wall time of a full 200-account ``oracle`` FSM session on the simulator (goal <= 4 minutes).

One real Claude Code session (runner, MCP tools, FSM, hooks) against the simulator, which also
refuses prompts beyond its 200k-token context window, so the session compacts as a real one
would. Prints the time, the ratio to the 4-minute goal, the FC and the number of compactions.

    python benchmarks/bench_sim_full_session.py [--seed 1] [--accounts 200]
"""

from __future__ import annotations

import argparse

from _sim_sessions import events, run

from analysis.scoring import score_session_dir

GOAL_S = 240.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--accounts", type=int, default=None, help="default: the whole batch (200)")
    args = parser.parse_args()
    session_dir, wall = run("oracle", "FSM", args.seed, args.accounts)
    log = events(session_dir)
    calls = sum(e["kind"] == "tool_call" for e in log)
    compactions = sum(e["kind"] == "compaction" for e in log)
    score = score_session_dir(session_dir)
    print(f"SIMULATED oracle FSM session, seed {args.seed}: {score.decided} accounts, FC {score.fc}, "
          f"{calls} tool calls, {compactions} compactions")
    print(f"wall time {wall:.1f} s; time / 4-minute goal = {wall / GOAL_S:.3f} "
          f"({'met' if wall <= GOAL_S else 'NOT met'}); {1000 * wall / calls:.1f} ms per tool call")


if __name__ == "__main__":
    main()
