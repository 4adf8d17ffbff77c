"""The arguments of a task tool for one item, as SOP-Bench's harness would pass them.

Upstream's tools match the item's row by comparing each argument with the CSV value pandas
read (``df[col] == value``), so an argument must carry pandas' type of the cell: ``typed_rows``
reads the task's ``test_set_with_outputs.csv`` with pandas (the file upstream reads), drops the
decision column(s) and turns every cell into a JSON value. ``call_arguments`` fills a tool's
input schema from the item's typed row and, for the chained arguments, from the results of the
tools that produce them. Used by ``get_inputs``, the reference test and the simulator.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from .task import Task
from .upstream import to_json


@lru_cache(maxsize=16)
def _typed_rows(folder: str, id_column: str, drop: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    import pandas as pd

    frame = pd.read_csv(f"{folder}/test_set_with_outputs.csv")
    rows = {}
    for record in frame.to_dict(orient="records"):
        row = {str(k): to_json(v) for k, v in record.items() if k not in drop}
        rows[str(row[id_column])] = row
    return rows


def typed_rows(task: Task) -> dict[str, dict[str, Any]]:
    """Item id -> {column: JSON value as pandas read it}, without the decision column(s)."""
    drop = tuple(c.column for c in task.decision.columns)
    return _typed_rows(str(task.folder), task.item.id_column, drop)


def input_schema(task: Task, tool: str) -> Mapping[str, Any]:
    spec = next(s["toolSpec"] for s in task.toolspecs if s["toolSpec"]["name"] == tool)
    return spec["inputSchema"]["json"]


def call_arguments(task: Task, tool: str, item_id: str, produced: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The arguments of ``tool`` for ``item_id``: every schema property that is a column of the
    item's row, or a key of ``produced`` (the merged JSON-object results of earlier tools for
    the item, for chained arguments). Properties found in neither are left out."""
    row = typed_rows(task)[item_id]
    produced = produced or {}
    args = {}
    for prop in input_schema(task, tool).get("properties", {}):
        if prop in task.tool(tool).chained_args and prop in produced:
            args[prop] = produced[prop]
        elif prop in row:
            args[prop] = row[prop]
        elif prop in produced:
            args[prop] = produced[prop]
    return args
