"""The typed ``Task``: one SOP-Bench-format task folder plus its manifest, as the study uses it.

A task folder (SOP-Bench's format, ``docs/ADDING_BENCHMARKS.md`` upstream) holds ``sop.txt``,
``toolspecs.json``, ``tools.py``, ``metadata.json`` and the data CSVs. The upstream format leaves
open what a batched study needs to know; the manifest (``manifests/<task>.yaml``, loaded by
``manifest.py``) says it: the item id column and noun, the role of every tool, which tools the SOP
requires before a decision (the ``inv`` clause), the order the SOP imposes, the record step, the
decision's column(s) and labels. Everything the study took from module constants comes from here.

All types are frozen. ``Task.rows`` holds the agent-visible values (``test_set_without_outputs.csv``,
or the outputs CSV without its output columns); ``Task.gold`` the decision column(s) and is for the
scorer and the tests only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

#: Tool roles. ``data``: a per-item data tool the agent calls for an item; ``lookup``: another
#: task tool that is served (e.g. a fixed guideline note); ``withheld``: an upstream tool that is
#: not served, with the reason (it would return the gold, or tools.py cannot dispatch it).
TOOL_ROLES = ("data", "lookup", "withheld")
#: How the served task tools compute their results: ``columns`` reads typed columns of the
#: agent-visible row (the preregistered task, frozen behaviour); ``upstream`` calls the vendored
#: ``tools.py`` of the task (its ``process_tool_call``).
BACKENDS = ("columns", "upstream")
#: Kinds of a record field (an argument of the record tool).
FIELD_KINDS = ("choice", "scores", "string", "number", "integer", "boolean")


@dataclass(frozen=True)
class TaskTool:
    """One SOP-Bench tool of the task, as the manifest describes it."""

    name: str
    role: str
    #: the SOP requires a successful call of it for an item before that item's decision
    required: bool
    #: tools whose successful call (same item) must come first: this tool takes their outputs
    after: tuple[str, ...] = ()
    #: the argument names (equal to row columns) whose values identify the item of a call
    item_args: tuple[str, ...] = ()
    #: arguments whose values are other tools' outputs (not the item's columns)
    chained_args: tuple[str, ...] = ()
    #: ``columns`` backend only: (column, type) pairs returned besides the item id; type is one
    #: of str, int, float, bool
    returns: tuple[tuple[str, str], ...] = ()
    #: a fixed result (a ``lookup`` tool that returns the same object for every item)
    fixed_result: Mapping[str, Any] | None = None
    #: upstream's result is random (``random.random()``); the server seeds it per call
    random: bool = False
    #: the result has a key named like a decision column, whose value the tool computes from
    #: its arguments (never read from the gold: the gold-leak test checks it)
    computes_decision_column: bool = False
    #: result keys (at any depth) whose values upstream takes from the clock or ``uuid4``; served
    #: as upstream gives them, compared as "any value" by the equality test
    volatile_keys: tuple[str, ...] = ()
    #: why the tool is withheld, or any remark on it
    note: str = ""
    #: the SOP's early exit: when this (required) tool refuses an item (an error result), the
    #: SOP's procedure for that item ends there; the refusal stands for its own call and for the
    #: calls of the required tools that come after it (``after``, transitively)
    exit_on_refusal: bool = False
    #: the tool returns a bare value (not a JSON object): the argument name later tools take it
    #: as (content_flagging's calculate_user_trust_score -> user_trust_score); for the simulator
    result_name: str = ""


@dataclass(frozen=True)
class RecordField:
    """One argument of the record tool besides the item id."""

    name: str
    kind: str
    #: ``choice``: the allowed values; ``scores``: the keys (each an integer >= 0)
    choices: tuple[str, ...] = ()
    description: str = ""
    #: how an error names the vocabulary, e.g. "one of the STEP 2 violation types"
    what: str = ""


@dataclass(frozen=True)
class RecordStep:
    """The study's record tool: the agent's written analysis of one item."""

    tool: str
    description: str
    fields: tuple[RecordField, ...]
    #: the valid form quoted in its error messages
    usage: str
    #: the FSM requires a record before the decision
    required: bool = True


@dataclass(frozen=True)
class DecisionColumn:
    """One output column the decision sets, and its label vocabulary."""

    column: str
    #: the argument of the decision tool that carries it
    argument: str
    labels: tuple[str, ...]
    description: str = ""
    #: how an error names the vocabulary, e.g. "one of the seven enforcement actions"
    what: str = ""


@dataclass(frozen=True)
class Decision:
    """The study's decision tool (first successful call per item is the decision)."""

    tool: str
    description: str
    columns: tuple[DecisionColumn, ...]
    usage: str

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels of the first (for all but multi-column tasks the only) decision column."""
        return self.columns[0].labels


@dataclass(frozen=True)
class Item:
    """What the task calls one unit of work."""

    id_column: str
    noun: str
    plural: str
    #: one id, quoted in the usage texts
    example: str
    #: the JSON schema description of the id argument
    id_description: str
    #: the columns the agent needs for an item (its tools' inputs); served by ``get_inputs``
    #: when they are more than the id
    input_columns: tuple[str, ...]


@dataclass(frozen=True)
class Task:
    """A loaded, checked task. Built by ``manifest.load_task``; never construct one by hand."""

    name: str
    #: the vendored folder (absolute)
    folder: Path
    #: the manifest file it came from
    manifest: Path
    #: where the folder came from (e.g. "amazon-science/SOP-Bench@2fdce4c5")
    source: str
    runnable: bool
    #: why a task cannot run here (empty when runnable)
    not_runnable_reason: str
    item: Item
    backend: str
    #: every SOP-Bench tool of toolspecs.json, in toolspecs.json's order
    tools: tuple[TaskTool, ...]
    #: toolspecs.json as loaded (a list of {"toolSpec": ...})
    toolspecs: tuple[Mapping[str, Any], ...]
    record: RecordStep
    decision: Decision
    #: descriptions of list_batch and list_decisions
    listing: Mapping[str, str]
    #: the SOP text the Sys conditions append (the file named by the manifest's ``sop``)
    sop: str
    sop_file: str
    #: where the SOP is ambiguous and what the manifest chose (free text, one entry a line)
    comments: str
    metadata: Mapping[str, Any]
    #: item id -> agent-visible row (strings, as in the CSV)
    rows: Mapping[str, Mapping[str, str]]
    #: item id -> {decision column: gold label}; for scoring and tests only
    gold: Mapping[str, Mapping[str, str]]
    #: file name -> sha256 checked at load
    files: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    # ----- derived views -------------------------------------------------------------------

    @property
    def item_ids(self) -> list[str]:
        """All item ids, in the CSV's order."""
        return list(self.rows)

    def tool(self, name: str) -> TaskTool:
        return next(t for t in self.tools if t.name == name)

    @property
    def served_tools(self) -> tuple[TaskTool, ...]:
        """The task tools the agent sees (data and lookup), in toolspecs.json's order."""
        return tuple(t for t in self.tools if t.role != "withheld")

    @property
    def data_tools(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools if t.role == "data")

    @property
    def lookup_tools(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools if t.role == "lookup")

    @property
    def required_tools(self) -> tuple[str, ...]:
        """The tools the SOP requires for an item before its decision (the ``inv`` clause)."""
        return tuple(t.name for t in self.tools if t.required)

    @property
    def tool_order(self) -> Mapping[str, tuple[str, ...]]:
        """tool -> the tools that must come before it for the same item (only tools with some)."""
        return MappingProxyType({t.name: t.after for t in self.tools if t.after})

    @property
    def exit_tools(self) -> Mapping[str, tuple[str, ...]]:
        """exit tool -> the required tools a refusal of it stands for: itself and every required
        tool after it (transitively), in toolspecs.json's order (only tools with
        ``exit_on_refusal``)."""
        out = {}
        for e in (t.name for t in self.tools if t.exit_on_refusal):
            covered = {e}
            grew = True
            while grew:
                grew = False
                for t in self.tools:
                    if t.required and t.name not in covered and covered & set(t.after):
                        covered.add(t.name)
                        grew = True
            out[e] = tuple(t.name for t in self.tools if t.name in covered)
        return MappingProxyType(out)

    @property
    def item_keys(self) -> Mapping[str, str]:
        """tool -> the argument that names the item of its calls, for each required tool that does
        not take the item id: the first of its ``item_args`` whose value each item has its own of
        (content_flagging's ``userid``). A required tool with none of those (its item arguments
        shared by several items, or none) is absent: its calls name no one item, and the study
        cannot run the task. The other tools' calls are attributed by the item id alone."""
        out = {}
        for tool in self.tools:
            if not tool.required or self.item.id_column in tool.item_args:
                continue
            arg = next((a for a in tool.item_args if len(self.item_table(a)) == len(self.rows)), None)
            if arg is not None:
                out[tool.name] = arg
        return MappingProxyType(out)

    def item_table(self, arg: str) -> Mapping[str, str]:
        """The value of column ``arg`` -> the item id of the row with that value (one entry per
        distinct value; shorter than ``rows`` when some value is shared)."""
        seen: dict[str, str] = {}
        shared: set[str] = set()
        for item, row in self.rows.items():
            value = str(row.get(arg))
            if value in seen:
                shared.add(value)
            seen.setdefault(value, item)
        return MappingProxyType({v: i for v, i in seen.items() if v not in shared})

    @property
    def inputs_tool(self) -> str | None:
        """``get_inputs`` when the items have input columns besides the id, else None."""
        return "get_inputs" if tuple(self.item.input_columns) != (self.item.id_column,) else None

    @property
    def listing_tools(self) -> tuple[str, ...]:
        return ("list_batch", "list_decisions")

    @property
    def all_tools(self) -> tuple[str, ...]:
        """Every tool the agent sees, in the order ``tools/list`` gives them."""
        own = ((self.inputs_tool,) if self.inputs_tool else ()) + (self.record.tool, self.decision.tool)
        return self.data_tools + self.lookup_tools + own + self.listing_tools

    @property
    def labels(self) -> tuple[str, ...]:
        return self.decision.labels

    def gold_label(self, item_id: str) -> str:
        """The gold label of the first decision column."""
        return self.gold[item_id][self.decision.columns[0].column]
