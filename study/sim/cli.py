"""``study sim``: what the simulator's policies do, and the simulator standalone (e.g. to point plain
Claude Code, ``study claude``, at it)."""

from __future__ import annotations

import json
import textwrap
import time
from pathlib import Path

import click

from study.cli.vocabulary import UsageError, examples

from .policies import POLICIES
from .server import DEFAULT_MODEL_ID, SimServer


@click.group(epilog=examples(
    "study sim policies",
    "study run --model sim:drifting --condition FSM --seed 2 --accounts 20",
    "study sim serve --policy oracle",
))
def sim() -> None:
    """The offline simulator: a scripted model server for the real Claude Code CLI.

    Any `study run`, `run-all` or `demo` runs it with `--model sim:<policy>`: the real CLI, tools
    and hooks against a scripted model (no API key). Its sessions say SIMULATED; their numbers are
    never results. See docs/simulator.md.
    """


@sim.command(epilog=examples("study sim policies", "study run --model sim:blind --condition Plain --seed 2 --accounts 10"))
def policies() -> None:
    """Describe what each simulator policy does (use it as --model sim:<policy>)."""
    width = max(len(name) for name in POLICIES) + 2
    for name, cls in POLICIES.items():
        text = getattr(cls, "description", "") or "(no description)"
        lines = textwrap.wrap(text, width=max(40, 100 - width))
        click.echo(f"{name:<{width}}{lines[0]}")
        for line in lines[1:]:
            click.echo(" " * width + line)
    click.echo("\n" + textwrap.fill(
        "Every policy is deterministic given its seed (the session's seed) and reads only the conversation it "
        "is sent. It writes the routes it took to sim_truth.jsonl beside the session (docs/simulator.md).",
        width=100))
    from .families import family_policy_descriptions

    for family, study_hint in (("tau2", "a τ²-bench study (--study tau2-telecom; docs/tau2.md)"),
                               ("workspace", "a staged protocol's study (--study autoresearch, month-end-close; "
                                             "docs/staged.md)"),
                               # TEMPORARY until the family registry lands (each sim part's STUDIES)
                               ("swebench", "a SWE-bench study (--study swebench-local; docs/swebench.md)")):
        click.echo(f"\nThe simulator's policies for {study_hint}:")
        for role, described in family_policy_descriptions(family).items():
            for name, text in described.items():
                label = name if role == "agent" else f"{name} ({role})"
                lines = textwrap.wrap(text or "(no description)", width=max(40, 100 - width))
                click.echo(f"{label:<{width}}{lines[0]}" if len(label) < width else f"{label}\n{' ' * width}{lines[0]}")
                for line in lines[1:]:
                    click.echo(" " * width + line)


@sim.command(epilog=examples(
    "study sim serve --policy drifting --seed 2 --truth /tmp/sim_truth.jsonl",
    "study sim serve --policy oracle --compact-after 3 --compact-mode usage",
    "study sim serve --policy oracle --fault quota --fault-at 5",
))
@click.option("--policy", type=click.Choice(sorted(POLICIES)), default="oracle", show_default=True,
              help="How the simulated model behaves (`study sim policies` describes each).")
@click.option("--seed", type=int, default=1, show_default=True, help="The policy's seed.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port on 127.0.0.1 (default: a free one).")
@click.option("--truth", "truth_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the ground truth (sim_truth.jsonl) here.")
@click.option("--compact-after", type=click.IntRange(min=0), default=None,
              help="Force one compaction once this many decisions are made.")
@click.option("--compact-mode", type=click.Choice(["http400", "usage"]), default="http400", show_default=True,
              help="How --compact-after makes the CLI compact: http400 answers one request with HTTP 400 "
                   "'prompt is too long'; usage reports input tokens above the CLI's auto-compact threshold.")
@click.option("--fault", type=click.Choice(["http500", "quota", "drop"]), default=None,
              help="Fail every main-loop request from --fault-at on: http500 (HTTP 500), quota (HTTP 429, "
                   "quota exceeded) or drop (the connection closed mid-response); the session is voided.")
@click.option("--fault-at", type=int, default=1, show_default=True,
              help="Main-loop request number of the first fault.")
def serve(policy: str, seed: int, port: int, truth_path: Path | None, compact_after: int | None,
          compact_mode: str, fault: str | None, fault_at: int) -> None:
    """Serve the Anthropic Messages API on 127.0.0.1 until Ctrl-C, and print the `study claude -p`
    command that runs the bundled Claude Code CLI against it with the SOP-Bench tools.
    """
    try:
        server = SimServer(policy, seed, truth_path, port=port, compact_after=compact_after,
                           compact_mode=compact_mode, fault=fault, fault_at=fault_at)
        server.start()
    except (ValueError, OSError) as exc:   # a port in use, a truth file that cannot be written
        raise UsageError(str(exc)) from None
    env = server.cli_env()
    tools = json.dumps({"mcpServers": {"sopbench": {"command": "study", "args": ["tools", "serve", "--seed", str(seed),
                                                                               "--accounts", "5"]}}})
    click.echo(f"Simulator (policy {policy}, seed {seed}) listening on {server.base_url}. SIMULATED: not a real model.")
    click.echo("Point plain Claude Code (the bundled CLI, `study claude`) at it, with the SOP-Bench tools of the "
               "same seed (here 5 accounts):")
    click.echo("  " + " ".join(f"{k}={v}" for k, v in env.items()) + " \\")
    click.echo(f"  study claude -p 'Process the batch one account at a time.' --model {DEFAULT_MODEL_ID} \\")
    click.echo(f"    --mcp-config '{tools}' --allowedTools mcp__sopbench --tools ''")
    click.echo("Press Ctrl-C to stop.")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        click.echo(f"Stopped after {server.requests} requests.")
