"""Tokens the harness adds per account in each condition (``oracle``, same batch, simulator).

For each condition one session runs with the simulator's request log. Conversation tokens per
account: the growth of the main-loop conversation from the first to the last request (estimated
at 4 characters a token, the simulator's own estimate) divided by the accounts; per-request
tokens: the system prompt and tool definitions the CLI sends with every request. Each is
printed with its difference from Plain and its ratio to Plain, all measured in this run. The
batch is small enough that no compaction happens.

    python benchmarks/bench_sim_harness_tokens.py [--accounts 10] [--seed 1]
"""

from __future__ import annotations

import argparse

from _sim_sessions import run_logging_requests

from study.sim.protocol import estimate_tokens

CONDITIONS = ("Plain", "Sys", "Remind", "Plain-loop", "Sys-loop", "Remind-loop", "FSM", "Stop-only", "Gates-only")


def measure(condition: str, seed: int, accounts: int) -> tuple[float, int]:
    _, _, main = run_logging_requests("oracle", condition, seed, accounts)
    growth = estimate_tokens(main[-1]["messages"]) - estimate_tokens(main[0]["messages"])
    fixed = estimate_tokens([main[-1].get("system"), main[-1].get("tools")])
    return growth / accounts, fixed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = {c: measure(c, args.seed, args.accounts) for c in CONDITIONS}
    base_account, base_fixed = rows["Plain"]
    print(f"SIMULATED oracle, seed {args.seed}, {args.accounts} accounts; tokens estimated at 4 characters each")
    print(f"{'condition':12s} {'tok/account':>11s} {'+ vs Plain':>10s} {'x Plain':>8s} {'tok/request':>11s} {'+ vs Plain':>10s}")
    for condition, (per_account, fixed) in rows.items():
        print(f"{condition:12s} {per_account:11.0f} {per_account - base_account:10.0f} {per_account / base_account:8.2f} "
              f"{fixed:11d} {fixed - base_fixed:10d}")


if __name__ == "__main__":
    main()
