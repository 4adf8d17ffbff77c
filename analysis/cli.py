"""``study score``, ``study tables``, ``study figures`` and ``study predictions``.

All of them read session logs only. ``--allow-simulated`` admits a mix of simulated and real
sessions (everything is then titled SIMULATED, as it is for an all-simulated corpus);
``--include-exploratory`` adds exploratory and development-seed sessions. The sessions left out
are printed once, each with its reason (on stderr; with ``--out`` also as ``exclusions.md`` and
``exclusions.csv``). Asked for results that do not exist (no analysable session, a model or
seed without sessions), a command says why and what to do and exits 4 (``NothingToShow``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import click

from study.cli.vocabulary import (FilePath, FolderPath, NothingToShow, UsageError, examples, out_option,
                                  sessions_option)
from study.session_io.folders import EVENTS_NAME

from .render import FORMATS, LATEX_STYLES, NUMBERINGS

# Everything else is imported only where a command needs it: `study score` reads one log and
# never loads the tables, and a `study tables` or `study predictions` answered from the output
# cache (``analysis.output_cache``) loads neither the scorer nor the statistics stack (polars,
# numpy, scipy), whose import took longer than a cached answer.
if TYPE_CHECKING:
    from .analysis_data import Analysis
    from .output_cache import Output
    from .score_cache import ScoreCache


def _analysis(sessions: Path | None, plan: Path | None, allow_simulated: bool,
              include_exploratory: bool, cache: "ScoreCache | bool" = True) -> "Analysis":
    """The analysis of a sessions folder (``cache``: through the score cache); bad input: exit 2."""
    from study.protocol.amendments import AmendmentError
    from study.protocol.conditions import ConditionError
    from study.protocol.plan import PlanError
    from study.session_io.issues import LogError

    from .loading import CorpusError, MixedSessions, NoSuchFolder
    from .tables import load_analysis

    try:
        return load_analysis(sessions, plan=plan, allow_simulated=allow_simulated,
                             include_exploratory=include_exploratory, cache=cache)
    except (NoSuchFolder, MixedSessions, PlanError) as exc:   # bad input: exit 2, nothing written
        raise UsageError(str(exc)) from None
    except (LogError, CorpusError, ConditionError, AmendmentError) as exc:
        raise click.ClickException(str(exc)) from None


def _notes(a: "Analysis") -> list[str]:
    """The warnings and the exclusion list, printed once (stderr); with no analysable session,
    they are printed and the command exits 4, saying why."""
    from . import exclusions

    lines = [f"warning: {warning}" for warning in a.corpus.warnings] + exclusions.plain_lines(a)
    if not a.corpus.scores:
        for line in lines:
            click.echo(line, err=True)
        raise NothingToShow(f"{a.nothing_here()}.")
    return lines


def _from_cache(command: str, options: tuple, sessions: Path | None, plan: Path | None, allow_simulated: bool,
                include_exploratory: bool, compute: "Callable[[ScoreCache], Output]") -> tuple["Output", bool]:
    """The output of ``command`` and whether it came from the output cache (``analysis.output_cache``:
    nothing it was made from changed), else ``compute``'s through a fresh score cache, stored there."""
    from study.paths import prereg_dir, sessions_folder

    from .output_cache import OutputCache, head

    started = time.time()
    root = sessions_folder(sessions).resolve()
    outputs = OutputCache()
    key = head(command, (*options, allow_simulated, include_exploratory), root, prereg_dir(), plan)
    if root.is_dir() and (found := outputs.get(key, root)) is not None:
        return found, True
    from .score_cache import ScoreCache

    scores = ScoreCache()
    output = compute(scores)
    outputs.put(key, scores, prereg_dir(), plan, output, started)
    return output, False


def _cached_output(command: str, options: tuple, sessions: Path | None, plan: Path | None, allow_simulated: bool,
                   include_exploratory: bool, make: "Callable[[Analysis], tuple[list, tuple]]") -> "Output":
    """The output of ``command``: from the output cache when nothing it was made from changed,
    else made from the analysis by ``make`` (its tables and their formats) and stored there."""
    def compute(scores: "ScoreCache") -> "Output":
        a = _analysis(sessions, plan, allow_simulated, include_exploratory, scores)
        return _output(a, _notes(a), *make(a))

    return _from_cache(command, options, sessions, plan, allow_simulated, include_exploratory, compute)[0]


def corpus_options(f):
    """The options shared by the commands that read a whole sessions folder."""
    f = click.option("--include-exploratory", is_flag=True,
                     help="Add exploratory and development-seed sessions (titled accordingly).")(f)
    f = click.option("--allow-simulated", is_flag=True,
                     help="Allow simulated sessions beside real ones; every output is titled SIMULATED.")(f)
    f = click.option("--plan", type=FilePath(exists=True),
                     help="Prediction plan (default: preregistration/predictions.yaml).")(f)
    f = sessions_option()(f)
    return f


