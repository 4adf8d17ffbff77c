"""Which item a tool call is for, and whether the study can tell for every required tool.

The FSM's guards (``study.fsm.referral_checks``), the tool server's ledger (``toolbox``), the
scorer and the simulator (through ``study.procedure.core.Procedure.item_of``) attribute a call to
an item by its item-id argument, or, for a required tool that does not take it, by an item
argument each item has its own value of (``Task.item_keys``, ``Task.item_table``):
:func:`aliased_item`. :func:`unsupported_reason` is the one rule that says when that fails for a
task, so the study cannot run it.
"""

from __future__ import annotations

from typing import Any, Mapping


def aliased_item(tool: Any, args: Mapping[str, Any], keys: Mapping[str, str],
                 tables: Mapping[str, Mapping[str, str]]) -> str | None:
    """The item a call of ``tool`` names through its item key (``keys``: tool -> argument;
    ``tables``: argument -> value -> item), or None (no key, no value, or a value of no item)."""
    arg = keys.get(str(tool))
    value = args.get(arg) if arg is not None else None
    return None if value is None else tables.get(arg, {}).get(str(value))


def unsupported_reason(task: Any) -> str | None:
    """Why the study cannot run ``task`` (None: it can): the one rule ``study run``, ``study new``,
    ``study task list``/``check`` and the benchmark apply. The FSM's guards, the tool server's
    ledger, the scorer and the simulator attribute a call to an item by the item-id argument, or,
    for a required tool that does not take it, by an item argument each item has its own value of
    (``Task.item_keys``); a required tool with neither names no one item. The reason says, for
    each such tool, what its item arguments are."""
    if not task.runnable:
        return task.not_runnable_reason
    idc = task.item.id_column
    others = [t for t in task.tools if t.required and idc not in t.item_args and t.name not in task.item_keys]
    if not others:
        return None
    return (f"the study attributes every call to one {task.item.noun} by its {idc} argument or by an item "
            f"argument unique per {task.item.noun}, but the required tool(s) {', '.join(t.name for t in others)} "
            "take neither: " + "; ".join(_attribution(task, t) for t in others))


def _attribution(task: Any, tool: Any) -> str:
    """What the item arguments of ``tool`` (none unique per item) are."""
    noun, plural, n = task.item.noun, task.item.plural, len(task.rows)
    if not tool.item_args:
        return f"{tool.name} takes no argument that names one {noun}"
    parts = [f"{arg}, shared by several {plural} ({len({str(r.get(arg)) for r in task.rows.values()})} values over {n})"
             for arg in tool.item_args]
    return f"{tool.name} takes {' and '.join(parts)}, so a call names no one {noun}"
