"""``study doctor``: is this install ready for a confirmatory run? The command to run first.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

It prints the runtimes (Python; each runtime's install as its adapter describes it) and what
each task family needs installed beyond the package (its ``availability`` part's ``doctor_line``,
through ``study.families.registry``: an optional extra, whether it is installed and which
version), then checks, each with what to fix when it fails:

- lock: every package of ``requirements.lock`` is installed at its locked version;
- frozen runtime: the runtime matches ``preregistration/runtime.json`` as the preregistration in
  effect has it (CLI, SDK, lock sha256; a different Python minor is only reported);
- each runtime (``study.runtimes``; Claude Code always, another one when ``--runtime`` names it,
  else a missing one is a note): its install as the adapter checks it (Claude Code: the CLI
  sessions run is the bundled one, and its binary reports the bundled version; Codex CLI:
  installed as the npm lock pins it), then one short session of the study's runner on it against
  the simulator (``probe.py``: the CLI starts, the PreToolUse gate's denials are honoured, the
  task's MCP tools are connected and record decisions, and a resume continues the session). The
  probe goes through the runtime seam, as every session does: nothing here knows an agent SDK;
  then one workspace command on it, as a workspace session runs it in the runtime's OS sandbox
  (``sandbox_probe.py``: the command runs, a write beside the workspace is refused; or why the
  sandbox cannot start, in one line, and what to install);
- the sessions folder is writable.

Exit code 0 only when all of them hold. The API keys are reported, never required: those the
models of the run in view need (``keys_needed``: the agent's models, ``--models`` or what ``study
run-all`` runs by default, the aliases of ``--runtime``'s runtime where one is named; and the
study's other models, a benchmark study's customer and judge, ``--study``), each with the models
that need it; without one the last line says what a confirmatory run still needs.
"""

from __future__ import annotations

import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from study.cli.vocabulary import examples, sessions_option
from study.errors import StudyError
from study.protocol.runtimes import DEFAULT_RUNTIME, RUNTIMES

INSTALL = "pip install --require-hashes -r requirements.lock && pip install --no-deps -e ."


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _faces() -> list:
    """Every runtime's face (``study.runtimes.base.Runtime``), the default one first."""
    from study.runtimes import runtime, runtime_names

    names = sorted(runtime_names(), key=lambda name: name != DEFAULT_RUNTIME)
    return [runtime(name) for name in names]


def _runtime_lines(needed: dict[str, list[str]] | None = None) -> list[tuple[str, str]]:
    """What the doctor shows of the install (nothing is run); ``needed``: the API keys to report
    (``keys_needed``; None: the main study's)."""
    needed = keys_needed() if needed is None else needed
    keys = "; ".join(f"{env} {'set' if os.environ.get(env, '').strip() else 'not set'} ({', '.join(users)})"
                     for env, users in needed.items()) or "none needed"
    base = "".join(f", {name}={os.environ[name]}" for name in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")
                   if os.environ.get(name))
    return [
        ("Python", f"{platform.python_version()} ({sys.executable})"),
        *[line for face in _faces() for line in face.describe()],
        *family_lines(),
        ("API keys", f"{keys}{base} (reported only: the simulator needs none; a real run needs a key or a relay)"),
    ]


def keys_needed(study: str | None = None, models: list[str] | None = None,
                runtime: str | None = None) -> dict[str, list[str]]:
    """The API keys a confirmatory run needs, each (the environment variable of models.yaml's
    ``api_key_env``) with what needs it, in order: the agent's models (``models``; else the
    aliases of models.yaml on ``runtime`` where it is not Claude Code, the runtime asked for;
    else the table's default, which ``study run-all`` runs without ``--models``), then the models
    ``study`` needs beside the agent's (its family's ``side_models``: a benchmark study's
    customer and judge). A ``sim:`` model needs none; an alias the table does not have is listed under
    ``?`` with what to do."""
    from study.families import family
    from study.protocol.models import SIM_PREFIX, ModelError, load_models
    from study.protocol.studies import load_study

    chosen = load_study(study)
    table = load_models(chosen.models_file())
    agents = list(models or [])
    if not agents and runtime is not None and runtime != DEFAULT_RUNTIME:
        agents = [alias for alias, entry in table.models.items() if entry.runtime == runtime]
    agents = agents or [table.default]
    users = [(alias, "the agent") for alias in agents]
    if not chosen.main:
        side = family(chosen.family).side_models(chosen)
        users += [(alias, f"{chosen.name}'s {role}") for role, alias in side.items() if alias is not None]
    needed: dict[str, list[str]] = {}
    for alias, role in users:
        if alias.startswith(SIM_PREFIX):
            continue
        entry = table.models.get(alias)
        if entry is None:
            error = ModelError(f"unknown model {alias!r}; models.yaml has {', '.join(table.models)}")
            needed.setdefault("?", []).append(f"{alias}: {error}")
            continue
        said = f"{alias}: {role}"
        if said not in needed.setdefault(entry.api_key_env, []):
            needed[entry.api_key_env].append(said)
    return needed


