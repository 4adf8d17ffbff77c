"""SOP-Bench tasks as data: the typed ``Task`` (``task.py``), its manifest loader
(``manifest.py``) and the registry of vendored tasks (here).

``load_task("referral_abuse_detection_v2")`` loads a vendored task by name;
``load_task(Path("my_task.yaml"))`` a researcher's own manifest (its ``folder`` relative to the
manifest's directory). See ``/docs/contracts.md`` ("Task manifest").
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from study.protocol.preregistered import PREREGISTERED_TASK   # the task of the preregistered study

# The manifest loader and the task types are imported on first use (PEP 562 ``__getattr__``
# below): a reader that needs only PREREGISTERED_TASK (``study status``, the session records) then
# loads neither the YAML loader nor the FSM's workflow types the loader reports problems with.
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
           "DecisionColumn", "load_task", "task_names", "MANIFEST_DIR", "DATA_DIR"]

MANIFEST_DIR = Path(__file__).resolve().parent / "manifests"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"


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
        from study.fsm.workflow import Problem

        from .manifest import TaskError

        raise TaskError(str(task), [Problem(None, f"unknown task {task!r}; the tasks are: {', '.join(task_names())}")])
    return _load_vendored(str(task))
