"""Checks of everything a session needs, made before anything is created.

A bad input must never become a session (a voided one in the confirmatory folder, a session whose
spending cap is ``nan``, a confirmatory session of a seed nobody planned) nor a traceback: each
check raises ``PreflightError`` with one line saying what is wrong and what to do, and the CLI
turns it into exit code 2.

- ``validate_spec(spec)``: the seed (positive; a confirmatory session needs a seed whose order is
  frozen in ``preregistration/orders/``), the account count, the condition, the model with the
  form of its API key and base URL, the limits (finite, positive) and the output folder
  (a folder one can be made in, not a file, not inside preregistration/ or another of the
  package's source folders: ``SOURCE_FOLDERS``). It leaves nothing
  behind; ``session.prepare()`` calls it first.
- ``validate_specs(specs)``: every spec, and no session twice.
- ``probe_endpoints(specs)``: one TCP connection (seconds) to each distinct endpoint of a real
  model (through the proxy the CLI would use, if one is set), so that a dead endpoint is refused
  as ``cannot reach <url>: ...`` instead of voiding a session minutes later. The simulator needs
  no probe. The CLI calls it after ``validate_specs``.
- ``check_seeds(text)``, ``check_api_key``, ``check_base_url``, ``check_out_root``: the single
  checks, for the CLI and for tests (the key's and the endpoint's are ``endpoints.py``'s, named
  here for the callers that have always found them here).
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sopbench_tools.orders import describe_seeds, frozen_order, frozen_seeds, order_file_name

from study.protocol.conditions import CliSettings, Condition, load_conditions
from study.protocol.limits import Limits, load_limits
from study.protocol.models import ResolvedModel, resolve_model
from study.session_io.folders import session_dir_for

from .endpoints import PROBE_TIMEOUT_S, check_api_key, check_base_url, probe_endpoint, probe_endpoints  # noqa: F401 (named here)
from .preflight_error import PreflightError


@dataclass(frozen=True)
class Checked:
    """What ``validate_spec`` resolved on the way (nothing is created)."""

    model: ResolvedModel
    limits: Limits
    exploratory: bool
    out_root: Path
    condition: Condition
    cli_settings: CliSettings   # conditions.yaml's, read with the condition
    #: the session's task (``sopbench_tools.tasks.Task``): ``--task``, else the project's
    task: Any = None
    #: the study (``study.protocol.studies.StudyDef``): the main one, or another family's
    study: Any = None
    #: the session's folder
    session_dir: Path | None = None


# ----- seeds -------------------------------------------------------------------------------------

def check_seed(seed: int, *, exploratory: bool) -> None:
    """A seed is a whole number >= 1; a confirmatory session needs a seed with a frozen order."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 1:
        raise PreflightError(f"seed {seed!r} is not a seed: seeds are whole numbers from 1 "
                             f"(planned: {describe_seeds(frozen_seeds())})")
    try:
        frozen = frozen_order(seed)
    except ValueError as exc:  # OrderError: a damaged order file
        raise PreflightError(str(exc)) from None
    if frozen is None and not exploratory:
        raise PreflightError(
            f"seed {seed} has no frozen order in preregistration/orders/ (planned seeds: "
            f"{describe_seeds(frozen_seeds())}), so it cannot make a confirmatory session: add a replacement "
            f"seed (numbered from 10 upward, plan section 7) by an amendment that freezes its order "
            f"(study prereg add-seed {seed} --reason \"...\", which writes preregistration/orders/"
            f"{order_file_name(seed)} and records the amendment), or run it exploratory with --accounts N"
        )


#: The most seeds one command may name, and the largest seed (the plan's are 1-15; replacement
#: seeds are numbered from 10 upward).
MAX_SEEDS = 1000
MAX_SEED = 1_000_000
_SEED_PART = re.compile(r"([0-9]+)(?:-([0-9]+))?")


#: What the main study's seeds are, for an error about ``--seeds`` (a study's own: ``seeds_hint``).
MAIN_SEEDS_HINT = "the plan's seeds are 1-15: give e.g. 2-9"


