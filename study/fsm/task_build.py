"""``study fsm build --task T``: the generated files of any task (its workflows and reminder).

The preregistered task's files are ``build_referral_workflow.generated_files`` (byte-identical to
the frozen ones: its wording cites the SOP's sections). Any other task's are built by
``task_workflows`` from its procedure (``study.procedure.core.procedure_of``) and
:func:`generic_reminder`: the same five workflows, with its item noun, tools, record and decision.
Writing and checking them on disk is ``build_output``'s (``write_files``, ``file_differences``,
re-exported here).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from study.procedure.core import PREREGISTERED_TASK, Procedure, procedure_of

from .build_output import file_differences, write_files
from .build_referral_workflow import generated_files
from .task_workflows import all_of, generic_wording, workflow_files

REMINDER_FILE = Path("texts/reminder.md")
#: FSM-lean's per-item reminder: the reminder without its unattended paragraph (the workflow
#: enforces what that paragraph asks; ``build_referral_workflow``'s docstring says why)
LEAN_REMINDER_FILE = Path("texts/exploratory/fsm_lean_reminder.md")


def unattended_paragraph(p: Procedure) -> str:
    n = len(p.data_tools)
    sets = all_of(n, "required data sets") if n != 1 else "the required data set"
    return (
        f"This run is unattended: nobody will reply to you. Process the {p.plural} one at a time: "
        f"retrieve {sets} for one {p.noun}, apply the SOP to them, record the analysis "
        f"with {p.record_tool}, submit that {p.noun}'s decision, and only then move to the next {p.noun}. "
        "There is no need to stop, summarise, pause or rush: keep working until every "
        f"{p.noun} in the batch has a decision."
    )


def _order_note(p: Procedure) -> str:
    if not p.tool_order:
        return ""
    parts = [f"{', '.join(before)} before {tool}" for tool, before in p.tool_order]
    return " (in the SOP's order: " + "; ".join(parts) + ")"


def generic_reminder(task: Any, p: Procedure) -> str:
    """The per-item reminder of a task without a hand-written one: the SOP's record and decision
    as the manifest words them, and the unattended paragraph."""
    return f"{generic_lean_reminder(task, p)}\n{unattended_paragraph(p)}\n"


def generic_lean_reminder(task: Any, p: Procedure) -> str:
    """The reminder without its unattended paragraph (FSM-lean's)."""
    labels = "; ".join(f"{c.argument}: one of " + ", ".join(c.labels) for c in task.decision.columns)
    return (
        f"For every {p.noun}: retrieve its data with {', '.join(p.data_tools)}{_order_note(p)}, apply the SOP "
        f"({task.sop_file}) to the results, then record your analysis with {p.record_tool} and submit the "
        f"decision with {p.decision_tool} ({labels}). The first decision submitted for a {p.noun} is final.\n\n"
        f"{task.record.description.strip()}\n"
    )


def task_files(task: Any) -> dict[Path, str]:
    """Relative path under a preregistration folder -> text, for the loaded ``task``."""
    if task.name == PREREGISTERED_TASK:
        return generated_files(task.sop)
    p = procedure_of(task)
    digest = hashlib.sha256(task.sop.encode("utf-8")).hexdigest()
    wording = generic_wording(task.name, p, sop_path=f"{task.folder.name}/{task.sop_file}", sop_sha256=digest,
                              tool_order_note=_order_note(p))
    files = workflow_files(p, wording)
    files[REMINDER_FILE] = generic_reminder(task, p)
    files[LEAN_REMINDER_FILE] = generic_lean_reminder(task, p)
    return files


def main_workflow_file(task: Any) -> Path:
    """The FSM workflow's file of ``task`` (under ``workflows/``)."""
    return next(path for path in task_files(task) if path.parent == Path("workflows") and path.name != "stop_only.yaml")


def write(task: Any, root: Path) -> list[Path]:
    """Write the task's generated files under ``root``; return the paths."""
    return write_files(task_files(task), root)


def differences(task: Any, root: Path) -> list[str]:
    """Files under ``root`` that differ from what the builder generates for ``task``."""
    return file_differences(task_files(task), root)
