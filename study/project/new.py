"""``study new --task T DIR``: a new study project for one task, ready to be frozen.

The project is a folder (a git repository with one commit) holding:

- ``preregistration/``: ``task.yaml`` (the task: a vendored task's name, or ``manifest:`` the
  researcher's own manifest, copied into ``tasks/``), the package's ``conditions.yaml`` (its FSM
  conditions naming the task's own FSM workflow), ``limits.yaml`` and ``models.yaml``, the texts
  written for the task's item noun and SOP (``study.procedure.texts``), the generated workflows and
  reminder (``study.fsm.task_build``), the seeded orders of the study's seeds over the task's items,
  a predictions template and a ``plan.md`` to fill in, and ``runtime.json``;
- a snapshot of the package's frozen code (its Python files only), so that ``study prereg freeze``
  records the code the study runs on, and ``study run`` later checks the code it imports against it;
- ``.study-project``, the marker by which every ``study`` command run inside the folder uses it
  as its project (``study.paths.project_root``; ``--project DIR`` and ``STUDY_ROOT`` do the same
  from anywhere).

Nothing is written when an input is bad (``NewProjectError``, one line).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from study.paths import PROJECT_MARKER

PACKAGE_PREREG = ("limits.yaml", "models.yaml")


class NewProjectError(ValueError):
    """A bad input to ``study new``: the message says what to do."""


def _load(task_arg: str) -> tuple[Any, Path | None]:
    """The task and, for a researcher's own manifest, its file."""
    from sopbench_tools.tasks import TaskError, load_task, task_names

    own = task_arg.endswith((".yaml", ".yml"))
    try:
        task = load_task(Path(task_arg)) if own else load_task(task_arg)
    except TaskError as exc:
        first = exc.problems[0] if getattr(exc, "problems", None) else None
        where = f"{exc.file}:{first.line}: " if first is not None and first.line else ""
        raise NewProjectError(f"--task {task_arg}: {where}{first.message if first else exc}"
                              + ("" if own else f" (vendored tasks: {', '.join(task_names())})")) from None
    from sopbench_tools.tasks.attribution import unsupported_reason

    reason = unsupported_reason(task)
    if reason:
        raise NewProjectError(f"--task {task.name} cannot run here: {reason}")
    return task, (Path(task_arg).resolve() if own else None)


def _package_prereg() -> Path:
    """The package's own preregistration (the referral study's), the source of the templates."""
    from study.paths import checkout_root

    own = checkout_root() / "preregistration"
    if own.is_dir():
        return own
    from study.paths import prereg_dir

    return prereg_dir()


def _conditions(task: Any) -> str:
    from study.fsm.task_build import main_workflow_file

    text = (_package_prereg() / "conditions.yaml").read_text(encoding="utf-8")
    main = main_workflow_file(task).name
    return text.replace("referral_abuse_per_account.yaml", main)


def _plan(task: Any, n_items: int) -> str:
    return f"""# Study plan: SOP fidelity on {task.name}

Fill in every section before `study prereg freeze`; after the freeze, change it only with
`study prereg amend --reason "..." preregistration/plan.md`.

## 1. Question
Does executable enforcement (the FSM conditions) keep an agent on the SOP of {task.name} over a
long unattended batch of {task.item.plural}, compared with prompting (Plain, Sys, Remind) and
resumption (-loop)? (Write your own question here.)

## 2. Task
{task.name} ({task.source}), {n_items} {task.item.plural}; one {task.item.noun} is one unit of work.
Required data tools (the `inv` clause): {', '.join(task.required_tools)}. Record: {task.record.tool}.
Decision: {task.decision.tool} ({', '.join(c.column for c in task.decision.columns)}).
Where the manifest resolves an ambiguity of the SOP:

{task.comments.strip() or '(none stated)'}

## 3. Conditions, models, seeds, limits
conditions.yaml, models.yaml, orders/ (seeds), limits.yaml. (Say which you run.)

## 4. Metric
FC: decisions that are compliant (inv, rec, foc) and correct (the gold label), as in the paper.

## 5. Predictions
predictions.yaml is the referral study's, as a template: rewrite it for {n_items} {task.item.plural}.

## 6. Exclusions and reruns
Voided sessions (infrastructure failures, interruptions) are rerun; nothing else is excluded.
"""