def family_lines() -> list[tuple[str, str]]:
    """Each task family's line of what it needs installed beyond the package (its
    ``availability`` part's ``doctor_line()``: a label and the words), in the registry's order.
    Reported only: the main study needs none of them."""
    from study.families.registry import parts

    return [module.doctor_line() for _family, module in parts("availability")]


def check_names(face) -> tuple[str, dict[str, str]]:
    """The names of a runtime's checks: the install's, then the probe's. The default runtime's
    are the plain words (``CLI``, ``CLI session``, ``hooks``, ...); another runtime's carry its
    name (``Codex CLI``, ``Codex session``, ``Codex hooks``, ...)."""
    from study.doctor.probe import CHECKS

    if face.name == DEFAULT_RUNTIME:
        return "CLI", {c: ("CLI session" if c == "session" else c) for c in CHECKS}
    short = face.label.removesuffix(" CLI")
    return face.label, {c: f"{short} {c}" for c in CHECKS}


def runtime_checks(face, required: bool) -> tuple[list[Check], str | None]:
    """One runtime's checks: its install (``check_install``), then, when it can run, one short
    session of the study's runner on it (``study.doctor.probe``). A runtime that cannot run here
    is a failure when ``required``, else a note (returned instead of checks)."""
    install, names = check_names(face)
    if face.problem() is not None and not required:
        return [], f"{face.label}: {face.problem()}"
    ok, detail, fix = face.check_install()
    checks = [Check(install, ok, detail, fix)]
    if face.problem() is not None:
        return checks + [Check(names[c], False, f"not tried: {face.label} cannot run here") for c in names
                         ], None
    from study.doctor.probe import run_probe
    from study.doctor.sandbox_probe import CHECK, run_sandbox_probe

    checks += [Check(names[f.check], f.ok, f.detail, f.fix) for f in run_probe(face.name, face.reinstall)]
    sandbox = run_sandbox_probe(face.name)
    name = CHECK if face.name == DEFAULT_RUNTIME else f"{face.label.removesuffix(' CLI')} {CHECK}"
    checks.append(Check(name, sandbox.ok, sandbox.detail, sandbox.fix))
    return checks, None


def check_lock() -> Check:
    from study.runtimes import lock as environment

    path = environment.lock_path()
    digest = environment.lock_sha256()
    if digest is None:
        return Check("lock", False, f"no lock file at {path}",
                     "install from a checkout of the study, which has requirements.lock: " + INSTALL)
    try:
        mismatches = environment.lock_mismatches()
        count = len(environment.locked_versions())
    except (OSError, ValueError) as exc:
        return Check("lock", False, f"{path.name} cannot be read: {exc}", "restore it from git")
    if mismatches:
        shown = ", ".join(f"{name} {found or 'missing'} (locked {locked})" for name, locked, found in mismatches[:5])
        more = f" and {len(mismatches) - 5} more" if len(mismatches) > 5 else ""
        return Check("lock", False, f"{len(mismatches)} of {count} packages differ from {path.name}: {shown}{more}",
                     INSTALL)
    return Check("lock", True, f"all {count} packages installed as {path.name} pins them (sha256 {digest[:12]}…)")


def check_frozen_runtime() -> Check:
    from study.paths import project_root
    from study.prereg.files import RUNTIME as rel

    root = project_root()
    if not (root / rel).is_file():
        return Check("frozen runtime", False, f"not frozen ({rel} does not exist in {root})",
                     "the freeze records the runtime: `study prereg runtime --write`, commit it, then `study prereg "
                     f"freeze` (or record it in a frozen plan: `study prereg amend --reason \"...\" {rel}`)")
    try:
        from study.prereg.chain import read_chain
        from study.prereg.runtime import check_runtime

        chain = read_chain(root)   # the manifest in effect, without the rest of verify
    except ImportError as exc:
        return Check("frozen runtime", False, f"cannot be checked: {exc}", "reinstall: " + INSTALL)
    if chain.freeze is None and not chain.manifest:
        return Check("frozen runtime", False, f"not frozen: there is no freeze in {root} ({chain.problems[0]})",
                     "freeze the plan with `study prereg freeze` once it is final")
    if chain.problems:
        return Check("frozen runtime", False, f"cannot be checked: the chain of records is broken ({chain.problems[0]})",
                     "see `study prereg verify`")
    runtime = check_runtime(root, chain.effective)
    if not runtime.ok:
        return Check("frozen runtime", False, "; ".join(runtime.failures), runtime.fix or "")
    detail = "; ".join([f"matches {rel} (CLI, SDK and lock)", *runtime.differences])
    return Check("frozen runtime", True, detail)