def check_seeds(text: str, hint: str = MAIN_SEEDS_HINT) -> list[int]:
    """``2,3,4`` or ``2-9`` (or both mixed) as a list of seeds, in ASCII digits; refuses an empty
    list, a reversed or malformed range, a seed below 1 or above ``MAX_SEED``, more than
    ``MAX_SEEDS`` seeds and a seed given twice. ``hint``: what the study's seeds are, said after
    a count out of bounds (the main study's by default)."""
    seeds: list[int] = []
    for part in (p.strip(" ") for p in text.split(",")):
        if not part:
            continue
        match = _SEED_PART.fullmatch(part)
        if match is None:
            raise PreflightError(f"{part!r} is not a seed or a range: give seeds as 2,3,4 or 2-9 "
                                 "(whole numbers from 1, ASCII digits)")
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) is not None else first
        if first < 1:
            raise PreflightError(f"{part!r}: seeds are whole numbers from 1 (give seeds as 2,3,4 or 2-9)")
        if last < first:
            raise PreflightError(f"{part!r} is an empty range: write the lower seed first ({last}-{first})")
        if last > MAX_SEED or len(seeds) + last - first + 1 > MAX_SEEDS:
            raise PreflightError(f"{text!r} names more seeds than one command runs (at most {MAX_SEEDS} seeds, each at "
                                 f"most {MAX_SEED}); {hint}")
        seeds += range(first, last + 1)
    if not seeds:
        raise PreflightError(f"{text!r} names no seed: give seeds as 2,3,4 or 2-9")
    twice = sorted({s for s in seeds if seeds.count(s) > 1})
    if twice:
        raise PreflightError(f"{text!r} names seed(s) {', '.join(map(str, twice))} more than once: give each seed once")
    return seeds


def seeds_hint(study: str | None) -> str:
    """What the seeds of ``study`` are, for an error about ``--seeds`` (its family's units: a
    benchmark study's positions in its frozen order, a protocol study's preregistered seeds)."""
    if study is None or study == "main":
        return MAIN_SEEDS_HINT
    try:
        from study.families import family
        from study.protocol.studies import load_study

        definition = load_study(study)
        units = sorted(family(definition.family).units(definition))
    except Exception:   # a study that cannot be read is refused, with its reason, once the seeds are known
        return "give e.g. 1-2"
    if not units:
        return "give e.g. 1-2"
    shown = f"{units[0]}-{units[-1]}" if units == list(range(units[0], units[-1] + 1)) else ",".join(map(str, units))
    return f"study {study}'s seeds are {shown}: give e.g. {units[0]}-{units[min(len(units), 2) - 1]}"


# ----- the output folder ---------------------------------------------------------------------------

#: The package's source folders (of its checkout, and of the project's root): sessions written
#: inside one would turn the checkout dirty and mix records into the code (``check_out_root``).
SOURCE_FOLDERS = ("study", "analysis", "sopbench_tools", "preregistration")


def source_folders() -> list[Path]:
    """The package's source folders, resolved: ``SOURCE_FOLDERS`` of the project's root and of the
    checkout (or install) the running package comes from, and where each of its packages is."""
    import importlib.util

    from study.paths import prereg_dir, project_root

    found = [prereg_dir()]
    for base in (project_root(), Path(__file__).resolve().parents[2]):
        found += [base / name for name in SOURCE_FOLDERS]
    for package in SOURCE_FOLDERS[:3]:
        spec = importlib.util.find_spec(package)
        found += [Path(p) for p in (spec.submodule_search_locations or [])] if spec is not None else []
    return list(dict.fromkeys(p.resolve() for p in found))


def check_out_root(root: Path, label: str = "--sessions") -> None:
    """``root`` is a folder, or can be created as one: not empty, not inside ``preregistration/``
    (every run would then find an added frozen file and refuse) nor any other of the package's
    source folders (``SOURCE_FOLDERS``: the checkout would turn dirty), no file in the way, and the
    nearest existing folder one a folder can be made in (tried with a temporary folder, removed
    at once: permissions, a read-only filesystem, /proc). Leaves nothing behind."""
    from study.paths import prereg_dir

    if not str(root).strip():
        raise PreflightError(f"{label} is empty; give a folder with --sessions DIR")
    path = Path(root).absolute()
    frozen = prereg_dir().resolve()
    if path.resolve() == frozen or path.resolve().is_relative_to(frozen):
        raise PreflightError(f"{label} {path} lies inside the preregistration ({frozen}), whose files are frozen; "
                             "give a folder outside it with --sessions (default: sessions/ of the project)")
    inside = next((f for f in source_folders() if path.resolve().is_relative_to(f)), None)
    if inside is not None:
        raise PreflightError(f"{label} {path} lies inside the package's source folder {inside}; give a folder outside "
                             f"{', '.join(n + '/' for n in SOURCE_FOLDERS)} with --sessions (default: sessions/ of "
                             "the project)")
    existing = path
    while not existing.exists() and not existing.is_symlink() and existing != existing.parent:
        existing = existing.parent
    if existing.is_symlink() and not existing.exists():
        raise PreflightError(f"{label} {path}: {existing} is a link to nothing; give a folder with --sessions")
    if not existing.is_dir():
        where = "is a file" if existing == path else f"cannot be created: {existing} is a file"
        raise PreflightError(f"{label} {path} {where}; give a folder with --sessions (it is created if missing)")
    if not os.access(existing, os.W_OK | os.X_OK) or os.statvfs(existing).f_flag & os.ST_RDONLY:
        raise PreflightError(f"{label} {path}: {existing} is not writable; give a folder you can write to with --sessions")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".study-write-check-", dir=existing))
    except OSError as exc:
        raise PreflightError(f"{label} {path}: no folder can be made in {existing} ({exc.strerror or exc}); "
                             "give a folder you can write to with --sessions") from None


