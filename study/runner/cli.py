"""``study run``, ``study run-all`` and ``study status`` (which lives in ``status_command.py``:
it imports nothing of the runner; re-exported here).

All three name the sessions folder ``--sessions DIR`` (``study.cli.vocabulary``); the old
spellings (``--out`` of run/run-all, the positional folder of status) still work for one release,
hidden, with a note on stderr. ``run-all --shard K/N`` runs one shard of the matrix
(``shard.py``; docs/cluster.md). While sessions run, a live display (``display.py``) shows each
session's progress; ``run-all`` ends with a summary naming the sessions that need a look
(``summary.py``). Exit codes: 0 ok, 1 a session failed (voided, worker error), 2 bad input,
3 interrupted.

``run`` and ``run-all`` first call the preregistration check (``study.prereg.check_before_run``)
and refuse when it fails; then every session is checked before anything is created
(``preflight.py``: seed and its frozen order, accounts, condition, model with the form of its API
key and base URL, limits, output folder, and one TCP connection to each real endpoint). A bad
input is one line saying what to do, with exit code 2.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from study.cli.legacy import old_spelling
from study.cli.vocabulary import FAILED, INTERRUPTED, FolderPath, TaskOrFile, UsageError, examples, sessions_option

from study.errors import StudyError
from study.paths import sessions_folder as resolve_sessions
from study.paths import shell_word
from study.protocol.conditions import ConditionError, condition_names
from study.families.units import of_study
from study.protocol.limits import OVERRIDE_KEYS, LimitsError, parse_override
from study.protocol.models import ModelError
from study.session_io.meta import is_rerunnable, read_meta
from study.session_io.vocabulary import SessionStatus, VoidReason, status_voids

from .display import MatrixDisplay, Watch, session_line
from .matrix import MatrixInterrupted, run_matrix
from .matrix_plan import write_plan
from .preflight import Checked, PreflightError, check_seeds, check_units, probe_endpoints, seeds_hint, validate_specs
from .session import SessionExists, SessionSpec, prepare, run_prepared
from .shard import ShardError, canonical, parse_shard, select
from .summary import format_summary

#: Errors of the setup (a frozen file, the model, a held session): every error the package raises on
#: purpose derives from StudyError; anything else is a bug and shows its traceback.
_SETUP_ERRORS = (StudyError,)
#: Errors of a bad input (an option, the environment, a frozen file's value): exit code 2.
_INPUT_ERRORS = (PreflightError, ConditionError, ModelError, LimitsError)


#: A bad input found before anything was created: one line (``Error: ...``), exit code 2.
BadInput = UsageError


def preflight(specs: list[SessionSpec], *, probe: bool = True) -> list[Checked]:
    """Check every session before anything is created (``preflight.validate_specs``; what each
    session of another family's study needs on this machine, ``preflight.check_units``; then one
    TCP connection to each real endpoint unless ``probe`` is false); BadInput on the first bad
    input. A dry run checks the first only: it plans without the units' data."""
    try:
        checked = validate_specs(specs)
        check_units(specs, checked)
        if probe:
            probe_endpoints(checked)
    except _INPUT_ERRORS as exc:
        raise BadInput(str(exc)) from None
    return checked


def checked_manifest() -> str:
    """The manifest hash of the frozen preregistration, or a ClickException saying what changed."""
    from study.prereg import PreregError, check_before_run

    try:
        return check_before_run()
    except PreregError as exc:
        raise click.ClickException(f"the preregistration check failed, nothing was started:\n{exc}") from None


def refuse_without_history(checked: list[Checked], without_git_history: bool) -> None:
    """A confirmatory session needs the project's git history, where the history of the freeze is
    checked: a copy without ``.git`` (a STUDY_ROOT copy, an unpacked archive) can hold a freeze of
    its own that nothing checks. Refused (exit 2) unless ``--without-git-history`` is given."""
    from study.paths import project_root
    from study.prereg.gitinfo import head_commit

    if without_git_history or all(c.exploratory for c in checked):
        return
    root = project_root()
    if head_commit(root) is None:
        raise UsageError(f"{root} is not a git checkout (or has no commit), so the history of its freeze cannot be "
                         "checked; run confirmatory sessions from the study's git checkout, or pass "
                         "--without-git-history to run them anyway (the audit then has no history to check)")


def _limits(values: tuple[str, ...]) -> dict[str, float]:
    try:
        pairs = [parse_override(v) for v in values]
    except LimitsError as exc:
        raise click.BadParameter(str(exc), param_hint="--limit") from None
    names = [name for name, _ in pairs]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise click.BadParameter(f"{', '.join(twice)} is given more than once; give each limit once",
                                 param_hint="--limit")
    return dict(pairs)


