"""SOP-Bench tasks as data: the typed ``Task`` (``task.py``), its manifest loader
(``manifest.py``) and the registry of vendored tasks (here).

``load_task("referral_abuse_detection_v2")`` loads a vendored task by name;
``load_task(Path("my_task.yaml"))`` a researcher's own manifest (its ``folder`` relative to the
manifest's directory). See ``/docs/contracts.md`` ("Task manifest").

Which task the project in use has: ``preregistration/task.yaml`` (written by ``study new``) names
it (``project_task_source``); ``resolve_task(name)`` loads a task by the name a session records
(``session_start.task``): the project's own when it is its name, otherwise a vendored one.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from study.protocol.preregistered import PREREGISTERED_TASK   # the task of the preregistered study

# The manifest loader and the task types are imported on first use (PEP 562 ``__getattr__``
# below): a reader that needs only PREREGISTERED_TASK (``study status``, the session records) then
# loads neither the YAML loader nor the problem types it reports with (study.protocol.problems).
if TYPE_CHECKING:
    from .manifest import TaskError
    from .task import Task

_LAZY = {"TaskError": "manifest", "load_manifest": "manifest", "Decision": "task", "DecisionColumn": "task",
         "Item": "task", "RecordField": "task", "RecordStep": "task", "Task": "task", "TaskTool": "task"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

__all__ = ["PREREGISTERED_TASK", "Task", "TaskError", "TaskTool", "Item", "RecordStep", "RecordField", "Decision",
           "DecisionColumn", "load_task", "task_names", "MANIFEST_DIR", "DATA_DIR", "PROJECT_TASK_FILE",
           "project_task_source", "resolve_task", "project_task_name"]

MANIFEST_DIR = Path(__file__).resolve().parent / "manifests"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
#: A project's own task, written by ``study new`` (``task:`` a vendored name, or ``manifest:`` a
#: path relative to the project folder).
PROJECT_TASK_FILE = "task.yaml"


def task_names() -> list[str]:
    """The names of the vendored tasks (one manifest each), sorted."""
    return sorted(p.stem for p in MANIFEST_DIR.glob("*.yaml"))


@lru_cache(maxsize=32)
def _load_vendored(name: str) -> Task:
    from .manifest import load_manifest

    return load_manifest(MANIFEST_DIR / f"{name}.yaml", DATA_DIR)


def load_task(task: str | Path = PREREGISTERED_TASK) -> Task:
    """A vendored task by name, or a manifest file by path; checked (sha256, manifest) on load.
    Raises TaskError (with the manifest's file and line of each problem)."""
    if isinstance(task, Path) or str(task).endswith((".yaml", ".yml")):
        from .manifest import load_manifest

        path = Path(task).resolve()
        return load_manifest(path, path.parent)
    if task not in task_names():
        from study.protocol.problems import Problem

        from .manifest import TaskError

        raise TaskError(str(task), [Problem(None, f"unknown task {task!r}; the tasks are: {', '.join(task_names())}")])
    return _load_vendored(str(task))


# -- which task -----------------------------------------------------------------------------------

def project_task_source() -> str | Path:
    """The task of the project in use: ``preregistration/task.yaml``'s, else the preregistered one."""
    import yaml

    from study.paths import prereg_dir, project_root

    path = prereg_dir() / PROJECT_TASK_FILE
    if not path.is_file():
        return PREREGISTERED_TASK
    doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if doc.get("manifest"):
        return (project_root() / str(doc["manifest"])).resolve()
    return str(doc.get("task") or PREREGISTERED_TASK)


def resolve_task(name: str | None = None) -> Any:
    """The task called ``name`` (None: the project's): the project's own when it is its name, else
    a vendored one. Raises ``TaskError`` for an unknown name."""
    source = project_task_source()
    if name is None:
        return load_task(source)
    if isinstance(source, Path):
        own = load_task(source)
        if own.name == name:
            return own
    return load_task(name)


def project_task_name() -> str:
    """The name of the project's task."""
    source = project_task_source()
    return resolve_task(None).name if isinstance(source, Path) else str(source)
