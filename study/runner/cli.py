"""``study run``, ``study run-all`` and ``study status``.

``run`` and ``run-all`` first call the preregistration check (``study.prereg.check_before_run``)
and refuse when it fails; then every session is checked before anything is created
(``preflight.py``: seed and its frozen order, accounts, condition, model with the form of its API
key and base URL, limits, output folder, and one TCP connection to each real endpoint). A bad
input is one line saying what to do, with exit code 2.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from study.session_io.meta import read_meta
from study.session_io.vocabulary import status_voids

from .conditions import ConditionError, condition_names
from .limits import OVERRIDE_KEYS, LimitsError, parse_override
from .matrix import MatrixInterrupted, format_summary, run_matrix
from .models import ModelError
from .preflight import Checked, PreflightError, check_seeds, probe_endpoints, validate_specs
from .session import SessionExists, SessionSpec, prepare, run_session
from .status import format_table, scan
from .texts import TextError

_SETUP_ERRORS = (ConditionError, ModelError, LimitsError, TextError, SessionExists, ValueError)  # WorkflowError is a ValueError
#: Errors of a bad input (an option, the environment, a frozen file's value): exit code 2.
_INPUT_ERRORS = (PreflightError, ConditionError, ModelError, LimitsError)


class BadInput(click.ClickException):
    """A bad input found before anything was created: one line (``Error: ...``), exit code 2."""

    exit_code = 2


def preflight(specs: list[SessionSpec], *, probe: bool = True) -> list[Checked]:
    """Check every session before anything is created (``preflight.validate_specs``, then one TCP
    connection to each real endpoint unless ``probe`` is false); BadInput on the first bad input."""
    try:
        checked = validate_specs(specs)
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


def _limits(values: tuple[str, ...]) -> dict[str, float]:
    try:
        return dict(parse_override(v) for v in values)
    except LimitsError as exc:
        raise click.BadParameter(str(exc), param_hint="--limit") from None


def split_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_names(text: str, option: str, example: str) -> list[str]:
    """A comma-separated option (``--models``, ``--conditions``) that must name at least one thing."""
    names = split_list(text)
    if not names:
        raise click.BadParameter(f"{text!r} names nothing; give e.g. {example}", param_hint=option)
    return names


def parse_seeds(text: str) -> list[int]:
    """``2,3,4`` or ``2-9`` (or both mixed); BadParameter (exit code 2) for no seed, a reversed
    range, a seed below 1 or one given twice (``preflight.check_seeds``)."""
    try:
        return check_seeds(text)
    except PreflightError as exc:
        raise click.BadParameter(str(exc), param_hint="--seeds") from None


_SEED_HELP = ("Each needs a frozen order in preregistration/orders/ (planned seeds), "
              "unless the session is exploratory (--accounts).")


_common = [
    click.option("--accounts", type=int, default=None,
                 help="Only the first N accounts (1-200) of each seed's order (development; the session is exploratory, "
                      "so any seed may be used)."),
    click.option("--base-url", default=None,
                 help="Any Anthropic-compatible endpoint (a relay, a local server), http(s)://host[:port]; default: "
                      "the model's, or ANTHROPIC_BASE_URL. It must accept a TCP connection before anything starts."),
    click.option("--out", "out_root", type=click.Path(path_type=Path), default=None,
                 help="Sessions folder, writable, created if missing (default: sessions/ of the project)."),
    click.option("--limit", "limit", multiple=True, metavar="NAME=VALUE",
                 help=f"Override a limit of limits.yaml by name ({', '.join(OVERRIDE_KEYS)}) with a finite number > 0, "
                      "e.g. no_decision_s=60 (the session is exploratory)."),
]


def _with_common(fn):
    for option in reversed(_common):
        fn = option(fn)
    return fn


@click.command()
@click.option("--condition", required=True,
              help="A condition of preregistration/conditions.yaml: a preregistered one (e.g. FSM) or an "
                   "exploratory one (e.g. FSM-bound; its sessions are always exploratory).")
@click.option("--seed", type=int, required=True, help=f"The seed whose account order the batch follows. {_SEED_HELP}")
@click.option("--model", default=None, help="A model alias of preregistration/models.yaml (default haiku-4.5) or sim:<policy>.")
@_with_common
def run(condition: str, seed: int, model: str | None, accounts: int | None, base_url: str | None,
        out_root: Path | None, limit: tuple[str, ...]) -> None:
    """Run one session: one real Claude Code process over one batch, to its end.

    Example: study run --condition FSM --seed 2 --model sim:oracle --accounts 5
    (exits with status 2 on a bad input, before anything is created, and with status 3 when the
    session is voided).
    """
    overrides = _limits(limit)
    manifest = checked_manifest()
    spec = SessionSpec(condition=condition, seed=seed, model=model, accounts=accounts, out_root=out_root,
                       manifest_sha256=manifest, base_url=base_url, limit_overrides=overrides)
    preflight([spec])
    try:
        prepared = prepare(spec)
        click.echo(f"running {prepared.model.name} / {condition} / seed {seed} -> {prepared.session_dir}")
        folder = run_session(spec)
    except SessionExists as exc:  # held by another runner, or already run (B1: claim.py): one line, exit 2
        raise BadInput(str(exc)) from None
    except _SETUP_ERRORS as exc:
        raise click.ClickException(str(exc)) from None
    meta = read_meta(folder, strict=True)   # the runner has just written it; anything else is a bug
    click.echo(f"{meta.status}: {meta.decisions}/{meta.accounts} decided, ${meta.cost_usd or 0.0:.2f}, "
               f"{(meta.duration_s or 0.0) / 60:.1f} min, {meta.resumes} resume(s)")
    if meta.voided:
        reason = (meta.void_reason or "no reason recorded").splitlines()[0]
        click.echo(f"VOIDED ({reason}); rerun with study run-all --rerun-voided", err=True)
        raise SystemExit(3)


@click.command("run-all")
@click.option("--models", default=None, help="Comma-separated model aliases or sim:<policy> (default: the table's default model).")
@click.option("--conditions", default=None,
              help="Comma-separated conditions (default: the preregistered ones of conditions.yaml, in its order).")
@click.option("--seeds", required=True, help=f"Seeds, e.g. 2-9 or 2,3,4 (each once). {_SEED_HELP}")
@click.option("--jobs", type=click.IntRange(min=1), default=2, show_default=True,
              help="Sessions run in parallel (worker processes, at least 1).")
@click.option("--rerun-voided", is_flag=True,
              help="Rerun voided sessions and sessions left unfinished by a killed runner, from scratch (the earlier attempt is kept).")
@_with_common
def run_all(models: str | None, conditions: str | None, seeds: str, jobs: int, rerun_voided: bool, accounts: int | None,
            base_url: str | None, out_root: Path | None, limit: tuple[str, ...]) -> None:
    """Run a models x conditions x seeds matrix in parallel, resumably.

    Finished sessions are skipped, so after a crash the same command continues where it stopped.
    Exits with status 2 on a bad input (nothing is created), with status 3 when a session was
    voided or a worker failed.
    """
    overrides = _limits(limit)
    seed_list = parse_seeds(seeds)
    model_list = parse_names(models, "--models", "haiku-4.5,sim:oracle") if models is not None else [None]
    condition_list = parse_names(conditions, "--conditions", "Plain,FSM") if conditions is not None else None
    manifest = checked_manifest()
    if condition_list is None:   # the preregistered ones, read once the frozen files are checked
        try:
            condition_list = list(condition_names())
        except ConditionError as exc:
            raise BadInput(str(exc)) from None
    specs = [
        SessionSpec(condition=c, seed=s, model=m, accounts=accounts, out_root=out_root, manifest_sha256=manifest,
                    base_url=base_url, limit_overrides=overrides)
        for m in model_list for c in condition_list for s in seed_list
    ]
    preflight(specs)
    try:
        result = run_matrix(specs, jobs=jobs, rerun_voided=rerun_voided, root=out_root)
    except _SETUP_ERRORS as exc:
        raise click.ClickException(f"{exc}\nnothing was started") from None
    except MatrixInterrupted as stopped:
        click.echo(format_summary(stopped.result))
        raise click.ClickException(f"{stopped}: finished sessions are kept, interrupted ones are voided; the same "
                                   "command continues (add --rerun-voided to redo the interrupted ones)") from None
    click.echo(format_summary(result))
    if result.errors or any(status_voids(s) for _, s in result.ran):
        raise SystemExit(3)


@click.command()
@click.argument("folder", type=click.Path(path_type=Path, exists=True, file_okay=False), required=False)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per session instead of the table.")
def status(folder: Path | None, as_json: bool) -> None:
    """Show every session's status under FOLDER (default: sessions/), unfinished ones included."""
    from study.paths import sessions_dir

    rows = scan(folder or sessions_dir())
    if as_json:
        for row in rows:
            click.echo(json.dumps(row.as_dict()))
    else:
        click.echo(format_table(rows))
