"""The harness on each runtime: Claude Code beside Codex CLI, same policy, same batch.

One real session per runtime and condition (the runner, MCP tools, hooks and FSM; the simulator
playing ``oracle``, which makes the same decisions everywhere), so every difference is the
harness's and the CLI's. Printed per runtime and condition, measured in this run:

- model requests and tool calls per account;
- per-request tokens: what the CLI sends with every request besides the conversation (Claude
  Code: the system prompt and the tool definitions; Codex CLI: its developer messages and the tool
  definitions, the ``mcp__sopbench`` namespace included), estimated at 4 characters a token, as
  the simulator estimates them;
- conversation tokens per account: the conversation's growth from the first main-loop request to
  the last, divided by the accounts (the batch is small enough that neither CLI compacts);
- cost per account: the session's cost as recorded (each runtime priced as its stand-in model:
  Claude Haiku 4.5 on Claude Code, GPT-5.4 mini on Codex CLI; models.yaml) and, to compare the
  harnesses at one price, the same usage priced at Claude Haiku 4.5's list prices;
- wall time per account.

Then, per runtime, FSM-lean's cost over Remind-loop's (the enforcement's premium over the
strongest baseline; target <= 1.0) and Codex CLI's over Claude Code's per condition. SIMULATED
numbers: they measure the harness, never a model.

    python benchmarks/bench_runtimes.py [--accounts 20] [--seed 1] [--conditions Plain,Remind-loop,FSM,FSM-lean]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from _sim_sessions import events, run_logging_requests

from study.protocol.models import load_models
from study.protocol.models import price_usage
from study.runtimes.codex import pin
from study.session_io.meta import read_meta
from study.sim.protocol import estimate_tokens
from study.transcripts import claude_code, codex

RUNTIMES = ("claude-code", "codex")
CONDITIONS = ("Plain", "Remind-loop", "FSM", "FSM-lean")
TARGET_LEAN_OVER_REMIND = 1.0


@dataclass(frozen=True)
class Row:
    requests: float
    tool_calls: float
    fixed: int
    conversation: float
    cost: float
    cost_at_haiku: float
    wall_s: float


def _fixed_and_conversation(runtime: str, body: dict) -> tuple[int, list]:
    """(per-request tokens, the conversation) of one main-loop request body."""
    if runtime == "codex":
        items = body.get("input") or []
        fixed = [i for i in items if isinstance(i, dict) and i.get("role") == "developer"][:2]
        conversation = [i for i in items if i not in fixed]
        return estimate_tokens([fixed, body.get("tools")]), conversation
    return estimate_tokens([body.get("system"), body.get("tools")]), body.get("messages") or []


def measure(runtime: str, condition: str, seed: int, accounts: int) -> Row:
    folder, wall, main = run_logging_requests("oracle", condition, seed, accounts, runtime)
    fixed, first = _fixed_and_conversation(runtime, main[0])
    _, last = _fixed_and_conversation(runtime, main[-1])
    log = events(folder)
    meta = read_meta(folder, strict=True)
    lines = [line for line in (folder / "transcript.jsonl").read_bytes().split(b"\n") if line]
    import orjson

    records = [orjson.loads(line) for line in lines]
    responses = (codex if runtime == "codex" else claude_code).responses(records)
    haiku = load_models().models["haiku-4.5"].prices_per_mtok
    at_haiku = sum(price_usage(r["usage"], haiku) for r in responses)
    return Row(requests=len(main) / accounts,
               tool_calls=sum(e["kind"] == "tool_call" for e in log) / accounts, fixed=fixed,
               conversation=(estimate_tokens(last) - estimate_tokens(first)) / accounts,
               cost=(meta.cost_usd or 0.0) / accounts, cost_at_haiku=at_haiku / accounts, wall_s=wall / accounts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--accounts", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    args = parser.parse_args()
    conditions = [c for c in args.conditions.split(",") if c]
    runtimes = [r for r in RUNTIMES if r != "codex" or pin.problem() is None]
    if "codex" not in runtimes:
        print(f"note: Codex CLI left out ({pin.problem()})")
    rows = {(r, c): measure(r, c, args.seed, args.accounts) for r in runtimes for c in conditions}
    print(f"SIMULATED oracle, seed {args.seed}, {args.accounts} accounts; tokens estimated at 4 characters each; "
          "cost as recorded (Claude Code: priced as claude-haiku-4-5; Codex CLI: as gpt-5.4-mini) and at Haiku 4.5's prices")
    print(f"{'runtime':12s} {'condition':12s} {'req/acct':>8s} {'calls/acct':>10s} {'tok/request':>11s} "
          f"{'conv tok/acct':>13s} {'$/acct':>8s} {'$/acct@Haiku':>12s} {'s/acct':>7s}")
    for (runtime, condition), row in rows.items():
        print(f"{runtime:12s} {condition:12s} {row.requests:8.2f} {row.tool_calls:10.2f} {row.fixed:11d} "
              f"{row.conversation:13.0f} {row.cost:8.4f} {row.cost_at_haiku:12.4f} {row.wall_s:7.2f}")
    if {"Remind-loop", "FSM-lean"} <= set(conditions):
        print()
        for runtime in runtimes:
            ratio = rows[(runtime, "FSM-lean")].cost / rows[(runtime, "Remind-loop")].cost
            verdict = "met" if ratio <= TARGET_LEAN_OVER_REMIND else "NOT met"
            print(f"{runtime:12s} FSM-lean / Remind-loop cost: {ratio:.3f}x (target <= {TARGET_LEAN_OVER_REMIND}: {verdict})")
    if len(runtimes) == 2:
        print()
        for condition in conditions:
            a, b = rows[("claude-code", condition)], rows[("codex", condition)]
            print(f"{condition:12s} Codex CLI / Claude Code: tokens per request {b.fixed / a.fixed:.2f}x, conversation "
                  f"per account {b.conversation / a.conversation:.2f}x, cost per account at Haiku's prices "
                  f"{b.cost_at_haiku / a.cost_at_haiku:.2f}x, wall time {b.wall_s / a.wall_s:.2f}x")


if __name__ == "__main__":
    main()
