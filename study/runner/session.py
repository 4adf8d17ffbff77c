"""One session: what to run (``SessionSpec``), checked (``prepare``), and run to its end.

``run_session(spec)`` checks the spec against the frozen files (``prepare``: no side effects),
claims the session folder (``claim.py``: one runner per session, whichever process wins), makes
SIGINT and SIGTERM end the session properly (``interrupt.py``), and runs it
(``driver.SessionDriver``: one real Claude Code process through ``claude-agent-sdk``, resumed
as the condition says, under the limits of limits.yaml, which the model is never told about).
Each limit ends the session with ``limit:<name>``; an API, quota or server error or a crash ends
it as ``infrastructure_failure`` and a signal as ``interrupted`` (both voided, see
``voiding.py``); the rules are in ``ending.py``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from study.paths import prereg_dir
from study.session_io.folders import EVENTS_NAME
from study.session_io.meta import read_meta

from .claim import SessionClaimed, SessionExists, claim_session
from .driver import UNCHECKED, SessionDriver
from .interrupt import Interruption
from .preflight import validate_spec
from .prepared import Prepared, SessionSpec
from .texts import reminder_text

__all__ = ["Prepared", "SessionClaimed", "SessionExists", "SessionSpec", "UNCHECKED", "prepare", "run_claimed",
           "run_prepared", "run_session"]


def prepare(spec: SessionSpec) -> Prepared:
    """Resolve and validate a spec (condition, model and key, limits, texts) without side effects.

    Raises PreflightError, ConditionError, ModelError, LimitsError, TextError, WorkflowError or
    ValueError with a message saying what to do.
    """
    checked = validate_spec(spec)  # every bad input refused before anything is created (preflight.py)
    if checked.study is not None and not checked.study.main:
        return _prepare_study(spec, checked)
    model, limits, condition, task = checked.model, checked.limits, checked.condition, checked.task
    other_task = task is not None and _is_other(task)
    workflow = None
    if condition.workflow is not None:
        from study.fsm import Workflow

        if other_task:
            workflow = _task_workflow(task, condition.workflow)
        else:
            workflow = Workflow.load(prereg_dir() / "workflows" / condition.workflow)
    reminder = None
    if condition.reminder:   # true: reminder.md; a file name: that text (FSM-lean's)
        reminder = reminder_text(task, "reminder.md" if condition.reminder is True else condition.reminder)
    return Prepared(spec, condition, model, limits, checked.cli_settings.token_reminder,
                    checked.cli_settings.disable_nonessential_traffic, checked.session_dir, workflow, reminder,
                    task, other_task, study=checked.study)


def _prepare_study(spec: SessionSpec, checked: Any) -> Prepared:
    """``prepare`` for a session of another study than the main one: its workflow from the
    study's own workflows/, its family's texts (the family's work gives the reminder, if any)."""
    study, condition = checked.study, checked.condition
    workflow = None
    if condition.workflow is not None:
        from study.fsm import Workflow

        workflow = Workflow.load(study.root / "workflows" / condition.workflow)
    return Prepared(spec, condition, checked.model, checked.limits, checked.cli_settings.token_reminder,
                    checked.cli_settings.disable_nonessential_traffic, checked.session_dir, workflow, None,
                    None, False, family=study.family, study=study)


def _is_other(task: Any) -> bool:
    from study.procedure.texts import is_project_task

    return not is_project_task(task)


def _task_workflow(task: Any, name: str) -> Any:
    """Condition workflow ``name`` of the project, made for another task: the same file of the
    task's generated workflows (the project's FSM workflow is the task's own FSM workflow)."""
    from study.fsm import Workflow
    from study.fsm.task_build import main_workflow_file, task_files
    from sopbench_tools.tasks import project_task_name, resolve_task

    files = task_files(task)
    rel = Path("workflows") / name
    if rel not in files and rel.parent == Path("workflows"):
        project_main = main_workflow_file(resolve_task(project_task_name()))
        if rel == project_main:
            rel = main_workflow_file(task)
    if rel not in files:
        raise ValueError(f"workflow {name} has no counterpart for task {task.name}; "
                         f"its workflows are {', '.join(str(p) for p in files if p.suffix == '.yaml')}")
    return Workflow.from_text(files[rel], f"{task.name}:{rel}")


def run_session(spec: SessionSpec) -> Path:
    """Run one real Claude Code session to its end and return its folder.

    The runner first claims the folder (``claim.py``: a second runner on the same session is
    refused with ``SessionClaimed``); the folder must not hold a session yet (``SessionExists``;
    ``study run-all --rerun-voided`` moves voided attempts aside first). SIGINT and SIGTERM end
    the session as ``interrupted`` (``interrupt.py``).
    """
    return run_prepared(prepare(spec))


def run_prepared(prepared: Prepared) -> Path:
    """``run_session`` for a spec already prepared (``study run`` prepares it to name the folder)."""
    with Interruption() as interruption, claim_session(prepared.session_dir):
        return run_claimed(prepared, interruption)


def run_claimed(prepared: Prepared, interruption: Interruption | None = None) -> Path:
    """Run a prepared session whose folder this runner has claimed (``claim.claim_session``)."""
    if (prepared.session_dir / EVENTS_NAME).exists():
        meta = read_meta(prepared.session_dir) or {}
        raise SessionExists(
            f"{prepared.session_dir} already holds a session (status {meta.get('status', 'unknown')}); "
            "sessions are never overwritten: rerun voided or unfinished ones with `study run-all --rerun-voided`, "
            "or choose another --sessions folder"
        )
    return asyncio.run(SessionDriver(prepared, interruption or Interruption()).run())