def split_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_names(text: str, option: str, example: str) -> list[str]:
    """A comma-separated option (``--models``, ``--conditions``) that must name at least one thing."""
    names = split_list(text)
    if not names:
        raise click.BadParameter(f"{text!r} names nothing; give e.g. {example}", param_hint=option)
    return names


def _runtimes(text: str | None, *, single: bool) -> list[str | None]:
    """``--runtime``: one runtime name (``run``) or several (``run-all``); [None] when not given."""
    if text is None:
        return [None]
    from study.protocol.runtimes import RUNTIMES

    names = parse_names(text, "--runtime", "codex")
    unknown = [n for n in names if n not in RUNTIMES]
    if unknown:
        raise click.BadParameter(f"unknown runtime {unknown[0]!r}; the runtimes are {', '.join(RUNTIMES)}",
                                 param_hint="--runtime")
    if single and len(names) > 1:
        raise click.BadParameter("study run runs one session on one runtime: give one (study run-all takes several)",
                                 param_hint="--runtime")
    return list(dict.fromkeys(names))


def _simulated(model: str | None) -> bool:
    from study.protocol.models import SIM_PREFIX

    return model is not None and model.startswith(SIM_PREFIX)


def parse_seeds(text: str, study: str | None = None) -> list[int]:
    """``2,3,4`` or ``2-9`` (or both mixed); BadParameter (exit code 2) for no seed, a reversed
    range, a seed below 1 or one given twice (``preflight.check_seeds``), saying what the seeds of
    ``study`` are (None: the main study's)."""
    try:
        return check_seeds(text, seeds_hint(study))
    except PreflightError as exc:
        raise click.BadParameter(str(exc), param_hint="--seeds") from None


_SEED_HELP = ("Each needs a frozen order in preregistration/orders/ (planned seeds), "
              "unless the session is exploratory (--accounts).")
_SESSIONS_HELP = "The sessions folder, writable, created if missing [default: sessions/ of the project]."


def sessions_folder(sessions: Path | None, old_out: Path | None) -> Path | None:
    """The sessions folder from ``--sessions`` or its old spelling ``--out`` (a hidden alias for one
    release): the rule of ``cli_legacy.old_spelling``."""
    return old_spelling(sessions, old_out, "note: --out is now --sessions for this command", "--out")


_common = [
    click.option("--study", "study", default=None, metavar="NAME",
                 help="A study of preregistration/studies/ (another task family's; `study prereg show` lists "
                      "them) [default: the main study]. Its sessions go to <sessions>/<study>/."),
    click.option("--task", "task", type=TaskOrFile(), default=None,
                 help="The SOP-Bench task: a vendored task's name or a manifest file (default: the project's task). "
                      "Another task's sessions than the project's are exploratory."),
    click.option("--accounts", type=int, default=None,
                 help="Only the first N accounts (1-200) of each seed's order (development; the session is exploratory, "
                      "so any seed may be used)."),
    click.option("--base-url", default=None,
                 help="Any endpoint of the model's API (Anthropic Messages for Claude Code, OpenAI Responses for Codex "
                      "CLI; a relay, a local server), http(s)://host[:port]; default: the model's, or ANTHROPIC_BASE_URL / "
                      "OPENAI_BASE_URL. It must accept a TCP connection before anything starts."),
    click.option("--runtime", "runtimes", default=None, metavar="NAME[,NAME]",
                 help="The agent runtime the simulator's sessions run on: claude-code (default) or codex; run-all takes "
                      "several (each sim:<policy> model on each). A model alias of models.yaml names its own runtime."),
    sessions_option(help=_SESSIONS_HELP),
    click.option("--out", "old_out", type=FolderPath(), default=None, hidden=True,
                 help="Old spelling of --sessions (kept for one release)."),
    click.option("--without-git-history", is_flag=True,
                 help="Run confirmatory sessions from a project root that is not a git checkout (the history of its "
                      "freeze is then not checked; see preregistration/README.md)."),
    click.option("--limit", "limit", multiple=True, metavar="NAME=VALUE",
                 help=f"Override a limit of limits.yaml by name ({', '.join(OVERRIDE_KEYS)}) with a finite number > 0, "
                      "e.g. no_decision_s=60 (the session is exploratory)."),
]


def _with_common(fn):
    for option in reversed(_common):
        fn = option(fn)
    return fn