def _readme(task: Any) -> str:
    return (f"# Preregistration of a study on {task.name}\n\nMade by `study new --task {task.name}`. "
            "Edit plan.md and predictions.yaml, commit, then `study prereg freeze`. Every file here is "
            "frozen by it (except MANIFEST.sha256, freeze.json, amendments.jsonl and the timestamps in stamps/, "
            "which record the freeze).\n")


def _predictions(task: Any) -> str:
    text = (_package_prereg() / "predictions.yaml").read_text(encoding="utf-8")
    return (f"# TEMPLATE written by `study new`: the referral study's predictions (200 accounts). Rewrite them\n"
            f"# for {task.name} ({len(task.item_ids)} {task.item.plural}) before you freeze.\n" + text)


def scaffold_files(task: Any) -> dict[str, str]:
    """Path under the project -> text, for everything but the code snapshot and runtime.json."""
    from sopbench_tools.orders import STUDY_SEEDS, computed_order
    from study.fsm.task_build import task_files
    from study.procedure.texts import texts_for

    prereg = _package_prereg()
    out: dict[str, str] = {}
    for rel, text in task_files(task).items():
        out[f"preregistration/{rel.as_posix()}"] = text
    texts = texts_for(task) if task.name != "referral_abuse_detection_v2" else {
        p.relative_to(prereg / "texts").as_posix(): p.read_text(encoding="utf-8")
        for p in (prereg / "texts").rglob("*.md")}
    for name, text in texts.items():
        out[f"preregistration/texts/{name}"] = text
    for seed in STUDY_SEEDS:
        out[f"preregistration/orders/seed-{seed}.txt"] = "\n".join(computed_order(seed, task.item_ids)) + "\n"
    for name in PACKAGE_PREREG:
        out[f"preregistration/{name}"] = (prereg / name).read_text(encoding="utf-8")
    out["preregistration/conditions.yaml"] = _conditions(task)
    out["preregistration/plan.md"] = _plan(task, len(task.item_ids))
    out["preregistration/predictions.yaml"] = _predictions(task)
    out["preregistration/README.md"] = _readme(task)
    out[".gitignore"] = "sessions/\nfigures/\n__pycache__/\n"
    return out


def _copy_code(dest: Path) -> int:
    """Copy the package's frozen Python files (as imported) into ``dest``; return how many."""
    from study.prereg.imported import imported_paths

    found = imported_paths()
    for rel, source in found.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    return len(found)


def new_project(task_arg: str, dest: Path) -> dict[str, Any]:
    """Make the project for ``task_arg`` (a vendored task's name or a manifest file) at ``dest``."""
    from study.prereg.runtime import write_runtime

    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise NewProjectError(f"{dest} already exists and is not an empty folder; give a new folder for the project")
    task, manifest = _load(task_arg)
    files = scaffold_files(task)
    task_doc = {"task": task.name}
    dest.mkdir(parents=True, exist_ok=True)
    if manifest is not None:   # the researcher's own task: its manifest and folder go into tasks/
        tasks = dest / "tasks"
        tasks.mkdir()
        shutil.copyfile(manifest, tasks / manifest.name)
        shutil.copytree(task.folder, tasks / task.folder.relative_to(manifest.parent))
        task_doc = {"manifest": f"tasks/{manifest.name}"}
    files["preregistration/task.yaml"] = (
        "# The task of this study (study.procedure.core): a vendored task's name, or manifest: a file.\n"
        + "".join(f"{k}: {v}\n" for k, v in task_doc.items()))
    for rel, text in files.items():
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    code = _copy_code(dest)
    write_runtime(dest)
    (dest / PROJECT_MARKER).write_text(json.dumps({"task": task.name}) + "\n", encoding="utf-8")
    _git_commit(dest, f"study new --task {task.name}")
    return {"task": task.name, "items": len(task.item_ids), "files": len(files), "code_files": code}


def _git_commit(dest: Path, message: str) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True, text=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=study new", "-c", "user.email=study-new@localhost", "commit", "-q", "-m", message)
