"""The tools the agent sees: their single implementation and the per-session tool state,
generic over the task (``sopbench_tools/tasks/``; default: the preregistered task).

``ToolBox`` answers every tool call of one session. Two thin adapters serve it: ``server.py``
(an MCP server over stdio, ``python -m sopbench_tools``) and ``sdk_server.py`` (the same server
in process for ``claude-agent-sdk``). ``docs/contracts.md`` ("Tools the agent sees") fixes the
names, arguments and result format.

The tools (names, schemas, usage texts) are built from the task by ``task_tools.py`` and their
arguments validated by ``argument_checks.py``; a task tool's result comes from the item's typed
columns (``columns`` backend: the preregistered task, as frozen) or from the task's own vendored
``tools.py`` (``upstream`` backend, ``tasks/upstream.py``). ``state_log.py`` holds the files below.

State: with a ``state_dir``, every record and decision is appended to ``records.jsonl`` /
``decisions.jsonl`` there and fsynced before the call returns, and ``batch.json`` holds the
batch; a new ToolBox on the same folder reloads them, so a restarted server loses nothing it
confirmed.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from study.session_io.writer import utc_now
from study.tooling import ToolResult

from .argument_checks import ArgumentChecks, _BadCall
from .state_log import ToolStateError, _JsonlLog
from .task_tools import build_tool_defs
from .tasks import PREREGISTERED_TASK, Task, load_task
from .tasks.attribution import aliased_item


def _csv_bool(text: str) -> bool:
    if text not in ("True", "False"):
        raise ValueError(f"not a CSV boolean: {text!r}")
    return text == "True"


#: How a ``columns``-backend tool converts a CSV cell (``TaskTool.returns`` types).
CONVERTERS = {"str": str, "int": int, "float": float, "bool": _csv_bool}


__all__ = ["CONVERTERS", "ToolBox", "ToolResult"]


class ToolBox(ArgumentChecks):
    """All tools of one session over one batch of items of ``task`` (default: the preregistered task).

    ``order`` is the batch (item ids in processing order); ``state_dir`` the folder for
    the session's records and decisions (None keeps them in memory only). ``call`` never raises
    for bad input: it returns an error result.
    """

    def __init__(self, order: list[str], state_dir: Path | None = None, *, task: Task | None = None):
        self.task = task or load_task(PREREGISTERED_TASK)
        self.defs = build_tool_defs(self.task)
        self.order = list(order)
        self._check_order()
        self._batch = set(self.order)
        self._id = self.task.item.id_column
        #: required tools that name the item by another argument (Task.item_keys), and its tables
        self._keys = dict(self.task.item_keys)
        self._tables = {arg: self.task.item_table(arg) for arg in set(self._keys.values())}
        self._upstream = None
        if self.task.backend == "upstream":
            from .tasks.upstream import UpstreamTools

            self._upstream = UpstreamTools(self.task)
        self._lock = threading.Lock()
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self._records_log = self._decisions_log = None
        self._records: list[dict] = []
        self._decisions: dict[str, Any] = {}
        if self.state_dir is not None:
            self._open_state()

    @classmethod
    def for_seed(cls, seed: int, accounts: int | None = None, state_dir: Path | None = None, *,
                 task: Task | None = None) -> ToolBox:
        """The batch of ``seed``: its order, cut to the first ``accounts`` ids if given."""
        from .orders import order_for_task

        order = order_for_task(seed, task)
        if accounts is not None:
            if not 1 <= accounts <= len(order):
                raise ValueError(f"--accounts must be between 1 and {len(order)}, got {accounts}")
            order = order[:accounts]
        return cls(order, state_dir, task=task)

    def _check_order(self) -> None:
        noun, ids = self.task.item.noun, self.task.item_ids
        if not self.order:
            raise ValueError(f"the batch is empty: give at least one {noun} id")
        unknown = [a for a in self.order if a not in self.task.rows]
        if unknown:
            raise ValueError(f"the batch names unknown {noun} ids {unknown[:5]}; ids are {ids[0]} ... {ids[-1]}")
        if len(set(self.order)) != len(self.order):
            raise ValueError(f"the batch lists an {noun} more than once" if noun[:1] in "aeiou"
                             else f"the batch lists a {noun} more than once")

    def _open_state(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        batch_file = self.state_dir / "batch.json"
        if batch_file.exists():
            stored = json.loads(batch_file.read_text(encoding="utf-8"))["order"]
            if stored != self.order:
                raise ToolStateError(
                    f"{self.state_dir} holds the tool state of another batch ({len(stored)} {self.task.item.plural}, "
                    f"starting {stored[:3]}). Use the same seed and --accounts as before, or a fresh --state-dir."
                )
        else:
            tmp = batch_file.with_suffix(".tmp")
            tmp.write_text(json.dumps({"order": self.order}, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, batch_file)
        self._records_log = _JsonlLog(self.state_dir / "records.jsonl")
        self._decisions_log = _JsonlLog(self.state_dir / "decisions.jsonl")
        self._records = self._records_log.load()
        for entry in self._decisions_log.load():
            self._decisions.setdefault(entry[self._id], self._label_of(entry))

    def _label_of(self, values: dict) -> Any:
        """The decision's label: a str, or {argument: label} for a task with several decision columns."""
        columns = self.task.decision.columns
        if len(columns) == 1:
            return values[columns[0].argument]
        return {c.argument: values[c.argument] for c in columns}

    # ----- read-only views for the runner and the tests -------------------------------------

    @property
    def decisions(self) -> dict[str, Any]:
        """Item id -> decided label (see ``_label_of``), in submission order."""
        return dict(self._decisions)

    @property
    def records(self) -> list[dict]:
        """Every record, in the order they were made."""
        return [dict(r) for r in self._records]

    @property
    def accounts_left(self) -> int:
        return len(self.order) - len(self._decisions)

    def next_undecided(self) -> str | None:
        """The first item of the batch order without a decision (None when all are decided)."""
        return next((a for a in self.order if a not in self._decisions), None)

    def tool_specs(self) -> list[dict]:
        """Every tool as ``{"name", "description", "inputSchema"}``, in the order of ``task.all_tools``."""
        return json.loads(json.dumps(self.defs.specs))

    # ----- calls ------------------------------------------------------------------------------

    def call(self, name: str, args: dict | None) -> ToolResult:
        """Run one tool call; bad input gives an error result and changes nothing."""
        args = {} if args is None else args
        account = args.get(self._id) if isinstance(args, dict) else None
        account = account if isinstance(account, str) and account else None
        if account is None and self._keys and isinstance(args, dict):
            account = aliased_item(name, args, self._keys, self._tables)
        if name not in self.defs.usage:
            return self._error(f"unknown tool {name!r}", "The tools are: " + ", ".join(self.task.all_tools) + ".", account)
        with self._lock:
            try:
                values = self._validate(name, args)
                data = self._run(name, values)
            except _BadCall as bad:
                return self._error(bad.what, bad.valid_form or self.defs.usage[name], account)
        text = json.dumps(data, ensure_ascii=False)
        return ToolResult(ok=True, text=text, data=data if isinstance(data, dict) else {"result": data}, account=account)

    @staticmethod
    def _error(what: str, valid_form: str, account: str | None) -> ToolResult:
        return ToolResult(ok=False, text=f"Error: {what}. {valid_form}", data=None, account=account)

    def _run(self, name: str, values: dict[str, Any]) -> Any:
        task = self.task
        if name == task.record.tool:
            return self._record(values)
        if name == task.decision.tool:
            return self._decide(values)
        if name == "list_batch":
            return {task.item.plural: list(self.order), "count": len(self.order), "decided": len(self._decisions)}
        if name == "list_decisions":
            return {
                "decisions": [{self._id: a, **self._label_args(label)} for a, label in self._decisions.items()],
                "count": len(self._decisions),
            }
        if name == task.inputs_tool:
            return self.item_inputs(values[self._id])
        tool = task.tool(name)
        if self._upstream is not None:
            from .tasks.upstream import UpstreamError

            try:
                return self._upstream.call(name, values)
            except UpstreamError as exc:
                raise _BadCall(f"{name} failed: {exc}") from None
        if tool.fixed_result is not None:
            return dict(tool.fixed_result)
        return self.data_fields(name, values[self._id])

    def _label_args(self, label: Any) -> dict:
        return dict(label) if isinstance(label, dict) else {self.task.decision.columns[0].argument: label}

    def data_fields(self, tool: str, account_id: str) -> dict:
        """The typed fields ``columns``-backend data tool ``tool`` returns for ``account_id``."""
        row = self.task.rows[account_id]
        fields: dict[str, Any] = {self._id: account_id}
        for column, type_name in self.task.tool(tool).returns:
            text = row[column]
            fields[column] = None if text == "" else CONVERTERS[type_name](text)
        return fields

    def item_inputs(self, item_id: str) -> dict:
        """The item's input columns, typed as upstream's tools compare them (``get_inputs``)."""
        from .tasks.arguments import typed_rows

        row = typed_rows(self.task)[item_id]
        return {c: row.get(c) for c in self.task.item.input_columns}

    def _record(self, values: dict[str, Any]) -> dict:
        entry = {"n": len(self._records) + 1, "t": utc_now(), **values}
        if self._records_log is not None:
            self._records_log.append(entry)
        self._records.append(entry)
        return {"recorded": True, "record": entry["n"], **values}

    def _decide(self, values: dict[str, Any]) -> dict:
        item, noun, plural = values[self._id], self.task.item.noun, self.task.item.plural
        if item in self._decisions:
            article = "an" if noun[:1] in "aeiou" else "a"
            raise _BadCall(
                f"{noun} {item!r} already has a decision ({self._decisions[item]!r}), and the "
                f"first decision of {article} {noun} is final",
                f"Submit one decision per {noun}; list_decisions shows the decisions so far and "
                "list_batch the batch.",
            )
        labels = {k: v for k, v in values.items() if k != self._id}
        entry = {"n": len(self._decisions) + 1, "t": utc_now(), self._id: item, **labels}
        if self._decisions_log is not None:
            self._decisions_log.append(entry)
        self._decisions[item] = self._label_of(labels)
        return {"decided": True, self._id: item, **labels, "decisions": len(self._decisions), plural: len(self.order)}