@click.command(epilog=examples(
    "study run --condition FSM --seed 2",
    "study run --condition Remind-loop --seed 3 --model sonnet-4.6",
    "study run --condition FSM --seed 2 --model sim:oracle --accounts 5 --sessions /tmp/try",
    "study run --condition Plain --seed 2 --base-url http://127.0.0.1:8080 --limit spending_usd=2"))
@click.option("--condition", required=True,
              help="A condition of preregistration/conditions.yaml: a preregistered one (e.g. FSM) or an "
                   "exploratory one (e.g. FSM-bound; its sessions are always exploratory).")
@click.option("--seed", type=int, required=True, help=f"The seed whose account order the batch follows. {_SEED_HELP}")
@click.option("--model", default=None, help="A model alias of preregistration/models.yaml (default haiku-4.5) or sim:<policy>.")
@_with_common
def run(condition: str, seed: int, model: str | None, study: str | None, task: str | None, accounts: int | None,
        base_url: str | None, runtimes: str | None, sessions: Path | None, old_out: Path | None,
        without_git_history: bool, limit: tuple[str, ...]) -> None:
    """Run one session: one real agent CLI (Claude Code or Codex CLI, as the model says) over one
    batch, to its end.

    While it runs, a live display shows decided/N with the rate and the time left, the spend as
    streamed beside the spending cap, the elapsed time, resumes and stop-gate blocks (one line per
    event when the output is not a terminal). Exit status: 0 when the session ended (whatever
    its status), 1 when a failure voided it, 2 on a bad input (nothing is created), 3 when it was
    interrupted.
    """
    sessions = resolve_sessions(sessions_folder(sessions, old_out))   # once, here: passed down from now on
    overrides = _limits(limit)
    manifest = checked_manifest()
    runtime_list = _runtimes(runtimes, single=True)
    spec = SessionSpec(condition=condition, seed=seed, model=model, accounts=accounts, out_root=sessions,
                       manifest_sha256=manifest, base_url=base_url, limit_overrides=overrides, task=task,
                       runtime=runtime_list[0], study=study)
    refuse_without_history(preflight([spec]), without_git_history)
    try:
        prepared = prepare(spec)
        on = f" / {prepared.task.name} (exploratory: not the project's task)" if prepared.other_task else ""
        unit = f"{prepared.study.name} {prepared.session_dir.name}" if prepared.study and not prepared.study.main \
            else f"seed {seed}"
        click.echo(f"running {prepared.model.name} / {condition} / {unit}{on} -> {prepared.session_dir}")
        with Watch(MatrixDisplay([prepared.session_dir], sessions, title="study run", ours=lambda: {os.getpid()},
                                 units=of_study(prepared.study) if prepared.study and not prepared.study.main else None)):
            folder = run_prepared(prepared)
    except SessionExists as exc:  # held by another runner, or already run (B1: claim.py): one line, exit 2
        raise UsageError(str(exc)) from None
    except _SETUP_ERRORS as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:   # a full disk: the records could not be written (driver.RecordsUnwritable), one line
        raise click.ClickException(str(exc).splitlines()[0]) from None
    meta = read_meta(folder, strict=True)   # the runner has just written it; anything else is a bug
    click.echo(session_line(folder, meta))
    if meta.status != SessionStatus.COMPLETED:
        click.echo(f"inspect: study score {shell_word(folder)}")
    if meta.voided:
        reason = (meta.void_reason or "no reason recorded").splitlines()[0]
        click.echo(f"VOIDED ({reason}); rerun with study run-all --rerun-voided", err=True)
        raise SystemExit(INTERRUPTED if meta.void_kind == VoidReason.INTERRUPTED else FAILED)


@click.command("run-all", epilog=examples(
    "study run-all --seeds 2-9",
    "study run-all --models haiku-4.5,sonnet-4.6 --conditions Remind-loop,FSM --seeds 2-9 --jobs 4",
    "study run-all --model sim:oracle --conditions Plain,FSM --seeds 2-3 --accounts 20 --sessions /tmp/try",
    "study run-all --seeds 2-9 --shard ${SLURM_ARRAY_TASK_ID}/8 --sessions /shared/sessions   (docs/cluster.md)",
    "study run-all --seeds 2-9 --rerun-voided"))
@click.option("--models", "--model", "models", default=None,
              help="Comma-separated model aliases or sim:<policy> (default: the table's default model).")
@click.option("--conditions", default=None,
              help="Comma-separated conditions (default: the preregistered ones of conditions.yaml, in its order).")
@click.option("--seeds", default=None, help=f"Seeds, e.g. 2-9 or 2,3,4 (each once). {_SEED_HELP} Required for the "
              "main study; with --study, default: every session the study plans (its family's units).")
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True,
              help="Sessions run in parallel (worker processes, at least 1).")
