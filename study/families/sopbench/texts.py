"""The frozen texts the agent sees, filled in from ``preregistration/texts/``.

- ``first_message``: one template for all conditions (the whole SOP, the number of accounts,
  one account at a time); FSM adds ``fsm_paragraph.md`` (an exploratory condition
  may name another text instead: FSM-lean's ``exploratory/fsm_lean_paragraph.md``).
- ``system_prompt_append``: the Sys copy of the SOP, appended to Claude Code's default prompt.
- ``reminder_text``: SOP 5.7 and its critical rules verbatim plus the unattended paragraph
  (``reminder.md``, generated from the SOP by the FSM build script); FSM-lean names its own,
  the same without that paragraph (``exploratory/fsm_lean_reminder.md``, generated too).
- ``continuation_message``: the single function that writes both the resume message (-loop
  conditions, Gates-only) and the stop-gate message (FSM, Stop-only); with a state (FSM only)
  it ends with one sentence naming it.

Placeholders are ``{name}``; only the names a template is known to use are replaced, so braces
in the SOP itself (``{enforcement_action}``) are left as they are (``study.protocol.texts.fill``,
which an amendment of a text is checked with too).

Every function takes the session's ``task`` (None: the project's): a session of another task
than the project's (exploratory) reads that task's texts from ``study.procedure.texts`` instead,
and its reminder from the files generated with its workflows (``study.fsm.task_build``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sopbench_tools.dataset import load_task
from study.protocol.conditions import Condition
from study.protocol.texts import TextError, fill, texts_dir


#: The texts generated with a task's workflows from its SOP (``study.fsm.task_build``): the
#: per-item reminders (the conditions' ``reminder``: true, or FSM-lean's file).
GENERATED = ("reminder.md", "exploratory/fsm_lean_reminder.md")


def read_text(name: str, task: Any = None) -> str:
    """One frozen text file, verbatim (another task's than the project's: its generated text)."""
    from study.procedure.texts import is_project_task, texts_for

    if not is_project_task(task):
        if name in GENERATED:   # generated with the task's workflows, from its SOP
            from study.fsm.task_build import task_files

            return task_files(task)[Path("texts") / name]
        return texts_for(task)[name]
    path = texts_dir() / name
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        hint = (
            "it is generated from the SOP by the FSM build script (see docs/contracts.md, 'Conditions and texts')"
            if name in GENERATED
            else f"restore it from the repository (git checkout -- {path})"
        )
        raise TextError(f"frozen text {path} is missing; {hint}") from None


def _sop(sop: str | None, task: Any) -> str:
    if sop is not None:
        return sop
    return task.sop if task is not None else load_task().sop


def first_message(condition: Condition, n_accounts: int, sop: str | None = None, task: Any = None) -> str:
    """The first (and only) user message of a session."""
    paragraph = ""
    if condition.fsm_paragraph:  # true: the FSM's paragraph; a file name: another one (FSM-lean's)
        paragraph = read_text("fsm_paragraph.md" if condition.fsm_paragraph is True else condition.fsm_paragraph, task)
    return fill(
        read_text("first_message.md", task), "first_message.md",
        n_accounts=str(n_accounts), fsm_paragraph=paragraph, sop=_sop(sop, task),
    )


def system_prompt_append(sop: str | None = None, task: Any = None) -> str:
    """The Sys conditions' copy of the SOP for the end of Claude Code's system prompt."""
    return fill(read_text("system_append.md", task), "system_append.md", sop=_sop(sop, task))


def reminder_text(task: Any = None, name: str = "reminder.md") -> str:
    """The per-account reminder (Remind, Remind-loop, FSM, Stop-only, Gates-only: ``reminder.md``;
    a condition whose ``reminder`` names another text of texts/, e.g. FSM-lean's, that one)."""
    return read_text(name, task).strip()


def continuation_message(accounts_left: int, next_account: str, state: str | None = None, task: Any = None) -> str:
    """The resume message and the stop-gate message: one function, one wording.

    ``state`` is given for FSM only; the message then ends with one sentence naming it.
    """
    text = fill(
        read_text("continuation.md", task), "continuation.md",
        accounts_left=str(accounts_left), next_account=next_account,
    ).strip()
    if state is not None:
        text += " " + fill(read_text("continuation_state.md", task), "continuation_state.md", state=state).strip()
    return text
