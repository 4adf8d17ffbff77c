"""What the study's procedure is for one task: the one place a ``Task`` becomes the names the FSM
builder, the scorer and the simulator use.

A :class:`Procedure` names the item (noun, id argument), the data tools the SOP requires before a
decision (the ``inv`` clause and the guard of Eq. 4), the task's other per-item tools, the record
tool and the field(s) of it that name the decision (the ``rec`` clause), and the decision tool and
its argument(s). :func:`procedure_of` makes it from a loaded ``sopbench_tools.tasks.Task``;
for the preregistered task it equals the module constants of ``sopbench_tools.tool_definitions``
(a test checks it).

A session names its task in ``session_start.task`` (absent in the referral study's logs: the
preregistered task). :func:`resolve_task` loads a task by that name: the project's own task
(``preregistration/task.yaml``, written by ``study new``) when the name is its name, otherwise a
vendored task.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import yaml

from sopbench_tools.tasks import PREREGISTERED_TASK   # the task of the preregistered study

#: A project's own task, written by ``study new`` (``task:`` a vendored name, or ``manifest:`` a
#: path relative to the project folder).
PROJECT_TASK_FILE = "task.yaml"
#: How the labels of a decision over several columns are joined into one label.
LABEL_JOIN = " | "


@dataclass(frozen=True)
class Procedure:
    """The tools of one "investigate one item, record it, decide it" procedure."""

    noun: str                          # "account", "product", ...
    plural: str                        # "accounts"
    item_arg: str                      # the item-id argument every item tool takes
    data_tools: tuple[str, ...]        # the data tools the SOP requires before a decision (inv)
    record_tool: str
    decision_tool: str
    listing_tools: tuple[str, ...] = ("list_batch", "list_decisions")
    #: read-only per-item tools that return no item data (allowed while deciding, too)
    lookup_tools: tuple[str, ...] = ()
    #: the task's other per-item tools (allowed while investigating; never required)
    optional_tools: tuple[str, ...] = ()
    #: the decision tool's argument for each decision column
    decision_args: tuple[str, ...] = ("action",)
    #: the record field that names each decision column (None: the record names none)
    record_args: tuple[str | None, ...] = ("step4_action",)
    #: data tool -> the data tools that must succeed for the item before it (its inputs)
    tool_order: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: the SOP's early exits: required tool -> the required tools a refusal of it (an error
    #: result for the item) stands for (itself and the required tools after it)
    exit_tools: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: required tools that name the item by another argument than ``item_arg`` (``Task.item_keys``):
    #: (tool, argument), and per such argument its value -> item table (``Task.item_table``)
    item_keys: tuple[tuple[str, str], ...] = ()
    item_tables: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    @property
    def _keys(self) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
        # cached by value, not in the instance: ``Procedure(**proc.__dict__)`` keeps working
        return _key_tables(self.item_keys, self.item_tables)

    def item_of(self, tool: str | None, args: Mapping[str, Any] | None) -> str | None:
        """The item a call names: its ``item_arg`` when a non-empty string, else through the
        tool's item key (``item_keys``), else None."""
        args = args if isinstance(args, Mapping) else {}
        value = args.get(self.item_arg)
        if isinstance(value, str) and value:
            return value
        if not self.item_keys:
            return None
        from study.fsm.referral_checks import aliased_item

        return aliased_item(tool, args, *self._keys)

    @property
    def all_tools(self) -> tuple[str, ...]:
        return (self.data_tools + self.optional_tools + self.lookup_tools
                + (self.record_tool, self.decision_tool) + self.listing_tools)

    @property
    def item_tools(self) -> tuple[str, ...]:
        """Every per-item tool that returns the item's data (required or not)."""
        return self.data_tools + self.optional_tools

    def check_params(self) -> dict:
        """The guards' ``with:`` parameters (``item_noun`` only when the item is not an account,
        the checks' default)."""
        params = {"data_tools": list(self.data_tools), "record_tool": self.record_tool,
                  "decision_tool": self.decision_tool, "item_arg": self.item_arg}
        if self.noun != "account":
            params["item_noun"] = self.noun
        if self.exit_tools:
            params["exit_tools"] = {e: list(covered) for e, covered in self.exit_tools}
        if self.item_keys:
            params["item_keys"], params["item_tables"] = self._keys
        return params

    def covered_by_refusal(self, tool: str | None) -> tuple[str, ...]:
        """The required tools a refusal of ``tool`` for an item stands for (empty: none)."""
        return dict(self.exit_tools).get(tool, ())

    @property
    def record_names_none(self) -> bool:
        """Whether the record names no decision (every ``record_args`` entry is None)."""
        return self.record_args.count(None) == len(self.record_args)   # (asked per record: C-level)

    def decision_label(self, args: Mapping[str, Any] | None) -> str | None:
        """The label a decision call's arguments name (several columns: joined by ``LABEL_JOIN``)."""
        args = args or {}
        if len(self.decision_args) == 1:
            return args.get(self.decision_args[0])
        return LABEL_JOIN.join(str(args.get(a)) for a in self.decision_args)

    def record_label(self, args: Mapping[str, Any] | None) -> str | None:
        """The label a record call's arguments name (None when the record names no decision)."""
        if self.record_names_none:
            return None
        args = args or {}
        if len(self.record_args) == 1:
            return args.get(self.record_args[0])
        return LABEL_JOIN.join(str(args.get(f)) if f else "" for f in self.record_args)


