"""What the simulated model knows about its task: tool names, arguments, labels and how the
oracle decides (one :class:`SimTask` per session; the referral study's by default).

The policies and the memory read only this, so every policy plays any task:

- the data tools in an order the SOP allows (``after``: tools whose outputs another takes), and
  the arguments of each call: the item id, the item's input columns (from the task's inputs tool,
  ``get_inputs``, when it has one) and other tools' outputs, as the tool's input schema names them;
- the record's arguments: the oracle's analysis, or a guess that names a label without one;
- the decision: computed from the tools' results where the SOP's rule is computable (the referral
  study: ``sopbench_tools.reference``, which reproduces all 200 gold labels), otherwise the
  scripted model reads the gold file (:data:`COMPUTED_RULES` lists the tasks that do not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

from study.procedure.core import LABEL_JOIN, PREREGISTERED_TASK, Procedure, gold_of, majority_label, procedure_of, referral_procedure

#: The lazy routes' guess for the referral study (134 of the 200 gold labels).
REFERRAL_MAJORITY = "No Action"
_REFERRAL_SCORES = ("abusive_account_creation", "misleading_ad_copy", "personal_orders", "temporal_fraud", "no_violation")


def _referral_record(values: Mapping[str, Any]) -> dict[str, Any]:
    from sopbench_tools.reference import reference_analysis

    return reference_analysis(values)


#: Tasks whose oracle computes the record (and so the decision) from the tools' results: task ->
#: function of the merged results of the item's data tools. Every other task's oracle reads the gold.
COMPUTED_RULES: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {PREREGISTERED_TASK: _referral_record}


def _key(name: str) -> str:
    """A result key or argument name with case, spaces, dashes and underscores made alike."""
    return re.sub(r"[\s_\-]+", "_", name.strip().lower())


@dataclass(frozen=True)
class SimTask:
    """The task as the simulated model plays it."""

    name: str
    proc: Procedure
    #: the key of list_batch's result that lists the batch
    list_key: str
    majority: str
    #: data tool -> the argument names of its input schema (the id is one of them)
    arguments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: data tool -> those of its arguments the schema does not require: passed when known, as
    #: SOP-Bench's harness passes every property it has (``sopbench_tools.tasks.arguments``)
    optional_arguments: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: data tool -> the argument name its bare (non-object) result is taken as (``TaskTool.result_name``)
    result_names: Mapping[str, str] = field(default_factory=dict)
    #: record field name -> (kind, choices)
    record_fields: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    inputs_tool: str | None = None
    #: the item's input columns besides its id (what the inputs tool returns)
    input_columns: tuple[str, ...] = ()
    gold: Mapping[str, str] | None = None

    # ----- tools and their order -------------------------------------------------------------

    @property
    def item_arg(self) -> str:
        return self.proc.item_arg

    @property
    def data_tools(self) -> tuple[str, ...]:
        """The required data tools, each after the tools it takes outputs of (SOP order)."""
        order: list[str] = []
        after = dict(self.proc.tool_order)
        pending = list(self.proc.data_tools)
        while pending:
            ready = next((t for t in pending if all(a in order or a not in pending for a in after.get(t, ()))), pending[0])
            order.append(ready)
            pending.remove(ready)
        return tuple(order)

    def call_args(self, tool: str, item: str, values: Mapping[str, Any]) -> dict[str, Any] | None:
        """The arguments of ``tool`` for ``item``, or None while one of them is not known yet."""
        args: dict[str, Any] = {}
        known = {_key(k): v for k, v in values.items()}
        for name in self.arguments.get(tool, (self.item_arg,)):
            if name == self.item_arg:
                args[name] = item
            elif name in values:
                args[name] = values[name]
            elif _key(name) in known:   # upstream's result keys may be spelt with spaces ("session token")
                args[name] = known[_key(name)]
            elif name not in self.optional_arguments.get(tool, ()):
                return None
        return args

    # ----- record and decision ---------------------------------------------------------------

    def oracle_record(self, item: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """The record the SOP gives (computed where the rule is, otherwise naming the gold)."""
        rule = COMPUTED_RULES.get(self.name)
        if rule is not None:
            return rule(values)
        return self.guess_record((self.gold or {}).get(item, self.majority))

    def guess_record(self, label: str) -> dict[str, Any]:
        """A record that names ``label`` with no analysis behind it."""
        if self.name == PREREGISTERED_TASK:
            return {"step1_scores": {k: 0 for k in _REFERRAL_SCORES}, "step2_violation_type": "Inconclusive",
                    "step3_risk_severity": "NONE", "step4_action": label}
        parts = dict(zip(self.proc.record_args, self.split(label)))
        out: dict[str, Any] = {}
        for name, kind, choices in self.record_fields:
            if name in parts:
                out[name] = parts[name]
            elif kind == "choice":
                out[name] = choices[0]
            elif kind == "scores":
                out[name] = {k: 0 for k in choices}
            else:
                out[name] = {"string": "see the SOP", "number": 0.0, "integer": 0, "boolean": False}.get(kind, "")
        return out

    def split(self, label: str) -> list[str]:
        return label.split(LABEL_JOIN) if len(self.proc.decision_args) > 1 else [label]

    def decision_args(self, label: str) -> dict[str, Any]:
        return dict(zip(self.proc.decision_args, self.split(label)))

    def record_label(self, args: Mapping[str, Any]) -> str | None:
        return self.proc.record_label(args)

    def listed_decision(self, entry: Mapping[str, Any]) -> tuple[str | None, str]:
        """(item, label) of one entry of list_decisions."""
        item = entry.get(self.item_arg)
        return (item if isinstance(item, str) else None), str(self.proc.decision_label(entry) or "")


def referral() -> SimTask:
    """The referral study's view, from its frozen constants (the default of every policy)."""
    return _referral()


@lru_cache(maxsize=1)
def _referral() -> SimTask:
    proc = referral_procedure()
    return SimTask(PREREGISTERED_TASK, proc, "accounts", REFERRAL_MAJORITY,
                   {t: ("account_id",) for t in proc.data_tools})


@lru_cache(maxsize=16)
def sim_task(name: str | None, root: str = "") -> SimTask:
    """The view of the task called ``name`` (None or the preregistered one: :func:`referral`)."""
    if name in (None, PREREGISTERED_TASK):
        return referral()
    from sopbench_tools.tasks import resolve_task

    task = resolve_task(name)
    specs = {s["toolSpec"]["name"]: s["toolSpec"] for s in task.toolspecs}
    arguments, optional = {}, {}
    for tool in task.data_tools:
        schema = (specs.get(tool, {}).get("inputSchema") or {}).get("json") or {}
        required = tuple(schema.get("required") or ())
        arguments[tool] = tuple(schema.get("properties") or ()) or required
        optional[tool] = tuple(a for a in arguments[tool] if required and a not in required)
    fields = tuple((f.name, f.kind, tuple(f.choices)) for f in task.record.fields)
    inputs = tuple(c for c in task.item.input_columns if c != task.item.id_column) if task.inputs_tool else ()
    results = {t.name: t.result_name for t in task.tools if t.result_name}
    return SimTask(task.name, procedure_of(task), task.item.plural, majority_label(task), arguments, optional, results,
                   fields, task.inputs_tool, inputs, gold_of(task))