@click.option("--shard", default=None, metavar="K/N",
              help="Run only shard K of N of the matrix (a deterministic split: every session is in exactly one "
                   "shard), for a cluster job array over a shared --sessions folder; see docs/cluster.md.")
@click.option("--rerun-voided", is_flag=True,
              help="Rerun voided sessions and sessions left unfinished by a killed runner, from scratch (the earlier attempt is kept).")
@click.option("--dry-run", is_flag=True,
              help="Print the plan (sessions to run, to skip and why) and the expected spend and wall time per model and "
                   "condition; create nothing, need no key.")
@_with_common
def run_all(models: str | None, conditions: str | None, seeds: str | None, jobs: int, shard: str | None, rerun_voided: bool,
            dry_run: bool, study: str | None, task: str | None, accounts: int | None, base_url: str | None,
            runtimes: str | None, sessions: Path | None, old_out: Path | None, without_git_history: bool,
            limit: tuple[str, ...]) -> None:
    """Run a models x conditions x seeds matrix in parallel, resumably.

    Finished sessions are skipped, so after a crash the same command continues where it stopped.
    A live display shows each running session (decided/N, rate and time left, spend beside the
    cap, elapsed, resumes, blocks) and the totals with the matrix's time left; one line per event
    when the output is not a terminal. The summary names the sessions that ended with accounts
    left, hit a limit or were voided, with the command to inspect each. Exit status: 0 when every
    session ended (whatever its status), 1 when a failure voided one or a worker failed, 2 on a bad
    input (nothing is created), 3 when interrupted.
    """
    sessions = resolve_sessions(sessions_folder(sessions, old_out))   # once, here: passed down from now on
    try:
        chosen = parse_shard(shard) if shard is not None else None
    except ShardError as exc:
        raise click.BadParameter(str(exc), param_hint="--shard") from None
    overrides = _limits(limit)
    seed_list = parse_seeds(seeds, study) if seeds is not None else _study_units(study)
    model_list = parse_names(models, "--models", "haiku-4.5,sim:oracle") if models is not None else [None]
    condition_list = parse_names(conditions, "--conditions", "Plain,FSM") if conditions is not None else None
    if dry_run:
        _dry_run(model_list, condition_list, seed_list, _runtimes(runtimes, single=False), chosen, jobs=jobs,
                 rerun_voided=rerun_voided, accounts=accounts, sessions=sessions, base_url=base_url,
                 overrides=overrides, task=task, study=study)
        return
    manifest = checked_manifest()
    if condition_list is None:   # the preregistered ones, read once the frozen files are checked
        condition_list = _study_conditions(study)
    runtime_list = _runtimes(runtimes, single=False)
    specs = [
        SessionSpec(condition=c, seed=s, model=m, accounts=accounts, out_root=sessions, manifest_sha256=manifest,
                    base_url=base_url, limit_overrides=overrides, task=task, runtime=r, study=study)
        for m in model_list for r in (runtime_list if _simulated(m) else [None]) for c in condition_list
        for s in seed_list
    ]
    checked = preflight(specs)   # the whole matrix, so every shard refuses the same bad input
    refuse_without_history(checked, without_git_history)
    write_plan(sessions, [c.session_dir for c in checked])
    title = "study run-all"
    if chosen is not None:
        mine = select(specs, chosen)
        total = len(canonical(specs))
        title += f", shard {chosen} ({len(mine)} of the matrix's {total} sessions)"
        click.echo(f"shard {chosen}: {len(mine)} of the matrix's {total} sessions")
        specs = mine
        if not specs:
            click.echo("this shard holds no session (more shards than sessions); nothing to run")
            return
    _print_estimate(specs, sessions, jobs=jobs, rerun_voided=rerun_voided)
    try:
        result = run_matrix(specs, jobs=jobs, rerun_voided=rerun_voided, root=sessions, title=title)
    except _SETUP_ERRORS as exc:
        raise click.ClickException(f"{exc}\nnothing was started") from None
    except MatrixInterrupted as stopped:
        click.echo(format_summary(stopped.result, sessions))
        click.echo(f"Error: {stopped}: finished sessions are kept, interrupted ones are voided; the same command "
                   "continues (add --rerun-voided to redo the interrupted ones)", err=True)
        raise SystemExit(INTERRUPTED) from None
    click.echo(format_summary(result, sessions))
    if result.errors or any(status_voids(s) for _, s in result.ran):
        raise SystemExit(FAILED)


