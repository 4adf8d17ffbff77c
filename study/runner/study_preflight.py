"""The checks of a session of another study than the main one (``--study NAME``), before anything
is created: the same rules as ``preflight.validate_spec``'s, read from the study's own folder.

A study of another task family (``preregistration/studies/<name>/``, ``study.protocol.studies``)
has its own conditions, limits, texts and workflows; its sessions are numbered by seed or by the
position of a task in its frozen order (the family checks the number: ``Family.check_unit``); its
family must be able to run here (``Family.problem``: an optional extra that is not installed is
one line saying how to install it); a simulated model's policy must be one of the family's
simulator policies. Its sessions go to ``<sessions>/<study>/[exploratory/]<model>/<condition>/<unit>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from study.families import UnknownFamily, family as family_named
from study.protocol.conditions import load_conditions
from study.protocol.limits import load_limits
from study.protocol.models import load_models, resolve_model
from study.session_io.folders import EXPLORATORY_FOLDER

from .preflight import Checked, PreflightError, check_api_key, check_base_url, check_out_root


def validate_study_spec(spec: Any, study: Any) -> Checked:
    """``preflight.validate_spec`` for a session of ``study`` (not the main one)."""
    from study.paths import sessions_dir

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
        raise PreflightError(f"--accounts cuts a SOP-Bench batch; a session of study {study.name} is one "
                             f"{'task' if study.unit == 'task' else 'run'}: leave --accounts out")
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

        names = family_policy_names(study.family, "agent")
        if model.policy not in names:
            raise PreflightError(f"unknown simulator policy {model.policy!r} for study {study.name}; "
                                 f"its policies: {', '.join(names)}")
    else:
        check_api_key(model.api_key, model.api_key_env or "the API key")
        check_base_url(model.base_url or "", model.base_url_source or "--base-url")
    from study.runtimes import runtime as runtime_named

    problem = runtime_named(model.runtime).problem()
    if problem is not None:
        raise PreflightError(f"{model.name} runs on {runtime_named(model.runtime).label}, which cannot run here: {problem}")
    limits = load_limits(model.name, spec.limit_overrides, study.file("limits.yaml"),
                         exploratory_condition=condition.exploratory)
    base = Path(spec.out_root).absolute() if spec.out_root is not None else sessions_dir()
    check_out_root(base, "--sessions" if spec.out_root is not None else "the default sessions folder")
    out_root = base / study.name
    session_dir = (out_root / EXPLORATORY_FOLDER if exploratory else out_root) / model.folder_name / condition.name \
        / study.unit_folder(spec.seed)
    return Checked(model, limits, exploratory, out_root, condition, conditions.cli_settings, None, study, session_dir)