# ----- the whole spec ------------------------------------------------------------------------------

def validate_spec(spec) -> Checked:
    """Every check of one ``SessionSpec`` that needs no network; raises PreflightError (or the
    ConditionError, ModelError, LimitsError of the loaders), each one line saying what to do."""
    from study.paths import sessions_dir

    study = _study_of(spec)
    if not study.main:
        return validate_study_spec(spec, study)
    conditions = load_conditions()
    condition = conditions.get(spec.condition)
    task, other_task = check_task(getattr(spec, "task", None))
    exploratory = spec.exploratory or condition.exploratory or other_task
    check_seed(spec.seed, exploratory=exploratory)
    n_accounts = len(task.item_ids)
    if spec.accounts is not None and (isinstance(spec.accounts, bool) or not 1 <= spec.accounts <= n_accounts):
        raise PreflightError(f"--accounts must be between 1 and {n_accounts} (a prefix of the seed's order), "
                             f"got {spec.accounts}")
    if spec.base_url is not None:
        check_base_url(spec.base_url)
    model = resolve_model(spec.model, spec.base_url, runtime=spec.runtime)
    if model.simulated:
        from study.sim.policies import POLICIES

        if model.policy not in POLICIES:
            raise PreflightError(f"unknown simulator policy {model.policy!r}; policies: {', '.join(POLICIES)}")
    else:
        check_api_key(model.api_key, model.api_key_env or "the API key")
        check_base_url(model.base_url or "", model.base_url_source or "--base-url")
    from study.runtimes import runtime as runtime_named

    problem = runtime_named(model.runtime).problem()
    if problem is not None:
        raise PreflightError(f"{model.name} runs on {runtime_named(model.runtime).label}, which cannot run here: {problem}")
    limits = load_limits(model.name, spec.limit_overrides, exploratory_condition=condition.exploratory)
    # absolute: the agent CLI runs in the session's work/ folder, where a relative path names another
    # place (the commands resolve their --sessions at their edge; this keeps the Python API safe too)
    out_root = Path(spec.out_root).absolute() if spec.out_root is not None else sessions_dir()
    check_out_root(out_root, "--sessions" if spec.out_root is not None else "the default sessions folder")
    if other_task:  # another task's sessions than the project's: exploratory, in a folder of their own
        out_root = out_root / "tasks" / task.name
    session_dir = session_dir_for(out_root, model.folder_name, condition.name, spec.seed, exploratory=exploratory,
                                  accounts=spec.accounts)
    return Checked(model, limits, exploratory, out_root, condition, conditions.cli_settings, task, study, session_dir)


