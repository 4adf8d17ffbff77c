"""``study orders`` and ``study tools serve`` (also ``python -m sopbench_tools``)."""

from __future__ import annotations

from pathlib import Path

import click

from study.cli.vocabulary import UsageError, examples

from .orders import DEVELOPMENT_SEED, STUDY_SEEDS, OrderError, order_for_seed, write_orders


@click.command(epilog=examples(
    "study orders --seed 2 | head -5      # the first accounts of seed 2's batch",
    "study orders --write                 # (re)write preregistration/orders/ for the study's seeds",
))
@click.option("--seed", type=int, help="Print the order of this seed, one account id a line.")
@click.option("--write", is_flag=True,
              help=f"Write the orders of the study's seeds {', '.join(map(str, STUDY_SEEDS))} to preregistration/orders/.")
def orders(seed: int | None, write: bool) -> None:
    """Print or write the seeded account orders.

    The order of seed s is the 200 account ids sorted by sha256(f"{s}:{account_id}").
    """
    if seed is None and not write:
        raise click.UsageError("give --seed N to print an order, or --write to write the study's orders")
    if seed is not None:
        try:
            order = order_for_seed(seed)
        except OrderError as exc:   # e.g. the empty file a shell redirect into orders/ just created
            raise UsageError(f"{exc}; to freeze a new seed's order use `study prereg add-seed {seed} "
                             "--reason \"...\"`") from None
        click.echo("\n".join(order))
    if write:
        from study.paths import prereg_dir

        out_dir = prereg_dir() / "orders"
        before = {p.name: p.read_bytes() for p in out_dir.glob("seed-*.txt")} if out_dir.exists() else {}
        for path in write_orders(out_dir):
            state = "unchanged" if before.get(path.name) == path.read_bytes() else "written"
            click.echo(f"{state}: {path}", err=True)


@click.group(epilog=examples("study tools serve --seed 2 --accounts 5 --state-dir /tmp/tool-state"))
def tools() -> None:
    """The SOP-Bench tool server (MCP over stdio)."""


@click.command(epilog=examples(
    "study tools serve --seed 2 --accounts 5",
    "study claude -p 'Process the batch.' --mcp-config '{\"mcpServers\": {\"sopbench\": {\"command\": \"study\", "
    "\"args\": [\"tools\", \"serve\", \"--seed\", \"2\"]}}}' --allowedTools mcp__sopbench --tools ''",
))
@click.option("--seed", type=int, default=DEVELOPMENT_SEED, show_default=True,
              help="The seed whose account order is the batch.")
@click.option("--accounts", type=click.IntRange(1), default=None,
              help="Serve only the first N items of the order (exploratory runs). Default: all of them.")
@click.option("--state-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the records and decisions; a restart on the same folder keeps them. "
                   "Default: memory only.")
@click.option("--task", "task_name", default=None, metavar="TASK",
              help="The SOP-Bench task (a name from `study task list`, or a manifest .yaml). "
                   "Default: the preregistered referral_abuse_detection_v2.")
def serve(seed: int, accounts: int | None, state_dir: Path | None, task_name: str | None) -> None:
    """Serve the SOP-Bench tools over stdio (MCP) for one batch; messages go to stderr."""
    from .dataset import TaskDataError
    from .server import serve_stdio
    from .state_log import ToolStateError
    from .tasks import TaskError, load_task
    from .toolbox import ToolBox

    try:
        task = load_task(Path(task_name) if task_name.endswith((".yaml", ".yml")) else task_name) if task_name else None
        box = ToolBox.for_seed(seed, accounts, state_dir, task=task)
    except TaskError as exc:
        raise UsageError(exc.render().splitlines()[0]) from None
    except (ValueError, ToolStateError, TaskDataError) as exc:
        raise UsageError(str(exc)) from None
    where = f"state in {state_dir}" if state_dir else "state in memory only (give --state-dir to keep it)"
    click.echo(f"sopbench tools: seed {seed}, {len(box.order)} {box.task.item.plural}, {len(box.decisions)} decided, "
               f"{where}", err=True)
    serve_stdio(box)


tools.add_command(serve)
