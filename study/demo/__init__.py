"""``study demo``: the offline main job on the simulator, every output titled SIMULATED.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

Runs a small matrix through the real agent CLIs against the built-in simulator (no API key, no
network): Claude Code, and Codex CLI where it is installed (``study runtime install codex``), the
same sessions on each; then regenerates the tables and figures from the session logs it wrote,
exactly as ``study run-all`` + ``study tables`` + ``study figures`` would: each runtime's
sessions are rows of their own (``sim:drifting`` beside ``sim:drifting on Codex CLI``). Every output is titled SIMULATED:
the simulator's numbers show that the pipeline works, they are never results.

The demo lives apart from the study: its sessions, tables and figures go to ``demo/`` at the
project root (``--sessions``), not below ``sessions/``, so ``study tables``, ``study audit``
and the notebook never pick them up unless pointed at that folder. The tables it prints are
those of exactly the sessions this run asked for: a run with ``--accounts 20`` after one with
``--accounts 10`` adds sessions (``seed-2-first-20`` beside ``seed-2-first-10``) and tabulates
only its own.

The default matrix: the ``drifting`` policy (follows the SOP at first, then takes escape routes
with growing probability) under five conditions that span the paper's design, on two seeds,
with the first 10 accounts of each seed's order. Sessions already finished are skipped, so a
second run only redoes the tables.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click

from study.cli.vocabulary import examples, out_option, sessions_option
from study.paths import prereg_dir, project_root, shell_word
from study.sim.policies import POLICIES

DEFAULT_CONDITIONS = ("Plain", "Remind-loop", "FSM", "Stop-only", "Gates-only")
DEFAULT_POLICY = "drifting"
#: The demo's folder at the project root, beside (never inside) ``sessions/``.
DEMO_DIR = "demo"


def demo_dir() -> Path:
    """Where the demo writes by default: ``demo/`` at the project root (gitignored)."""
    return project_root() / DEMO_DIR


def demo_specs(out: Path, *, policy: str, conditions: tuple[str, ...], seeds: list[int], accounts: int,
               manifest_sha256: str, runtimes: tuple[str, ...] = ("claude-code",)) -> list:
    """The sessions of the demo matrix (one model on each runtime, the given conditions and seeds)."""
    from study.runner.session import SessionSpec

    return [
        SessionSpec(condition=c, seed=s, model=f"sim:{policy}", accounts=accounts, out_root=out,
                    manifest_sha256=manifest_sha256, runtime=r)
        for r in runtimes for c in conditions for s in seeds
    ]


def demo_runtimes(asked: str | None) -> tuple[tuple[str, ...], str | None]:
    """The runtimes the demo runs on: those asked for (``--runtime``), else Claude Code and Codex
    CLI where Codex CLI is installed; and the line that says why Codex CLI is left out, if it is."""
    from study.runtimes import runtime

    if asked is not None:
        return tuple(dict.fromkeys(a.strip() for a in asked.split(",") if a.strip())), None
    problem = runtime("codex").problem()
    if problem is not None:
        return ("claude-code",), f"note: Codex CLI is left out ({problem})"
    return ("claude-code", "codex"), None


def demo_analysis(root: Path, session_dirs: list[Path]):
    """The analysis of exactly ``session_dirs`` (the sessions this demo run asked for), not of
    everything under ``root``: earlier demo runs with other ``--accounts`` or conditions stay
    out of this run's tables. ``load_corpus`` loads exactly those sessions (its exclusion rule:
    voided, incomplete, broken logs; its duplicate check)."""
    from analysis.loading import load_corpus
    from study.protocol.plan import load_plan
    from analysis.tables import Analysis
    from study.session_io.folders import find_sessions

    root = root.resolve()
    dirs = [found for d in session_dirs if d.is_dir() for found in find_sessions(d.resolve())]
    if not dirs:
        return None
    corpus = load_corpus(root, allow_simulated=True, include_exploratory=True, dirs=dirs)
    corpus = dataclasses.replace(corpus, simulated=True, exploratory=True)
    return Analysis.build(corpus, load_plan(None), prereg_dir())


def shown(path: Path) -> str:
    """``path`` as the user would type it: relative to the current folder when below it."""
    try:
        return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd()) else str(path)
    except (OSError, ValueError):
        return str(path)


@click.command(epilog=examples(
    "study demo                                   # 10 sessions, 10 accounts each, into demo/",
    "study demo --accounts 20 --seeds 2           # more accounts: new sessions beside the others",
    "study demo --policy adversarial --conditions Plain,FSM",
    "study demo --sessions /tmp/demo --jobs 4",
    "study tables --sessions demo --include-exploratory   # the demo's tables again, by hand",
))
@sessions_option(help="Folder for the demo's sessions [default: demo/ of the project, beside sessions/, "
                      "so the study's analysis never reads them].")
@out_option(help="Folder for the demo's tables/ and figures/ [default: the folder of --sessions].")
@click.option("--policy", type=click.Choice(sorted(POLICIES)), default=DEFAULT_POLICY, show_default=True,
              help="Simulator policy; `study sim policies` describes each.")
@click.option("--conditions", default=",".join(DEFAULT_CONDITIONS), show_default=True,
              help="Comma-separated conditions (preregistration/conditions.yaml).")
@click.option("--seeds", default="2,3", show_default=True, help="Seeds, e.g. 2,3 or 2-4 (each once).")
@click.option("--accounts", type=click.IntRange(1, 200), default=10, show_default=True,
              help="Accounts per session (a prefix of the seed's order, 1-200).")
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True,
              help="Sessions run in parallel (at least 1).")
@click.option("--runtime", "runtimes", default=None, metavar="NAME[,NAME]",
              help="The agent runtimes to run on (claude-code, codex) [default: both where Codex CLI is installed, "
                   "else Claude Code].")
def demo(sessions: Path | None, out: Path | None, policy: str, conditions: str, seeds: str, accounts: int,
         jobs: int, runtimes: str | None) -> None:
    """Run a small offline matrix: real agent CLI sessions (Claude Code, and Codex CLI where it is
    installed) against the simulator, then print Tables 1, 2 and 8 of exactly those sessions as
    terminal tables, each runtime's sessions as rows of their own, write every table (md, csv,
    tex) and figure (all titled SIMULATED) and point at `study view`. Needs no API key and no
    network; finished sessions are skipped on a rerun."""
    # the analysis (scipy, pandas, matplotlib) is imported once the sessions have run, so that a bad
    # input is refused without waiting for it
    from study.runner.cli import checked_manifest, parse_names, parse_seeds, preflight
    from study.runner.matrix import run_matrix
    from study.runner.summary import format_summary
    from study.runner.session import prepare

    root = sessions or demo_dir()
    out = out or root
    seed_list, condition_list = parse_seeds(seeds), tuple(parse_names(conditions, "--conditions", "Plain,FSM"))
    runtime_list, left_out = demo_runtimes(runtimes)
    from study.protocol.runtimes import RUNTIMES, runtime_label

    unknown = [r for r in runtime_list if r not in RUNTIMES]
    if unknown or not runtime_list:
        raise click.BadParameter(f"unknown runtime {unknown[0] if unknown else runtimes!r}; the runtimes are "
                                 f"{', '.join(RUNTIMES)}", param_hint="--runtime")
    manifest = checked_manifest()
    specs = demo_specs(root, policy=policy, conditions=condition_list, seeds=seed_list,
                       accounts=accounts, manifest_sha256=manifest, runtimes=runtime_list)
    preflight(specs)   # nothing is created on a bad input (exit code 2)
    if left_out:
        click.echo(left_out)
    clis = " and ".join(runtime_label(r) for r in runtime_list)
    click.echo(f"SIMULATED demo: {len(specs)} real {clis} sessions against the simulator "
               f"(policy {policy}, {accounts} accounts each) -> {shown(root)}/")
    result = run_matrix(specs, jobs=jobs, root=root, title="study demo (SIMULATED)")
    click.echo(format_summary(result, root))

    from analysis import exclusions
    from analysis.figures import write_figures
    from analysis.render import render
    from analysis.tables import build_tables
    from analysis.terminal_tables import print_tables

    analysis = demo_analysis(root, [prepare(spec).session_dir for spec in specs])
    if analysis is None or not analysis.corpus.scores:
        raise click.ClickException(f"no demo session finished, so there is nothing to tabulate; see `study status "
                                   f"--sessions {shell_word(root)}`")
    tables_dir, figures_out = out / "tables", out / "figures"
    tables_dir.mkdir(parents=True, exist_ok=True)
    tables = build_tables(analysis)
    for table in tables:
        for fmt in ("md", "csv", "tex"):
            (tables_dir / f"{table.name}.{fmt}").write_text(render(table, fmt), encoding="utf-8")
    # To the terminal as terminal tables (bold / underlined cells), not as Markdown source.
    print_tables([t for t in tables if t.name in ("table1", "table2", "table8")])
    # The tables' notes point to the exclusion list: write it beside them, as `study tables --out` does.
    (tables_dir / "exclusions.md").write_text(exclusions.to_markdown(analysis), encoding="utf-8")
    (tables_dir / "exclusions.csv").write_text(exclusions.to_csv(analysis), encoding="utf-8")
    written = write_figures(analysis, figures_out)
    click.echo(f"tables: {shown(tables_dir)}/  figures: {len(written)} files in {shown(figures_out)}/")
    folders = ", ".join(f"sim-{policy}" + ("" if r == "claude-code" else f"@{r}") for r in runtime_list)
    click.echo(f"sessions: {shown(root)}/exploratory/{{{folders}}}/<condition>/seed-<n>-first-{accounts}/ "
               f"(outside the study's sessions/; analyse them with `study tables --sessions {shell_word(root)} "
               "--include-exploratory`)")
    click.echo("These numbers come from a scripted model (SIMULATED): they test the pipeline, not an agent.")
    click.echo(f"See what the agent did, session by session: study view --sessions {shell_word(root)}")
