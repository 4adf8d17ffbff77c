"""The texts the agent sees, written for any task (its item noun, tools, record and decision).

The preregistered study's texts are hand-written and frozen in ``preregistration/texts/``; a
project made by ``study new`` gets these, written into its own ``preregistration/texts/`` (and
frozen there); a session of another task than its project's (exploratory) reads them from here.
They have the placeholders of the frozen texts (``study.runner.texts``): ``{n_accounts}``,
``{fsm_paragraph}``, ``{sop}``, ``{accounts_left}``, ``{next_account}``, ``{state}``. FSM-lean's
paragraph keeps the sentence the simulator recognises it by ("an executable workflow, already
entered for you, that moves on its own"). The per-item reminder (``reminder.md``) is not here: it
is generated with the task's workflows (``study.fsm.task_build.task_files``).
"""

from __future__ import annotations

from typing import Any

from study.procedure.core import PREREGISTERED_TASK, Procedure, procedure_of


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def number_word(n: int) -> str:
    """``5`` -> ``five`` (digits beyond twelve)."""
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def _tools_phrase(p: Procedure) -> str:
    n = len(p.data_tools)
    return f"the {number_word(n)} data tool{'s' if n != 1 else ''} ({', '.join(p.data_tools)})"


def _order(task: Any) -> str:
    order = [f"{', '.join(t.after)} before {t.name}" for t in task.tools if t.after]
    return f" in the SOP's order ({'; '.join(order)})" if order else ""


def _inputs(task: Any, p: Procedure) -> str:
    if not task.inputs_tool:
        return ""
    return f"read its input values with {task.inputs_tool}, "


def texts_for(task: Any) -> dict[str, str]:
    """File name under ``texts/`` -> text, for the loaded ``task`` (all but ``reminder.md``)."""
    p = procedure_of(task)
    noun, plural, record, decision = p.noun, p.plural, p.record_tool, p.decision_tool
    a = "an" if noun[:1] in "aeiou" else "a"
    first = (
        f"You are running an unattended batch of {{n_accounts}} {plural} through the standard operating procedure (SOP) "
        f"of the SOP-Bench task {task.name}, which is given in full below. Nobody will reply to you during the run.\n\n"
        f"Process the {plural} one at a time, in the order of the batch (the tool list_batch shows it): for one {noun}, "
        f"{_inputs(task, p)}retrieve its data with {_tools_phrase(p)}{_order(task)}, apply the SOP to the results, "
        f"record that analysis with {record}, and submit the decision with {decision}; only then go on to the next "
        f"{noun}. {decision} takes the place of the SOP's final output: {a} {noun}'s first submitted decision is final. "
        f"The batch is done when all {{n_accounts}} {plural} have a decision (the tool list_decisions shows the "
        "decisions so far).\n{fsm_paragraph}\n<sop>\n{sop}\n</sop>\n"
    )
    system = (
        "A copy of the standard operating procedure (SOP) for the batch you are processing follows. "
        f"Apply it to every {noun}.\n\n<sop>\n{{sop}}\n</sop>\n"
    )
    continuation = (
        f"{{accounts_left}} {plural} of the batch are still undecided; the next undecided {noun} is {{next_account}}. "
        f"Continue with it now, one {noun} at a time: {_inputs(task, p)}retrieve its data with {_tools_phrase(p)}, apply "
        f"the SOP, record the analysis with {record}, submit the decision with {decision}, then go on to the next "
        f"undecided {noun}. The run is unattended and continues until every {noun} has a decision: ending your turn "
        "saves neither tokens nor context.\n"
    )
    fsm = (
        "This run is governed by an executable workflow, which has already been entered for you. Its states are "
        f"S_investigate (retrieve the data of one {noun} and record your analysis), S_decide (submit the decision "
        f"for that {noun}) and S_done (the batch is complete); each state admits only its own tools, and the listing "
        "tools are always available. To move to another state, call the fsm tool self_check with the target state, "
        "then transition with the same target and the token that self_check returned: the workflow checks that the "
        "step is complete and either moves you or tells you what is missing. The fsm tool status shows where you "
        f"are. After each decision, move back to S_investigate for the next {noun}; when every {noun} has a "
        "decision, move to S_done and call exit.\n"
    )
    lean = (
        "This run is governed by an executable workflow, already entered for you, that moves on its own. While you "
        f"investigate {a} {noun} it admits the data tools and {record}; once you have recorded {a} {noun} whose data "
        f"you retrieved with no other {noun}'s in between, it admits the decision ({decision}) for that {noun}, and "
        f"after the decision the next {noun}'s investigation. A call the current step does not admit is refused "
        f"with the one thing to do next, and your turn can end only once every {noun} has a decision.\n"
    )
    return {
        "first_message.md": first,
        "system_append.md": system,
        "continuation.md": continuation,
        "continuation_state.md": "You are in workflow state {state}.\n",
        "fsm_paragraph.md": fsm,
        "exploratory/fsm_lean_paragraph.md": lean,
    }


def is_project_task(task: Any) -> bool:
    """Whether ``task`` is the task of the project in use (its texts are the project's files)."""
    if task is None:
        return True
    from sopbench_tools.tasks import project_task_name

    return task.name == project_task_name()


__all__ = ["PREREGISTERED_TASK", "texts_for", "is_project_task", "number_word"]