def _priced_as(session_dir: Path) -> str | None:
    """The model id a simulated session's cost is priced as (its meta, else models.yaml's)."""
    from study.protocol.models import load_models
    from study.session_io.meta import read_meta

    meta = read_meta(session_dir, strict=False)
    if meta is not None and getattr(meta, "model_id", None):
        return meta.model_id
    try:
        return load_models().simulator_model_id
    except Exception:   # an unreadable models.yaml only loses the name in the wording
        return None


@click.command(epilog=examples("study score sessions/haiku-4.5/FSM/seed-2",
                               "study score sessions/exploratory/sim-drifting/FSM/seed-2-first-20 --json"))
@click.argument("session_dir", type=FolderPath(exists=True, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the metrics as one JSON object.")
def score(session_dir: Path, as_json: bool) -> None:
    """Score one session: FC, compliance, decided, correct (also as SOP-Bench grades it), FC per
    window, escape routes and real turn ends."""
    from study.protocol.cost_text import cost_text

    from .clauses import window_label
    from .loading import score_or_reason, sopbench_correct_count

    if not (session_dir / EVENTS_NAME).is_file():
        raise UsageError(f"{session_dir}: no session log here (no {EVENTS_NAME}); pass a session "
                         "folder such as sessions/<model>/<condition>/seed-<n>.")
    found = score_or_reason(session_dir)
    if isinstance(found, tuple) and found[1].kind.value == "other-study":   # another family's session
        _score_study_session(session_dir, as_json)
        return
    if isinstance(found, tuple):
        raise click.ClickException(found[1].detail)
    s = found.score
    m = {**s.metrics(), "correct_sopbench": sopbench_correct_count(s), "turn_ends": s.turn_ends,
         **_proposal_counts(session_dir)}
    if as_json:
        click.echo(json.dumps(m, indent=2, sort_keys=True))
        return
    for warning in s.warnings:
        click.echo(f"warning: {warning}", err=True)
    head = "SIMULATED session" if s.simulated else "Session"
    click.echo(f"{head} {s.model} / {s.condition} / seed {s.seed}: status {s.status or 'incomplete'}"
               + (f", VOIDED ({s.void_reason})" if s.voided else ""))
    compliance = "-" if s.compliance is None else f"{100 * s.compliance:.1f}%"
    cost = cost_text(s.cost_usd, simulated=s.simulated,
                     model_id=_priced_as(session_dir) if s.simulated else None)
    click.echo(f"  FC {s.fc}  compliance {compliance}  decided {s.decided}/{len(s.order)}  "
               f"correct {s.correct} (SOP-Bench grader: {m['correct_sopbench']})  cost {cost}  "
               f"resumes {s.resumes}")
    click.echo("  FC per window: " + "  ".join(f"{window_label(i, len(s.order))}: {x}"
                                                for i, x in enumerate(s.fc_windows)))
    click.echo("  escape routes: " + "  ".join(f"{k}={'-' if v is None else v}"
                                                for k, v in s.routes.items()))
    click.echo(f"  ends_turn counts attempts to end the turn with accounts left (blocked too); "
               f"turns that did end: {s.turn_ends}")
    if "proposals" in m:
        click.echo(f"  workflow proposals: {m['proposals']} ({m['proposals_valid']} passing the checks); "
                   "none applied during the session (study fsm proposals --frames SESSION/fsm)")


def _score_study_session(session_dir: Path, as_json: bool) -> None:
    """``study score`` of another study's session: its family's outcome (``analysis.study_score``)."""
    from .study_score import study_summary

    try:
        data, lines = study_summary(session_dir)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
        return
    for line in lines:
        click.echo(line)


def _proposal_counts(session_dir: Path) -> dict[str, int]:
    """How many workflow changes the agent proposed (``proposal`` events) and how many passed the
    checks; {} for a session whose condition offers no proposals and that made none."""
    from study.session_io.reader import read_log
    from study.session_io.vocabulary import EventKind

    events = read_log(session_dir / EVENTS_NAME, strict=False).events
    factors = events[0].get("factors") if events and events[0].get("kind") == EventKind.SESSION_START else None
    found = [e for e in events if e.get("kind") == EventKind.PROPOSAL]
    if not found and not (isinstance(factors, dict) and factors.get("proposals")):
        return {}
    return {"proposals": len(found), "proposals_valid": sum(1 for e in found if e.get("valid") is True)}


_FORMAT = click.option("--format", "formats", type=click.Choice(FORMATS), multiple=True,
                       help="Output format (repeatable; default md).")


def _latex_options(command):
    """--numbering and --latex-style (LaTeX only; the defaults write today's bytes)."""
    command = click.option("--latex-style", type=click.Choice(LATEX_STYLES), default="default", show_default=True,
                           help="LaTeX: default as always; typeset sets >=, <=, <, > as math symbols, the "
                                "label column only as wide as its longest entry and \\tabcolsep 4pt.")(command)
    return click.option("--numbering", type=click.Choice(NUMBERINGS), default="paper", show_default=True,
                        help="LaTeX: paper keeps the paper's table numbers (\\setcounter before each caption); "
                             "none lets LaTeX number the tables in document order.")(command)


@click.command(epilog=examples("study tables", "study tables --format tex --out tables/",
                               "study tables --format tex --numbering none --latex-style typeset",
                               "study tables --sessions demo/ --include-exploratory --allow-simulated"))
@corpus_options
@_FORMAT
@_latex_options
@click.option("--plain-headers", "plain_headers_", is_flag=True,
              help="Table 8: head \"First token remark\" (a remark about the agent's token budget, not the "
                   "FSM's one-time tokens) \"First remark on tokens, context or budget\", with a note "
                   "defining it (default: the paper's header).")
@click.option("--study", "study", default=None, metavar="NAME[,NAME]",
              help="The tables of another study (preregistration/studies/): its task family's tables; several "
                   "studies of one family make one table [default: the main study].")
@out_option(help="Write table<N>.<format> files (and the exclusion list) into DIR instead of printing.")
def tables(sessions, plan, allow_simulated, include_exploratory, formats, numbering, latex_style, plain_headers_,
           study, out) -> None:
    """Regenerate Tables 1, 2, 6, 7 and 8 from the session logs (same bytes every run); with
    --study, another study's tables (its task family's: the paper's Tables 4, 5 and 10).

    Table 8's "First token remark (median decided)": the accounts decided when the agent's own
    text first mentioned tokens, context or budget (a remark about its token budget, not the
    FSM's one-time transition tokens), median over the sessions with such a remark."""
    formats = formats or ("md",)
    if study is not None and study.strip() != "main":
        def compute(scores: "ScoreCache") -> "Output":
            return _study_output(sessions, study, formats, (numbering, latex_style), allow_simulated,
                                 include_exploratory, scores)

        _emit(_from_cache("tables --study", (study, formats, numbering, latex_style), sessions, None, allow_simulated,
                          include_exploratory, compute)[0], out)
        return

    def make(a):
        from .plain_wording import plain_headers
        from .tables import build_tables

        built = build_tables(a)
        return plain_headers(built) if plain_headers_ else built, formats, (numbering, latex_style)

    _emit(_cached_output("tables", (formats, numbering, latex_style, plain_headers_), sessions, plan,
                         allow_simulated, include_exploratory, make), out)
    _unaudited_note(sessions, include_exploratory)


@click.command(epilog=examples("study predictions", "study predictions --format csv --out tables/"))
@corpus_options
@_FORMAT
@_latex_options
@out_option(help="Write table6.<format> (and the exclusion list) into DIR instead of printing.")
def predictions(sessions, plan, allow_simulated, include_exploratory, formats, numbering, latex_style, out) -> None:
    """Evaluate the preregistered predictions: observed values and verdicts (Table 6)."""
    formats = formats or ("md",)

    def make(a):
        from .tables import table6

        return [table6(a)], formats, (numbering, latex_style)

    _emit(_cached_output("predictions", (formats, numbering, latex_style), sessions, plan, allow_simulated,
                         include_exploratory, make), out)
    _unaudited_note(sessions, include_exploratory)


def _study_output(sessions: Path | None, study: str, formats, latex: tuple[str, str], allow_simulated: bool,
                  include_exploratory: bool, scores: "ScoreCache") -> "Output":
    """``study tables --study``: another study's tables (``analysis.study_tables``), rendered like
    the main study's; bad input exit 2, no analysable session exit 4. The session folders' keys
    are taken first (``scores``: what the output cache keeps the output under, as for the main
    study's tables)."""
    from study.paths import sessions_folder
    from study.protocol.studies import StudyDefinitionError
    from study.session_io.folders import find_sessions

    from .loading import CorpusError, MixedSessions, NoSuchFolder
    from .output_cache import Output
    from .render import LatexOptions, render
    from .study_tables import (StudyTablesError, exclusion_lines, exclusions_csv, exclusions_markdown,
                               study_tables)

    names = [n.strip() for n in study.split(",") if n.strip()]
    root = sessions_folder(sessions).resolve()
    if root.is_dir():
        scores.note_folders(list(find_sessions(root)), root)
    try:
        built, found = study_tables(root, names, include_exploratory=include_exploratory,
                                    allow_simulated=allow_simulated)
    except (StudyDefinitionError, StudyTablesError, NoSuchFolder, MixedSessions) as exc:
        raise UsageError(str(exc)) from None
    except CorpusError as exc:
        raise click.ClickException(str(exc)) from None
    notes = exclusion_lines(found)
    if not found.sessions:
        for line in notes:
            click.echo(line, err=True)
        raise NothingToShow(f"no analysable session of {', '.join(names)} under {found.root}")
    options = LatexOptions(*latex)
    files = tuple((f"{t.name}.{fmt}", render(t, fmt, options)) for t in built for fmt in formats)
    return Output(tuple(notes), files, (("exclusions.md", exclusions_markdown(found)),
                                        ("exclusions.csv", exclusions_csv(found))))


def _output(a: "Analysis", notes: list[str], tables_, formats, latex: tuple[str, str]) -> "Output":
    """What a command prints and writes for ``tables_`` in ``formats``: the notes (stderr), then
    a note for each empty table, each table in each format, and the exclusion list."""
    from . import exclusions
    from .output_cache import Output
    from .render import LatexOptions, render
    from .table_notes import NO_ROWS

    options = LatexOptions(*latex)
    for t in tables_:
        if not t.rows:
            notes.append(f"note: Table {t.number} is empty: "
                         + next((n[len(NO_ROWS):] for n in t.notes if n.startswith(NO_ROWS)), "no rows."))
    files = tuple((f"{t.name}.{fmt}", render(t, fmt, options)) for t in tables_ for fmt in formats)
    return Output(tuple(notes), files, (("exclusions.md", exclusions.to_markdown(a)),
                                        ("exclusions.csv", exclusions.to_csv(a))))


def _unaudited_note(sessions: Path | None, include_exploratory: bool) -> None:
    """One line at the end of the terminal output (stderr, never in a table file) saying the numbers
    are unaudited until `study audit` passes for exactly these sessions, unless it has
    (``study.session_io.audited``: the audit's result kept under the proofs of what it read)."""
    from study.paths import sessions_folder
    from study.session_io.audited import unaudited

    line = unaudited(sessions_folder(sessions), include_exploratory)
    if line is not None:
        sys.stdout.flush()
        click.echo(line, err=True)


def _emit(output: "Output", out: Path | None) -> None:
    for line in output.notes:
        click.echo(line, err=True)
    if out is None:
        click.echo("\n".join(text for _name, text in output.files), nl=False)
        return
    out.mkdir(parents=True, exist_ok=True)
    for name, text in output.files + output.exclusions:
        (out / name).write_text(text, encoding="utf-8")
        click.echo(f"wrote {out / name}")


@click.command(epilog=examples("study figures", "study figures --out figures/ --model haiku-4.5 --seed 3",
                               "study figures --sessions demo/ --include-exploratory --allow-simulated"))
@corpus_options
@out_option(help="Folder for the PNG and PDF files [default: figures/ of the project; for simulated "
                 "sessions, figures/ inside their --sessions folder].")
@click.option("--model", help="Model of Figure 1 (default: the first model of the plan present).")
@click.option("--seed", type=int, help="Seed of Figure 1 (default: the seed whose FSM - "
              "Remind-loop difference is closest to the mean, as in the paper).")
def figures(sessions, plan, allow_simulated, include_exploratory, out, model, seed) -> None:
    """Regenerate Figure 1, FC per window and the escape-route heatmap (PNG and PDF)."""
    def compute(scores: "ScoreCache") -> "Output":
        return _drawn_figures(sessions, plan, allow_simulated, include_exploratory, out, model, seed, scores)

    options = (None if out is None else str(Path(out).resolve()), model, seed)
    output, cached = _from_cache("figures", options, sessions, plan, allow_simulated, include_exploratory, compute)
    if cached:      # the same bytes matplotlib drew from these inputs, written again without importing it
        for line in output.notes:
            click.echo(line, err=True)
        for name, data in output.blobs:
            Path(name).parent.mkdir(parents=True, exist_ok=True)
            Path(name).write_bytes(data)
    for name, _data in output.blobs:
        click.echo(f"wrote {name}")


def _drawn_figures(sessions, plan, allow_simulated, include_exploratory, out, model, seed,
                   scores: "ScoreCache") -> "Output":
    """The figures drawn by matplotlib and written (their notes printed as the analysis makes
    them), kept as bytes for the output cache."""
    from .figures import NoFigure, default_out, write_figures
    from .output_cache import Output

    a = _analysis(sessions, plan, allow_simulated, include_exploratory, scores)
    notes = _notes(a)
    for line in notes:
        click.echo(line, err=True)
    try:
        paths = write_figures(a, out or default_out(a), model=model, seed=seed)
    except NoFigure as exc:
        raise NothingToShow(str(exc)) from None
    return Output(tuple(notes), (), (), tuple((str(Path(p).resolve()), Path(p).read_bytes()) for p in paths))
