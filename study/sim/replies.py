"""The simulated model's replies: one tool call or a text, in the task's tool names and arguments
(:mod:`study.sim.task_view`), for the policies (:mod:`study.sim.policies`) to compose."""

from __future__ import annotations

from .memory import Memory
from .protocol import Reply, ToolUse


def sop(tool: str, **args) -> Reply:
    return Reply(tool_uses=[ToolUse(f"mcp__sopbench__{tool}", args)])


def fsm(tool: str, **args) -> Reply:
    return Reply(tool_uses=[ToolUse(f"mcp__fsm__{tool}", args)])


def end_turn(text: str) -> Reply:
    return Reply(text=text)


def guess_record(m: Memory, account: str, action: str | None = None) -> Reply:
    """A record that names ``action`` (default: the majority label) without an analysis behind it."""
    task = m.task
    return sop(task.proc.record_tool, **{task.item_arg: account}, **task.guess_record(action or task.majority))


def data_call(m: Memory, tool: str, account: str) -> Reply:
    """A call of data tool ``tool`` for ``account``, with the arguments its schema asks for (the
    item's inputs first, via the task's inputs tool, when they are not known yet)."""
    task = m.task
    values = m.values.get(account, {})
    args = task.call_args(tool, account, values)
    if args is None and task.inputs_tool and not m.inputs_read(account):
        return sop(task.inputs_tool, **{task.item_arg: account})
    return sop(tool, **(args or task.call_args(tool, account, {**values, **_blanks(task, tool, values)})))


def submit_label(m: Memory, account: str, label: str) -> Reply:
    """The decision ``label`` for ``account``."""
    task = m.task
    return sop(task.proc.decision_tool, **{task.item_arg: account}, **task.decision_args(label))


def _blanks(task, tool: str, values: dict) -> dict:
    """Arguments still unknown (another tool's output not retrieved): empty, so the call fails."""
    return {name: "" for name in task.arguments.get(tool, ()) if name not in values}


def budget_text(memory: Memory) -> str:
    """The early-stop remark (the source of the first remark on tokens)."""
    return (f"I have decided {len(memory.decisions)} of {len(memory.order)} {memory.task.proc.plural}. To save my remaining "
            f"token budget I will stop here; the other {memory.task.proc.plural} can be handled in a later run.")
