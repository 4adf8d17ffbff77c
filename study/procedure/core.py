"""What the study's procedure is for one task: the one place a ``Task`` becomes the names the FSM
builder, the scorer and the simulator use.

A :class:`Procedure` names the item (noun, id argument), the data tools the SOP requires before a
decision (the ``inv`` clause and the guard of Eq. 4), the task's other per-item tools, the record
tool and the field(s) of it that name the decision (the ``rec`` clause), and the decision tool and
its argument(s). :func:`procedure_of` makes it from a loaded ``sopbench_tools.tasks.Task``;
for the preregistered task it equals the module constants of ``sopbench_tools.tool_definitions``
(a test checks it).

A session names its task in ``session_start.task`` (absent in the referral study's logs: the
preregistered task). ``sopbench_tools.tasks.resolve_task`` loads a task by that name: the
project's own task (``preregistration/task.yaml``, written by ``study new``) when the name is its
name, otherwise a vendored task; :func:`scoring_view` gives its procedure and gold labels.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

from sopbench_tools.tasks import PREREGISTERED_TASK, resolve_task   # PREREGISTERED_TASK: the preregistered study's
from sopbench_tools.tasks.attribution import aliased_item

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