def _study_units(study: str | None) -> list[int]:
    """Every session ``study`` plans (``--seeds`` left out): its family's units; the main study
    has no such default."""
    if study is None or study == "main":
        raise click.BadParameter("give the seeds to run, e.g. --seeds 2-9", param_hint="--seeds")
    from study.families import family
    from study.protocol.studies import StudyDefinitionError, load_study

    try:
        definition = load_study(study)
        return list(family(definition.family).units(definition))
    except (StudyDefinitionError, ValueError) as exc:
        raise click.BadParameter(f"study {study}'s sessions cannot be listed: {exc}", param_hint="--seeds") from None


def _study_conditions(study: str | None) -> list[str]:
    """The preregistered conditions of the study (``--study``; None: the main one), in its order."""
    from study.protocol.studies import StudyDefinitionError, load_study

    try:
        return list(condition_names(load_study(study).file("conditions.yaml")))
    except (ConditionError, StudyDefinitionError) as exc:
        raise UsageError(str(exc)) from None


def _print_estimate(specs: list[SessionSpec], sessions: Path, *, jobs: int, rerun_voided: bool) -> None:
    """The expected spend and wall time of the sessions run-all is about to run (``estimate.py``),
    beside the spending caps: printed before anything starts."""
    from .estimate import estimate, render
    from .matrix import plan_matrix

    try:
        planned = [prepare(p.spec) for p in plan_matrix(specs, rerun_voided=rerun_voided) if p.action != "skip"]
        for line in render(estimate(planned, sessions), jobs):
            click.echo(line)
    except Exception as exc:   # an estimate never stops a run: say why there is none
        click.echo(f"note: no estimate of the spend ({type(exc).__name__}: {exc})")


def _dry_run(model_list: list[str | None], condition_list: list[str] | None, seed_list: list[int],
             runtime_list: list[str | None], chosen: Any, *, jobs: int, rerun_voided: bool, accounts: int | None,
             sessions: Path, base_url: str | None, overrides: dict[str, float], task: str | None,
             study: str | None = None) -> None:
    """``run-all --dry-run``: the plan and its estimate; nothing is created and no key is needed
    (a real model's missing key is a placeholder here; nothing is sent anywhere)."""
    from study.prereg import PreregError, check_before_run

    from .estimate import environ_without_keys, estimate, render
    from .matrix import plan_matrix

    try:
        manifest: str | None = check_before_run()
        check_note = None
    except PreregError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        more = f" and {len(lines) - 3} more" if len(lines) > 3 else ""
        manifest, check_note = None, " ".join(lines[:1]) + " " + "; ".join(lines[1:3]) + more
    if condition_list is None:
        condition_list = _study_conditions(study)
    specs = [
        SessionSpec(condition=c, seed=s, model=m, accounts=accounts, out_root=sessions,
                    manifest_sha256=manifest or "dry-run", base_url=base_url, limit_overrides=overrides, task=task,
                    runtime=r, study=study)
        for m in model_list for r in (runtime_list if _simulated(m) else [None]) for c in condition_list
        for s in seed_list
    ]
    saved = dict(os.environ)
    os.environ.update(environ_without_keys(specs))
    try:
        try:
            validate_specs(specs)
        except _INPUT_ERRORS as exc:
            raise BadInput(str(exc)) from None
        if chosen is not None:
            specs = select(specs, chosen)
        planned = plan_matrix(specs, rerun_voided=rerun_voided)
        lines = render(estimate([prepare(p.spec) for p in planned if p.action != "skip"], sessions), jobs)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    runs = [p for p in planned if p.action != "skip"]
    skips = [p for p in planned if p.action == "skip"]
    click.echo(f"Dry run of study run-all: nothing is created, no key is needed. Sessions folder: {sessions}")
    if check_note:
        click.echo(f"note: the preregistration check fails now, so a real run would refuse: {check_note} "
                   "(`study prereg verify` says more)")
    click.echo(f"{len(runs)} session(s) to run, {len(skips)} to skip:")
    for p in planned:
        where = p.session_dir.relative_to(sessions) if p.session_dir.is_relative_to(sessions) else p.session_dir
        if p.action == "skip":
            why = f"{p.existing}: " + ("voided, rerun with --rerun-voided" if is_rerunnable(p.existing) else "finished")
            click.echo(f"  skip   {where} ({why})")
        else:
            click.echo(f"  {p.action:<6} {where}" + (f" (was {p.existing})" if p.existing else ""))
    for line in lines:
        click.echo(line)


from .status_command import status  # noqa: E402,F401  (re-exported: the module docstring)
