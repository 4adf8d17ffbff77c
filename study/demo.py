"""``study demo``: the offline main job.

Runs a small matrix through the real Claude Code CLI against the built-in simulator (no API key,
no network), then regenerates the tables and figures from the session logs it wrote, exactly as
``study run-all`` + ``study tables`` + ``study figures`` would. Every output is titled SIMULATED:
the simulator's numbers show that the pipeline works, they are never results.

The default matrix: the ``drifting`` policy (follows the SOP at first, then takes escape routes
with growing probability) under five conditions that span the paper's design, on two seeds,
with the first 10 accounts of each seed's order. Sessions already finished are skipped, so a
second run only redoes the tables.
"""

from __future__ import annotations

from pathlib import Path

import click

from study.paths import sessions_dir

DEFAULT_CONDITIONS = ("Plain", "Remind-loop", "FSM", "Stop-only", "Gates-only")
DEFAULT_POLICY = "drifting"


def demo_specs(out: Path, *, policy: str, conditions: tuple[str, ...], seeds: list[int], accounts: int,
               manifest_sha256: str) -> list:
    """The sessions of the demo matrix (one model, the given conditions and seeds)."""
    from study.runner.session import SessionSpec

    return [
        SessionSpec(condition=c, seed=s, model=f"sim:{policy}", accounts=accounts, out_root=out,
                    manifest_sha256=manifest_sha256)
        for c in conditions for s in seeds
    ]


@click.command()
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder for the demo's sessions, tables and figures (default: sessions/demo).")
@click.option("--policy", default=DEFAULT_POLICY, show_default=True,
              help="Simulator policy (see `study sim serve --help`).")
@click.option("--conditions", default=",".join(DEFAULT_CONDITIONS), show_default=True,
              help="Comma-separated conditions.")
@click.option("--seeds", default="2,3", show_default=True, help="Seeds, e.g. 2,3 or 2-4 (each once).")
@click.option("--accounts", type=click.IntRange(min=1), default=10, show_default=True,
              help="Accounts per session (a prefix of the seed's order, 1-200).")
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True,
              help="Sessions run in parallel (at least 1).")
def demo(out: Path | None, policy: str, conditions: str, seeds: str, accounts: int, jobs: int) -> None:
    """Run a small offline matrix on the simulator and print its tables (all titled SIMULATED)."""
    from analysis.render import render
    from analysis.tables import build_tables, load_analysis
    from analysis.figures import write_figures
    from study.runner.cli import checked_manifest, parse_names, parse_seeds, preflight
    from study.runner.matrix import format_summary, run_matrix

    out = out or sessions_dir() / "demo"
    seed_list, condition_list = parse_seeds(seeds), tuple(parse_names(conditions, "--conditions", "Plain,FSM"))
    manifest = checked_manifest()
    specs = demo_specs(out, policy=policy, conditions=condition_list, seeds=seed_list,
                       accounts=accounts, manifest_sha256=manifest)
    preflight(specs)   # nothing is created on a bad input (exit code 2)
    click.echo(f"SIMULATED demo: {len(specs)} real Claude Code sessions against the simulator "
               f"(policy {policy}, {accounts} accounts each) -> {out}")
    result = run_matrix(specs, jobs=jobs)
    click.echo(format_summary(result))

    analysis = load_analysis(out, allow_simulated=True, include_exploratory=True)
    tables_dir, figures_out = out / "tables", out / "figures"
    tables_dir.mkdir(parents=True, exist_ok=True)
    for table in build_tables(analysis):
        for fmt in ("md", "csv", "tex"):
            (tables_dir / f"{table.name}.{fmt}").write_text(render(table, fmt), encoding="utf-8")
        if table.name in ("table1", "table2", "table8"):
            click.echo("\n" + render(table, "md"))
    written = write_figures(analysis, figures_out)
    click.echo(f"tables: {tables_dir}/  figures: {len(written)} files in {figures_out}/")
    click.echo("These numbers come from a scripted model (SIMULATED): they test the pipeline, not an agent.")