def validate_study_spec(spec: Any, study: Any) -> Checked:
    """``validate_spec`` for a session of another study than the main one (``--study NAME``): the same
    rules, read from the study's own folder. Its family must be able to run here (``Family.problem``:
    an optional extra not installed is one line saying how to install it) and checks the session's
    number (``Family.check_unit``: a seed, or a task's position in the study's frozen order); a
    simulated model's policy must be one of the family's. Its sessions go to
    ``<sessions>/<study>/[exploratory/]<model>/<condition>/<unit>``."""
    from study.families import UnknownFamily, family as family_named
    from study.paths import sessions_dir
    from study.protocol.models import load_models
    from study.session_io.folders import EXPLORATORY_FOLDER

    try:
        fam = family_named(study.family)
    except UnknownFamily as exc:
        raise PreflightError(f"{study.root / 'study.yaml'}: {exc}") from None
    problem = fam.problem()
    if problem is not None:
        raise PreflightError(f"study {study.name} ({study.family}) cannot run here: {problem}")
    conditions = load_conditions(study.file("conditions.yaml"))
    condition = conditions.get(spec.condition)
    if getattr(spec, "task", None) is not None:
        raise PreflightError(f"--task names a SOP-Bench task; study {study.name} runs {study.family}'s own tasks: "
                             "leave --task out")
    if spec.accounts is not None:
        if not hasattr(fam, "check_size"):
            raise PreflightError(f"--accounts cuts a SOP-Bench batch; a session of study {study.name} is one "
                                 f"{'task' if study.unit == 'task' else 'run'}: leave --accounts out")
        try:
            fam.check_size(study, spec.accounts)
        except ValueError as exc:
            raise PreflightError(str(exc)) from None
    exploratory = spec.exploratory or condition.exploratory
    try:
        fam.check_unit(study, spec.seed, exploratory=exploratory)
    except ValueError as exc:
        raise PreflightError(str(exc)) from None
    if spec.base_url is not None:
        check_base_url(spec.base_url)
    model = resolve_model(spec.model, spec.base_url, runtime=spec.runtime, table=load_models(study.models_file()))
    if model.simulated:
        from study.sim import family_policy_names

        names = family_policy_names(study.family, "agent", study)     # its protocol's, its domain's
        if model.policy not in names:
            raise PreflightError(f"unknown simulator policy {model.policy!r} for study {study.name}; "
                                 f"its policies: {', '.join(names)}")
    else:
        check_api_key(model.api_key, model.api_key_env or "the API key")
        check_base_url(model.base_url or "", model.base_url_source or "--base-url")
        for role, alias in fam.side_models(study).items():   # a real session's customer, judge: keys now
            if alias is not None:
                side = resolve_model(alias, table=load_models(study.models_file()))
                check_api_key(side.api_key, side.api_key_env or f"the {role}'s API key")
    from study.runtimes import runtime as runtime_named

    face = runtime_named(model.runtime)
    if (problem := face.problem()) is not None:
        raise PreflightError(f"{model.name} runs on {face.label}, which cannot run here: {problem}")
    # the agent's commands run in the runtime's sandbox, never unconfined
    if getattr(fam, "builtin_tools", False) and (problem := face.sandbox_problem()) is not None:
        raise PreflightError(f"study {study.name}'s sessions run the agent's commands in {face.label}'s sandbox, "
                             f"which cannot start here: {problem}")
    limits = load_limits(model.name, spec.limit_overrides, study.file("limits.yaml"),
                         exploratory_condition=condition.exploratory)
    base = Path(spec.out_root).absolute() if spec.out_root is not None else sessions_dir()
    check_out_root(base, "--sessions" if spec.out_root is not None else "the default sessions folder")
    out_root = base / study.name
    leaf = study.unit_folder(spec.seed) + (f"-first-{spec.accounts}" if spec.accounts is not None else "")
    session_dir = (out_root / EXPLORATORY_FOLDER if exploratory else out_root) / model.folder_name / condition.name / leaf
    return Checked(model, limits, exploratory, out_root, condition, conditions.cli_settings, None, study, session_dir)


def _study_of(spec) -> Any:
    """The spec's study (``--study``; None: the main one), or PreflightError naming the studies."""
    from study.protocol.studies import StudyDefinitionError, load_study

    try:
        return load_study(getattr(spec, "study", None))
    except StudyDefinitionError as exc:
        raise PreflightError(str(exc)) from None


def check_task(name: str | None) -> tuple[Any, bool]:
    """The session's task (``--task``: a vendored task's name or a manifest file; None: the
    project's) and whether it is another task than the project's (its sessions are exploratory)."""
    from sopbench_tools.tasks import TaskError, load_task, project_task_name, resolve_task

    try:
        if name is not None and str(name).endswith((".yaml", ".yml")):
            task = load_task(Path(name))
        else:
            task = resolve_task(name)
    except TaskError as exc:
        first = exc.problems[0].message if getattr(exc, "problems", None) else str(exc)
        raise PreflightError(f"--task {name}: {first}") from None
    from sopbench_tools.tasks.attribution import unsupported_reason

    reason = unsupported_reason(task)
    if reason:
        raise PreflightError(f"--task {task.name} cannot run here: {reason}")
    return task, task.name != project_task_name()


def check_units(specs: list, checked: list[Checked]) -> None:
    """What each session of another family's study needs on this machine beyond the family's
    install (``Family.unit_problem``: its task's data, its image): PreflightError naming the first
    session that cannot run, with the one line its family gives. ``checked``: ``validate_specs``
    of ``specs``, in their order. Not for a dry run."""
    from study.families import family as family_named

    for spec, c in zip(specs, checked):
        study = c.study
        if study is None or study.main:
            continue
        unit_problem = getattr(family_named(study.family), "unit_problem", None)
        problem = unit_problem(study, spec.seed) if unit_problem is not None else None
        if problem is not None:
            raise PreflightError(f"study {study.name}, {study.unit_folder(spec.seed)}: {problem}")


def validate_specs(specs: list) -> list[Checked]:
    """``validate_spec`` for each spec, and no session (model on its runtime, condition, seed,
    accounts) twice."""
    checked, seen = [], set()
    for spec in specs:
        result = validate_spec(spec)
        key = (result.session_dir, result.model.runtime)
        if key in seen:
            raise PreflightError(f"the session {result.model.name} / {spec.condition} / seed {spec.seed} is listed twice: "
                                 "give each model, condition and seed once")
        seen.add(key)
        checked.append(result)
    return checked
