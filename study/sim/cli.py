"""``study sim``: run the simulator standalone, e.g. to point plain Claude Code (``study claude``) at it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from .policies import POLICIES
from .server import DEFAULT_MODEL_ID, SimServer


@click.group()
def sim() -> None:
    """The offline simulator: a scripted model server for the real Claude Code CLI."""


@sim.command()
@click.option("--policy", type=click.Choice(sorted(POLICIES)), default="oracle", show_default=True,
              help="How the simulated model behaves.")
@click.option("--seed", type=int, default=1, show_default=True, help="The policy's seed.")
@click.option("--port", type=int, default=0, help="Port on 127.0.0.1 (default: a free one).")
@click.option("--truth", "truth_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the ground truth (sim_truth.jsonl) here.")
@click.option("--compact-after", type=int, default=None, help="Force one compaction after this many decisions.")
@click.option("--compact-mode", type=click.Choice(["http400", "usage"]), default="http400", show_default=True)
@click.option("--fault", type=click.Choice(["http500", "quota", "drop"]), default=None,
              help="Fail every main-loop request from --fault-at on.")
@click.option("--fault-at", type=int, default=1, show_default=True, help="Main-loop request number of the first fault.")
def serve(policy: str, seed: int, port: int, truth_path: Path | None, compact_after: int | None,
          compact_mode: str, fault: str | None, fault_at: int) -> None:
    """Serve the Anthropic Messages API on 127.0.0.1 until Ctrl-C, and print the `study claude -p`
    command that runs the bundled Claude Code CLI against it with the SOP-Bench tools.

    \b
    Example:
      study sim serve --policy drifting --seed 2 --truth /tmp/sim_truth.jsonl
    """
    try:
        server = SimServer(policy, seed, truth_path, port=port, compact_after=compact_after,
                           compact_mode=compact_mode, fault=fault, fault_at=fault_at)
        server.start()
    except (ValueError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
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
