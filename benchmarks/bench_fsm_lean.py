"""What enforcement costs: Plain, Remind-loop, FSM and FSM-lean under ``oracle`` on the same batch.

One real Claude Code session per condition (runner, MCP tools, hooks, FSM) against the simulator
playing ``oracle``, which makes the same decisions under every condition, so every difference is
the harness's. Printed per condition, and as a ratio to Plain, in one run:

- tool calls per account (the session log's ``tool_call`` events, FSM tools and refused calls
  included) and model requests per account (main-loop requests the simulator answered);
- input tokens per account (every main-loop request's prompt: system prompt, tool definitions and
  conversation) and the part of it reported as cache reads, estimated at 4 characters a token as
  the simulator estimates them (``study.sim.protocol.estimate_tokens``);
- conversation tokens per account: what each request adds to the conversation (growth from one
  main-loop request to the next; the request after a compaction restarts the count), as in
  ``bench_sim_harness_tokens.py``; the FSM machinery's tokens are this growth over Remind-loop's,
  which carries the same per-account reminder;
- the simulated cost per account: the session's cost as the runner priced its streamed usage at
  the models table's prices (simulated, priced as claude-haiku-4-5);
- wall time per account.

Then the goals for FSM-lean: requests within 5% of Plain's, machinery tokens <= 25% of FSM's
(issue 16), cost <= Remind-loop's (issue 42: enforcement at the reminded agent's price; its moves
between accounts are quiet and its reminder leaves out the paragraph its workflow enforces, so its
conversation grows less than Remind-loop's and the machinery tokens are negative: 0.978x at 20
accounts). Once the CLI compacts (from about 50 accounts), the cost is set by where the
compactions fall more than by what an account adds: a conversation that grows more slowly
compacts a few requests later, at the largest context, so both conditions cost about the same
(1.005x at 200 accounts, seed 1; 1.014x before issue 42). This runs on Claude Code;
``bench_runtimes.py`` shows FSM-lean's cost over Remind-loop's on both runtimes.
SIMULATED numbers: they measure the harness, never a model.

    python benchmarks/bench_fsm_lean.py [--accounts 200] [--seed 1]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from _sim_sessions import events, run_logging_requests

from analysis.scoring import score_session_dir
from study.session_io.meta import read_meta
from study.sim.protocol import estimate_tokens

CONDITIONS = ("Plain", "Remind-loop", "FSM", "FSM-lean")
PRICED_AS = "claude-haiku-4-5"


@dataclass(frozen=True)
class Row:
    tool_calls: float
    requests: float
    input_tokens: float
    cache_reads: float
    conversation: float
    cost_usd: float
    wall_s: float
    fc: int
    compactions: int


def measure(condition: str, seed: int, accounts: int | None) -> Row:
    session_dir, wall, main = run_logging_requests("oracle", condition, seed, accounts)
    meta = read_meta(session_dir, strict=True)
    n = meta.accounts
    totals = [estimate_tokens([b.get("system"), b.get("tools"), b.get("messages")]) for b in main]
    news = [estimate_tokens(b["messages"][-1:]) for b in main]
    sizes = [estimate_tokens(b["messages"]) for b in main]
    growth = sum(b - a for a, b in zip(sizes, sizes[1:]) if b >= a)  # a compaction shrinks it: skipped
    log_events = events(session_dir)
    return Row(
        tool_calls=sum(e["kind"] == "tool_call" for e in log_events) / n,
        requests=len(main) / n,
        input_tokens=sum(totals) / n,
        cache_reads=sum(t - min(new, t) for t, new in zip(totals, news)) / n,
        conversation=growth / n,
        cost_usd=meta.cost_usd / n,
        wall_s=wall / n,
        fc=score_session_dir(session_dir).fc,
        compactions=sum(e["kind"] == "compaction" for e in log_events),
    )


def _goal(label: str, value: float, limit: float, ok: bool) -> str:
    return f"  {label}: {value:.3f} (goal {limit}) -> {'met' if ok else 'NOT met'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = {c: measure(c, args.seed, args.accounts) for c in CONDITIONS}
    plain = rows["Plain"]
    fields = [("tool calls", "tool_calls", ".2f"), ("requests", "requests", ".2f"), ("input tok", "input_tokens", ",.0f"),
              ("cache reads", "cache_reads", ",.0f"), ("conv tok", "conversation", ",.0f"),
              ("cost $", "cost_usd", ".5f"), ("wall s", "wall_s", ".3f")]
    print(f"SIMULATED oracle, seed {args.seed}, {args.accounts} accounts, per account; tokens estimated at 4 "
          f"characters each; cost simulated, priced as {PRICED_AS}")
    print(f"{'condition':12s}" + "".join(f" {label:>12s}" for label, _, _ in fields) + f" {'FC':>5s} {'compact':>7s}")
    for condition, row in rows.items():
        print(f"{condition:12s}" + "".join(f" {format(getattr(row, key), fmt):>12s}" for _, key, fmt in fields)
              + f" {row.fc:5d} {row.compactions:7d}")
    print("ratio to Plain")
    for condition, row in rows.items():
        print(f"{condition:12s}" + "".join(f" {getattr(row, key) / getattr(plain, key):12.3f}" for _, key, _ in fields))
    lean, fsm, remind = rows["FSM-lean"], rows["FSM"], rows["Remind-loop"]
    machinery_fsm = fsm.conversation - remind.conversation
    machinery_lean = lean.conversation - remind.conversation
    print(f"FSM machinery tokens per account (conversation over Remind-loop's): FSM {machinery_fsm:.0f}, "
          f"FSM-lean {machinery_lean:.0f}")
    print("goals for FSM-lean (issues 16 and 42):")
    print(_goal("requests / Plain's", lean.requests / plain.requests, "within 5%", abs(lean.requests / plain.requests - 1) <= 0.05))
    print(_goal("machinery tokens / FSM's", machinery_lean / machinery_fsm, "<= 0.25", machinery_lean <= 0.25 * machinery_fsm))
    print(_goal("cost / Remind-loop's", lean.cost_usd / remind.cost_usd, "<= 1.0", lean.cost_usd <= remind.cost_usd))


if __name__ == "__main__":
    main()
