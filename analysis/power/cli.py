"""``study power``: how likely each preregistered verdict is, by number of seeds, before any run."""

from __future__ import annotations

import math
import re
from pathlib import Path

import click

from study.cli.vocabulary import FilePath, FolderPath, NothingToShow, UsageError, examples, out_option
from study.protocol.conditions import ConditionError, condition_names
from study.protocol.plan import PlanError, load_plan

from ..loading import CorpusError
from ..render import FORMATS, render
from .effects import EffectsError, from_sessions, load_effects
from .figure import write_figures
from .output import test_table, verdict_table
from .run import ALPHA, run_power

MAX_SEEDS = 50


def parse_seeds(text: str) -> list[int]:
    """``8``, ``3-15`` or ``3,5,8`` -> the seed counts; UsageError otherwise."""
    out: set[int] = set()
    for part in text.split(","):
        m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
        if not m:
            raise UsageError(f"--seeds {text!r}: write a count, a range or a list, e.g. 8, 3-15 or 3,5,8")
        lo, hi = int(m[1]), int(m[2] or m[1])
        if not 1 <= lo <= hi <= MAX_SEEDS:
            raise UsageError(f"--seeds {text!r}: counts lie in 1..{MAX_SEEDS}, low to high")
        out.update(range(lo, hi + 1))
    return sorted(out)


def _finite(value: float, name: str) -> float:
    """A float option that is a number (click's FloatRange lets NaN through: every comparison is false)."""
    if not math.isfinite(value):
        raise click.BadParameter(f"{value!r} is not a number; give a finite value", param_hint=name)
    return value


def _effects(effects: Path | None, sessions: Path | None, plan, allow_simulated: bool,
             include_exploratory: bool):
    if (effects is None) == (sessions is None):
        raise UsageError("give exactly one of --effects FILE (e.g. examples/effects/paper_table1.yaml) "
                         "or --sessions DIR (--from-sessions DIR)")
    if effects is not None:
        try:
            return load_effects(effects, plan, condition_names())
        except (EffectsError, ConditionError) as exc:
            raise UsageError(str(exc)) from None
    from ..loading import load_corpus

    try:
        corpus = load_corpus(sessions, allow_simulated=allow_simulated,
                             include_exploratory=include_exploratory)
    except CorpusError as exc:
        raise UsageError(str(exc)) from None
    if corpus.simulated and not allow_simulated:
        raise UsageError(f"{sessions}: the sessions are simulated (made by the built-in simulator), so their "
                         "power says nothing about a real model; pass --allow-simulated to resample them "
                         "anyway (every output is then titled SIMULATED)")
    if corpus.sessions.is_empty():
        raise NothingToShow(f"no analysable session under {sessions}; pass --include-exploratory to "
                            "add exploratory or development-seed sessions")
    return from_sessions(corpus.sessions, sessions, simulated=corpus.simulated)


@click.command(epilog=examples(
    "study power --effects examples/effects/paper_table1.yaml",
    "study power --effects my_effects.yaml --seeds 3-15 --draws 10000 --out power/",
    "study power --sessions sessions/ --include-exploratory --seeds 8 --format csv",
))
@click.option("--effects", type=FilePath(), metavar="FILE",
              help="Effect model (YAML): per model and condition, the expected session metrics.")
@click.option("--sessions", "--from-sessions", "from_dir",
              type=FolderPath(exists=True, file_okay=False), metavar="DIR",
              help="Resample the seeds of the sessions in DIR instead of an effect model "
                   "(--from-sessions is the same option).")
@click.option("--seeds", "seeds_text", default="3-15", show_default=True,
              help="Numbers of seeds per model to simulate: a count, a range or a list.")
@click.option("--draws", default=10_000, show_default=True, type=click.IntRange(100, 1_000_000),
              help="Simulated studies per number of seeds.")
@click.option("--rng-seed", default=0, show_default=True, type=click.IntRange(0, None),
              help="Seed of the random generator (same seed, same bytes).")
@click.option("--alpha", default=ALPHA, show_default=True, type=click.FloatRange(0, 1, min_open=True),
              callback=lambda ctx, param, value: _finite(value, "--alpha"),
              help="Significance level of the sign and Wilcoxon tests.")
@click.option("--plan", type=FilePath(exists=True),
              help="Prediction plan (default: preregistration/predictions.yaml).")
@click.option("--allow-simulated", is_flag=True,
              help="With --sessions: resample simulated sessions (a pilot on the simulator, alone or "
                   "beside real ones); every output is then titled SIMULATED. Refused without it.")
@click.option("--include-exploratory", is_flag=True,
              help="With --sessions: add exploratory and development-seed sessions.")
@click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True,
              help="Table format (repeatable; default md).")
@out_option(help="Write power_verdicts.*, power_tests.* and the figures power_curves_verdicts.png/.pdf "
                 "and power_curves_tests.png/.pdf into DIR "
                 "instead of printing the tables.")
def power(effects, from_dir, seeds_text, draws, rng_seed, alpha, plan, allow_simulated,
          include_exploratory, formats, out) -> None:
    """Simulate the study before running it: for each number of seeds, the probability of every
    verdict of every preregistered prediction, and the power of the paired sign and Wilcoxon
    tests. Exploratory tooling: it reads the plan and changes nothing."""
    seeds = parse_seeds(seeds_text)
    try:
        the_plan = load_plan(plan)
    except PlanError as exc:
        raise UsageError(str(exc)) from None
    model = _effects(effects, from_dir, the_plan, allow_simulated, include_exploratory)
    result = run_power(model, the_plan, seeds, draws=draws, rng_seed=rng_seed, alpha=alpha)
    tables = [verdict_table(result), test_table(result)]
    formats = formats or ("md",)
    if out is None:
        click.echo("\n".join(render(t, fmt) for t in tables for fmt in formats), nl=False)
        click.echo("(pass --out DIR for the figures of power curves)", err=True)
        return
    out.mkdir(parents=True, exist_ok=True)
    for t in tables:
        for fmt in formats:
            path = out / f"{t.name}.{fmt}"
            path.write_text(render(t, fmt), encoding="utf-8")
            click.echo(f"wrote {path}")
    for path in write_figures(result, out):
        click.echo(f"wrote {path}")
