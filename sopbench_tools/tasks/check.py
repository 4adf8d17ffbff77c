"""``study task check``: a task's manifest against its folder, and its served tools against its own tools.py.

``folder_findings(task)`` lists what loading does not already refuse: files in the folder that
the manifest's sha256 table leaves unchecked, tools whose ``item_args`` do not identify one item,
tools no call of which names an item, labels the gold never uses, output columns that are not
decision columns. ``tool_findings(task)`` runs every (tool, item) pair through the study's server
and through upstream's tools.py (``pairs.py``) and reports the counts and every difference.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .manifest import entry_sha256
from .pairs import compare, our_calls, upstream_answers
from .task import Task


@dataclass
class Findings:
    """What a check found: ``problems`` make the check fail; ``notes`` are for the reader."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def folder_findings(task: Task) -> Findings:
    found = Findings()
    listed = set(task.files)
    for path in sorted(task.folder.iterdir()):
        name = path.name + ("/" if path.is_dir() else "")
        # Python's byte-code cache (written when tools.py is imported) is not part of the task
        if name not in listed and not path.name.startswith(".") and path.name != "__pycache__":
            found.problems.append(f"{name} is in the folder but not in the manifest's files table "
                                  f"(add `{name}: {entry_sha256(path)}`)")
    for tool in task.served_tools:
        if not tool.item_args:
            found.notes.append(f"{tool.name}: no argument names the item, so a call of it is not attributed to one")
            continue
        for arg in tool.item_args:
            if arg == task.item.id_column:
                continue
            counts = Counter(str(row.get(arg)) for row in task.rows.values())
            shared = sum(1 for n in counts.values() if n > 1)
            if arg not in next(iter(task.rows.values())):
                found.problems.append(f"{tool.name}: item argument {arg!r} is not a column of the items")
            elif shared:
                found.notes.append(f"{tool.name}: {arg} is shared by several items for {shared} value(s); "
                                   "such a call names more than one item")
    for column in task.decision.columns:
        used = {g[column.column] for g in task.gold.values()}
        unused = [label for label in column.labels if label not in used]
        if unused:
            found.notes.append(f"decision {column.column}: labels the gold never uses: {', '.join(unused)}")
        found.notes.append(f"decision {column.column}: " + ", ".join(
            f"{label or '(empty)'} {n}" for label, n in Counter(g[column.column] for g in task.gold.values()).most_common()))
    outputs = [c for c in task.metadata.get("output_columns", ()) if c not in {d.column for d in task.decision.columns}]
    if outputs:
        found.notes.append(f"metadata.json output columns that are step results, not the decision: {', '.join(outputs)}")
    from .attribution import unsupported_reason

    reason = unsupported_reason(task)
    if reason:
        found.notes.append(f"not runnable: {reason}")
    return found


def tool_findings(task: Task, items: int | None = None) -> tuple[Findings, dict]:
    """Every served tool on every item (or the first ``items``) through both; the counts."""
    found = Findings()
    ids = task.item_ids[:items] if items else task.item_ids
    if not task.served_tools:
        found.notes.append("no tool is served (all withheld)")
        return found, {"pairs": 0}
    calls = our_calls(task, items=ids)
    with tempfile.TemporaryDirectory() as tmp:
        answers = upstream_answers(task, [(tool, args) for _i, tool, args, _r in calls], Path(tmp))
    counts = compare(task, calls, answers)
    for item, tool, args, ours, theirs in counts.pop("differ"):
        found.problems.append(f"{tool} on {item}: the server gave {ours!r}, tools.py gave {theirs!r} (arguments {args})")
    return found, counts
