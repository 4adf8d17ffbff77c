"""``study score``, ``study tables``, ``study figures`` and ``study predictions``.

All of them read session logs only. ``--allow-simulated`` admits a mix of simulated and real
sessions (everything is then titled SIMULATED, as it is for an all-simulated corpus);
``--include-exploratory`` adds exploratory and development-seed sessions.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from study.paths import figures_dir
from study.session_io.issues import LogError
from study.runner.conditions import ConditionError

from .loading import CorpusError
from .plan import PlanError
from .render import FORMATS, render
from .scoring import score_session_dir
from .tables import Analysis, build_tables, load_analysis, table6

_ERRORS = (LogError, CorpusError, PlanError, ConditionError)


def _analysis(sessions: Path | None, plan: Path | None, allow_simulated: bool,
              include_exploratory: bool) -> Analysis:
    try:
        a = load_analysis(sessions, plan=plan, allow_simulated=allow_simulated,
                          include_exploratory=include_exploratory)
    except _ERRORS as exc:
        raise click.ClickException(str(exc)) from None
    for warning in a.corpus.warnings:
        click.echo(f"warning: {warning}", err=True)
    return a


def corpus_options(f):
    """The options shared by the commands that read a whole sessions folder."""
    f = click.option("--include-exploratory", is_flag=True,
                     help="Add exploratory and development-seed sessions (titled accordingly).")(f)
    f = click.option("--allow-simulated", is_flag=True,
                     help="Allow simulated sessions beside real ones; every output is titled SIMULATED.")(f)
    f = click.option("--plan", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Prediction plan (default: preregistration/predictions.yaml).")(f)
    f = click.option("--sessions", type=click.Path(file_okay=False, path_type=Path),
                     help="Sessions folder (default: sessions/ of the project).")(f)
    return f


@click.command()
@click.argument("session_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object.")
def score(session_dir: Path, as_json: bool) -> None:
    """Score one session: FC, compliance, decided, correct, FC per window and escape routes."""
    try:
        s = score_session_dir(session_dir)
    except LogError as exc:
        raise click.ClickException(str(exc)) from None
    m = s.metrics()
    if as_json:
        click.echo(json.dumps(m, indent=2, sort_keys=True))
        return
    for warning in s.warnings:
        click.echo(f"warning: {warning}", err=True)
    head = "SIMULATED session" if s.simulated else "Session"
    click.echo(f"{head} {s.model} / {s.condition} / seed {s.seed}: status {s.status or 'incomplete'}"
               + (f", VOIDED ({s.void_reason})" if s.voided else ""))
    compliance = "-" if s.compliance is None else f"{100 * s.compliance:.1f}%"
    cost = "-" if s.cost_usd is None else f"${s.cost_usd:.2f}"
    click.echo(f"  FC {s.fc}  compliance {compliance}  decided {s.decided}/{len(s.order)}  "
               f"correct {s.correct}  cost {cost}  resumes {s.resumes}")
    click.echo("  FC per 50 accounts: " + "  ".join(str(x) for x in s.fc_windows))
    click.echo("  escape routes: " + "  ".join(f"{k}={'-' if v is None else v}"
                                                for k, v in s.routes.items()))


@click.command()
@corpus_options
@click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True,
              help="Output format (repeatable; default md).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Write table<N>.<format> files here instead of printing.")
def tables(sessions, plan, allow_simulated, include_exploratory, formats, out) -> None:
    """Regenerate Tables 1, 2, 6, 7 and 8 from the session logs (same bytes every run)."""
    a = _analysis(sessions, plan, allow_simulated, include_exploratory)
    _emit(build_tables(a), formats or ("md",), out)


@click.command()
@corpus_options
@click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True,
              help="Output format (repeatable; default md).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Write table6.<format> here instead of printing.")
def predictions(sessions, plan, allow_simulated, include_exploratory, formats, out) -> None:
    """Evaluate the preregistered predictions: observed values and verdicts (Table 6)."""
    a = _analysis(sessions, plan, allow_simulated, include_exploratory)
    _emit([table6(a)], formats or ("md",), out)


def _emit(tables_, formats, out: Path | None) -> None:
    if out is None:
        click.echo("\n".join(render(t, fmt) for t in tables_ for fmt in formats), nl=False)
        return
    out.mkdir(parents=True, exist_ok=True)
    for t in tables_:
        for fmt in formats:
            path = out / f"{t.name}.{fmt}"
            path.write_text(render(t, fmt), encoding="utf-8")
            click.echo(f"wrote {path}")


@click.command()
@corpus_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the PNG and PDF files (default: figures/ of the project).")
@click.option("--model", help="Model of Figure 1 (default: the first model of the plan present).")
@click.option("--seed", type=int, help="Seed of Figure 1 (default: the seed whose FSM - "
              "Remind-loop difference is closest to the mean, as in the paper).")
def figures(sessions, plan, allow_simulated, include_exploratory, out, model, seed) -> None:
    """Regenerate Figure 1, FC per window and the escape-route heatmap (PNG and PDF)."""
    from .figures import write_figures

    a = _analysis(sessions, plan, allow_simulated, include_exploratory)
    try:
        for path in write_figures(a, out or figures_dir(), model=model, seed=seed):
            click.echo(f"wrote {path}")
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