def check_sessions_folder(folder: Path | None = None) -> Check:
    """Can sessions be written to ``folder`` (default: the project's sessions/)? The same check
    ``study run`` makes before it starts (``preflight.check_out_root``)."""
    from study.paths import sessions_folder
    from study.runner.preflight import PreflightError, check_out_root

    folder = sessions_folder(folder)
    try:
        check_out_root(folder, "sessions folder")
    except PreflightError as exc:
        return Check("sessions folder", False, str(exc),
                     "give a folder this user can write with --sessions, or set STUDY_ROOT to a checkout you can write")
    state = "is writable" if folder.is_dir() else "does not exist yet and can be created"
    return Check("sessions folder", True, f"{folder} {state}")


def missing_for_a_real_run(environ: dict[str, str] | None = None,
                           needed: dict[str, list[str]] | None = None) -> list[str]:
    """What a confirmatory run still needs that doctor does not require: the API keys its models
    need (``needed``: ``keys_needed()``'s; the simulator needs none), each named with the models
    that need it."""
    environ = dict(os.environ if environ is None else environ)
    if needed is None:
        try:
            needed = keys_needed()
        except (StudyError, KeyError) as exc:
            return [f"the models table cannot be read ({exc})"]
    missing = []
    for env, users in needed.items():
        if env == "?":
            missing += users
        elif not environ.get(env, "").strip():
            relay = "ANTHROPIC_BASE_URL" if env == "ANTHROPIC_API_KEY" else "OPENAI_BASE_URL"
            missing.append(f"{env} is not set: {'; '.join(users)} (export {env}=..., or a relay's key with {relay})")
    return missing


@click.command(epilog=examples(
    "study doctor                                   # after the install; exit code 0 when ready",
    "study doctor --sessions /shared/study-sessions # also check a shared sessions folder is writable",
    "study doctor --runtime codex --models gpt-5.4-mini # Codex CLI too, and the keys its models need",
))
@sessions_option(help="The sessions folder to check for writing [default: sessions/ of the project].")
@click.option("--runtime", "runtime", type=click.Choice([name for name in RUNTIMES if name != DEFAULT_RUNTIME]),
              default=None, help="Also require this runtime (installed and working); without it, a missing one is only "
                                 "a note. Its models.yaml aliases are the agent's models whose keys are named.")
@click.option("--study", "study", default=None, metavar="NAME",
              help="The study to be run (`study prereg show` lists them) [default: the main study]: the keys its "
                   "models need beside the agent's are named too (a benchmark study's customer and judge).")
@click.option("--models", "models", default=None, metavar="ALIAS[,ALIAS]",
              help="The agent's models to be run (models.yaml aliases) [default: the aliases of --runtime's runtime, "
                   "else the table's default, as study run-all]: whose API keys are named.")
def doctor(sessions: Path | None, runtime: str | None, study: str | None, models: str | None) -> None:
    """Check that this install is ready for a confirmatory run: the runtime, the lock, the frozen
    runtime, each runtime's install and one short session of the study's runner on it against the
    simulator (hooks, MCP tools, resume), one workspace command in its sandbox, and the sessions folder. Says what to fix for each failure; exit code 0 only
    when everything holds (an API key is reported, not required)."""
    try:
        needed = keys_needed(study, [m.strip() for m in models.split(",") if m.strip()] if models else None, runtime)
    except StudyError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo("study doctor: is this install ready for a confirmatory run?")
    for name, value in _runtime_lines(needed):
        click.echo(f"      {name:<16} {value}")
    checks: list[Check] = []

    def show(*new: Check) -> None:
        for check in new:
            checks.append(check)
            click.echo(f"{'ok' if check.ok else 'FAIL':<5} {check.name:<16} {check.detail}")
            if not check.ok and check.fix:
                click.echo(f"      {'':<16} fix: {check.fix}")

    show(check_lock(), check_frozen_runtime())
    notes = []
    for face in _faces():
        if face.problem() is None or face.name in (DEFAULT_RUNTIME, runtime):
            click.echo(f"      {'':<16} (one short session of {face.label} against the simulator …)")
        checks_of, note = runtime_checks(face, face.name in (DEFAULT_RUNTIME, runtime))
        show(*checks_of)
        if note:
            notes.append(note)
    for note in notes:
        click.echo(f"note  {note}; Claude Code sessions do not need it")
    show(check_sessions_folder(sessions))
    failed = [c.name for c in checks if not c.ok]
    if failed:
        click.echo(f"Not ready: {len(failed)} check(s) failed ({', '.join(failed)}). "
                   "Fix them and run `study doctor` again.")
        sys.exit(1)
    missing = missing_for_a_real_run(needed=needed)
    if missing:
        click.echo("Ready for simulated sessions; a confirmatory run still needs: " + "; ".join(missing)
                   + ". Then `study prereg verify` (the frozen plan is intact).")
        return
    click.echo("Ready for a confirmatory run (then `study prereg verify`: the frozen plan is intact).")