@lru_cache(maxsize=64)
def _key_tables(item_keys: tuple[tuple[str, str], ...], item_tables: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
                ) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """``Procedure._keys``: the tool -> key-argument map and each argument's value -> item table."""
    return dict(item_keys), {arg: dict(pairs) for arg, pairs in item_tables}


def referral_procedure() -> Procedure:
    """The preregistered study's procedure, from ``sopbench_tools.tool_definitions``' constants
    (the frozen definition; equal to ``procedure_of`` its task, which a test checks)."""
    from sopbench_tools.tool_definitions import DATA_TOOLS, DECISION_TOOL, LISTING_TOOLS, LOOKUP_TOOLS, RECORD_TOOL

    return Procedure(noun="account", plural="accounts", item_arg="account_id", data_tools=DATA_TOOLS,
                     record_tool=RECORD_TOOL, decision_tool=DECISION_TOOL, listing_tools=LISTING_TOOLS,
                     lookup_tools=LOOKUP_TOOLS)


def procedure_of(task: Any) -> Procedure:
    """The procedure of a loaded ``sopbench_tools.tasks.Task``."""
    required = tuple(task.required_tools)
    optional = tuple(t for t in task.data_tools if t not in required)
    if task.inputs_tool:
        optional = (task.inputs_tool,) + optional
    record_fields = {f.name: f for f in task.record.fields}
    record_args: list[str | None] = []
    for column in task.decision.columns:
        match = record_fields.get(column.argument) or next(
            (f for f in task.record.fields if f.kind == "choice" and tuple(f.choices) == tuple(column.labels)), None)
        record_args.append(match.name if match else None)
    return Procedure(
        noun=task.item.noun, plural=task.item.plural, item_arg=task.item.id_column, data_tools=required,
        record_tool=task.record.tool, decision_tool=task.decision.tool, listing_tools=tuple(task.listing_tools),
        lookup_tools=tuple(task.lookup_tools), optional_tools=optional,
        decision_args=tuple(c.argument for c in task.decision.columns), record_args=tuple(record_args),
        tool_order=tuple((name, tuple(after)) for name, after in task.tool_order.items()),
        exit_tools=tuple((name, tuple(covered)) for name, covered in task.exit_tools.items()),
        item_keys=tuple(task.item_keys.items()),
        item_tables=tuple((arg, tuple(task.item_table(arg).items())) for arg in dict.fromkeys(task.item_keys.values())),
    )


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


def gold_of(task: Any) -> dict[str, str]:
    """Item id -> gold label (several decision columns: joined by ``LABEL_JOIN``, in the
    decision's column order). For the scorer and the tests; never shown to the agent."""
    columns = [c.column for c in task.decision.columns]
    return {item: LABEL_JOIN.join(str(gold[c]) for c in columns) for item, gold in task.gold.items()}


def majority_label(task: Any) -> str:
    """The most frequent gold label (ties: the first in sorted order): what the simulator's lazy
    routes guess ("No Action" for the referral study, 134 of 200)."""
    counts = Counter(gold_of(task).values())
    return min(counts, key=lambda label: (-counts[label], label))


# -- which task -----------------------------------------------------------------------------------

def project_task_source() -> str | Path:
    """The task of the project in use: ``preregistration/task.yaml``'s, else the preregistered one."""
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
    a vendored one. Raises ``sopbench_tools.tasks.TaskError`` for an unknown name."""
    from sopbench_tools.tasks import load_task

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


@lru_cache(maxsize=32)
def _cached(name: str, root: str) -> tuple[Procedure, dict[str, str]]:
    if name == PREREGISTERED_TASK:
        from sopbench_tools.dataset import gold_labels

        return referral_procedure(), gold_labels()
    task = resolve_task(name)
    return procedure_of(task), gold_of(task)


def scoring_view(name: str | None) -> tuple[Procedure, dict[str, str]]:
    """The procedure and gold labels of the task called ``name`` (None: the preregistered one, as
    the referral study's logs name none), cached per project folder. The preregistered task's come
    from its frozen module constants and gold loader, as before tasks were data."""
    from study.paths import project_root

    return _cached(name or PREREGISTERED_TASK, str(project_root()))
