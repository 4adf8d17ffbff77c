"""Loading a task manifest (``manifests/<task>.yaml``) into a :class:`~.task.Task`, validated
with line numbers, and checking the vendored folder's files against their sha256 on the way.

The manifest's keys are described in ``docs/contracts.md`` ("Task manifest"). ``_Loader``
collects every problem with its line and raises one :class:`TaskError` listing them all.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

from study.protocol.problems import Problem, WorkflowError
from study.protocol.yaml_lines import LineList, LineMap, YamlError, load_yaml_with_lines

from .task import BACKENDS, FIELD_KINDS, TOOL_ROLES, Decision, DecisionColumn, Item, RecordField, RecordStep, Task, TaskTool

TOP_KEYS = ("task", "folder", "source", "runnable", "not_runnable_reason", "sop", "backend", "item", "input_columns",
            "tools", "record", "decision", "listing", "comments", "files")
REQUIRED_TOP = ("task", "folder", "source", "runnable", "sop", "backend", "item", "tools", "record", "decision", "files")
ITEM_KEYS = ("id_column", "noun", "plural", "example", "id_description")
TOOL_KEYS = ("role", "required", "after", "item_args", "chained_args", "returns", "fixed_result", "random",
             "computes_decision_column", "volatile_keys", "note", "exit_on_refusal", "result_name")
RECORD_KEYS = ("tool", "required", "description", "fields", "usage")
FIELD_KEYS = ("kind", "choices", "description", "what")
DECISION_KEYS = ("tool", "description", "columns", "usage")
COLUMN_KEYS = ("column", "argument", "labels", "description", "what")
RETURN_TYPES = ("str", "int", "float", "bool")
DEFAULT_LISTING = {
    "list_batch": "Lists the {plural} of this batch in processing order, with how many have been decided.",
    "list_decisions": "Lists the decisions submitted so far, in submission order.",
}


class TaskError(WorkflowError):
    """A manifest or task folder that cannot be used: ``problems`` lists each (line, what to fix)."""


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_sha256(folder: Path) -> str:
    """One sha256 for a folder of files: that of its ``sha256sum``-style listing (sorted by
    path relative to the folder)."""
    listing = "".join(f"{sha256_file(p)}  {p.relative_to(folder).as_posix()}\n"
                      for p in sorted(folder.rglob("*")) if p.is_file())
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()


def entry_sha256(path: Path) -> str:
    return tree_sha256(path) if path.is_dir() else sha256_file(path)


def _csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


class _Loader:
    def __init__(self, text: str, file: Path, data_root: Path, verify: bool):
        self.text, self.file, self.data_root, self.verify = text, file, data_root, verify
        self.problems: list[Problem] = []

    def problem(self, line: int | None, message: str) -> None:
        self.problems.append(Problem(line, message))

    def fail_if_problems(self) -> None:
        if self.problems:
            self.problems.sort(key=lambda p: p.line or 0)
            raise TaskError(self.file, self.problems)

    def mapping(self, node: Any, line: int, where: str, known: tuple[str, ...], required: tuple[str, ...] = ()) -> LineMap:
        if not isinstance(node, LineMap):
            self.problem(line, f"{where} must be a mapping")
            return LineMap()
        for key in node:
            if key not in known:
                self.problem(node.key_line(key), f"unknown key {key!r} in {where}; the keys are: {', '.join(known)}")
        for key in required:
            if key not in node:
                self.problem(node.line, f"{where} lacks {key!r}")
        return node

    def string(self, node: LineMap, key: str, where: str, default: str | None = None) -> str:
        value = node.get(key, default)
        if not isinstance(value, str) or (not value.strip() and default is None):
            self.problem(node.key_line(key), f"{where}.{key} must be a non-empty string")
            return ""
        return value

    def strings(self, node: LineMap, key: str, where: str) -> tuple[str, ...]:
        value = node.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.problem(node.key_line(key), f"{where}.{key} must be a list of non-empty strings")
            return ()
        return tuple(value)

    def boolean(self, node: LineMap, key: str, where: str, default: bool = False) -> bool:
        value = node.get(key, default)
        if not isinstance(value, bool):
            self.problem(node.key_line(key), f"{where}.{key} must be true or false")
            return default
        return value

    # ----- the document -------------------------------------------------------------------

    def build(self) -> Task:
        try:
            doc = load_yaml_with_lines(self.text)
        except YamlError as exc:
            self.problem(exc.line, exc.message)
            self.fail_if_problems()
        doc = self.mapping(doc, 1, "the manifest", TOP_KEYS, REQUIRED_TOP)
        self.fail_if_problems()
        name = self.string(doc, "task", "manifest")
        if name and name != self.file.stem:
            self.problem(doc.key_line("task"), f"task {name!r} must equal the manifest's file name {self.file.stem!r}")
        folder = (self.data_root / self.string(doc, "folder", "manifest")).resolve()
        runnable = self.boolean(doc, "runnable", "manifest", True)
        reason = doc.get("not_runnable_reason", "")
        if not runnable and not (isinstance(reason, str) and reason.strip()):
            self.problem(doc.key_line("runnable"), "a task that is not runnable needs not_runnable_reason saying why")
        backend = self.string(doc, "backend", "manifest")
        if backend and backend not in BACKENDS:
            self.problem(doc.key_line("backend"), f"backend {backend!r} is not one of {', '.join(BACKENDS)}")
        files = self.files(doc, folder)
        self.fail_if_problems()
        blobs = {f: (folder / f).read_bytes() for f in files if not f.endswith("/")}
        metadata = self.json_file(blobs, "metadata.json", doc)
        toolspecs = self.json_file(blobs, "toolspecs.json", doc)
        sop_file = self.string(doc, "sop", "manifest")
        if sop_file not in blobs:
            self.problem(doc.key_line("sop"), f"sop {sop_file!r} is not one of the files listed under files")
        self.fail_if_problems()
        spec_names = [s["toolSpec"]["name"] for s in toolspecs]
        tools = self.tools(doc, spec_names, backend)
        decision_node = self.mapping(doc["decision"], doc.key_line("decision"), "decision", DECISION_KEYS, ("tool", "description", "columns"))
        columns = self.decision_columns(decision_node)
        output_columns = tuple(c.column for c in columns)
        all_rows, visible = self.rows(blobs, output_columns, doc, metadata)
        item = self.item(doc, metadata, all_rows)
        self.fail_if_problems()
        rows = {r[item.id_column]: MappingProxyType(dict(r)) for r in visible}
        gold = {r[item.id_column]: MappingProxyType({c: r[c] for c in output_columns}) for r in all_rows}
        if len(rows) != len(visible) or set(rows) != set(gold):
            self.problem(doc.key_line("item"), f"the id column {item.id_column!r} does not name each row once in both CSVs")
        for col in columns if runnable and self.verify else ():
            unknown = sorted({g[col.column] for g in gold.values()} - set(col.labels))
            if unknown:
                self.problem(doc.key_line("decision"), f"gold labels {unknown} of column {col.column!r} are not in its labels")
        record = self.record(doc, item)
        decision = Decision(
            tool=self.string(decision_node, "tool", "decision"),
            description=self.string(decision_node, "description", "decision").strip(),
            columns=columns,
            usage=decision_node.get("usage") or self.decision_usage(decision_node.get("tool", ""), item, columns),
        )
        listing = {k: (doc.get("listing") or {}).get(k, v.format(plural=item.plural)) for k, v in DEFAULT_LISTING.items()}
        self.fail_if_problems()
        return Task(
            name=name, folder=folder, manifest=self.file, source=self.string(doc, "source", "manifest"),
            runnable=runnable, not_runnable_reason=reason if isinstance(reason, str) else "", item=item,
            backend=backend, tools=tools, toolspecs=tuple(toolspecs), record=record, decision=decision,
            listing=MappingProxyType(listing), sop=blobs[sop_file].decode("utf-8"), sop_file=sop_file,
            comments=str(doc.get("comments", "")), metadata=MappingProxyType(metadata),
            rows=MappingProxyType(rows), gold=MappingProxyType(gold), files=MappingProxyType(files),
        )

    def files(self, doc: LineMap, folder: Path) -> dict[str, str]:
        node = doc["files"]
        if not isinstance(node, LineMap) or not node:
            self.problem(doc.key_line("files"), "files must map each vendored file name to its sha256")
            return {}
        for required in ("metadata.json", "toolspecs.json", "tools.py"):
            if required not in node:
                self.problem(node.line, f"files lacks {required!r} (a task folder holds sop, toolspecs.json, tools.py, metadata.json, data)")
        for name, expected in node.items():
            path = folder / str(name).rstrip("/")
            if not (path.is_dir() if str(name).endswith("/") else path.is_file()):
                self.problem(node.key_line(name), f"{path} is missing: restore it from the repository or from {doc.get('source')}")
            elif self.verify and entry_sha256(path) != expected:
                self.problem(node.key_line(name), f"{path} changed: sha256 {entry_sha256(path)}, expected {expected}; "
                                                  "the task must be used unmodified, restore it")
        return {str(k): str(v) for k, v in node.items()}

    def json_file(self, blobs: dict[str, bytes], name: str, doc: LineMap) -> Any:
        try:
            return json.loads(blobs[name])
        except (KeyError, ValueError) as exc:
            self.problem(doc.key_line("files"), f"{name} cannot be read as JSON: {exc}")
            return {}

    def rows(self, blobs: dict[str, bytes], outputs: tuple[str, ...], doc: LineMap, metadata: dict) -> tuple[list[dict], list[dict]]:
        """(rows with outputs, agent-visible rows). The items are the rows of
        test_set_with_outputs.csv (the gold). The visible rows are test_set_without_outputs.csv when
        it lists the same ids in the same order (the preregistered task), else the outputs rows
        without the decision column(s) and metadata.json's output_columns (in several upstream
        folders test_set_without_outputs.csv is a smaller, partly different sample)."""
        if "test_set_with_outputs.csv" not in blobs:
            self.problem(doc.key_line("files"), "files lacks 'test_set_with_outputs.csv' (the gold)")
            return [], []
        full = _csv_rows(blobs["test_set_with_outputs.csv"])
        missing = [c for c in outputs if full and c not in full[0]]
        if missing:
            self.problem(doc.key_line("decision"), f"decision columns {missing} are not columns of test_set_with_outputs.csv")
            return [], []
        id_column = (doc.get("item") or {}).get("id_column")
        if "test_set_without_outputs.csv" in blobs and id_column:
            without = _csv_rows(blobs["test_set_without_outputs.csv"])
            if [r.get(id_column) for r in without] == [r.get(id_column) for r in full]:
                return full, without
        drop = set(outputs) | set(metadata.get("output_columns") or ())
        return full, [{k: v for k, v in r.items() if k not in drop} for r in full]

    def item(self, doc: LineMap, metadata: dict, rows: list[dict]) -> Item:
        node = self.mapping(doc["item"], doc.key_line("item"), "item", ITEM_KEYS, ITEM_KEYS)
        id_column = self.string(node, "id_column", "item")
        if rows and id_column and id_column not in rows[0]:
            self.problem(node.key_line("id_column"), f"id_column {id_column!r} is not a column of the task's CSV")
        if "input_columns" in doc:
            inputs = self.strings(doc, "input_columns", "manifest")
        else:
            inputs = tuple(metadata.get("input_columns") or (id_column,))
        for column in inputs:
            if rows and column not in rows[0]:
                self.problem(doc.key_line("input_columns"), f"input column {column!r} is not a column of the task's CSV")
        if id_column not in inputs:
            inputs = (id_column, *inputs)
        example = str(node.get("example", ""))
        if rows and id_column and example not in {r.get(id_column) for r in rows}:
            self.problem(node.key_line("example"), f"example {example!r} is not an item id of the task; give one, e.g. {rows[0].get(id_column)!r}")
        return Item(id_column=id_column, noun=self.string(node, "noun", "item"), plural=self.string(node, "plural", "item"),
                    example=example, id_description=self.string(node, "id_description", "item"),
                    input_columns=inputs)

    def tools(self, doc: LineMap, spec_names: list[str], backend: str) -> tuple[TaskTool, ...]:
        node = doc["tools"]
        if not isinstance(node, LineMap):
            self.problem(doc.key_line("tools"), "tools must map each tool of toolspecs.json to its role")
            return ()
        for name in spec_names:
            if name not in node:
                self.problem(node.line, f"tool {name!r} of toolspecs.json has no entry under tools (give its role)")
        tools = []
        for name in spec_names:
            if name not in node:
                continue
            where = f"tools.{name}"
            t = self.mapping(node[name], node.key_line(name), where, TOOL_KEYS, ("role",))
            role = t.get("role")
            if role not in TOOL_ROLES:
                self.problem(t.key_line("role"), f"{where}.role must be one of {', '.join(TOOL_ROLES)}")
            after = self.strings(t, "after", where)
            for other in after:
                if other not in spec_names:
                    self.problem(t.key_line("after"), f"{where}.after names {other!r}, which is not a tool of this task")
            returns = t.get("returns", {})
            if backend == "columns" and role == "data" and not returns:
                self.problem(t.line, f"{where} needs returns (column: type) with the columns backend")
            if not isinstance(returns, dict) or any(v not in RETURN_TYPES for v in returns.values()):
                self.problem(t.key_line("returns"), f"{where}.returns must map columns to one of {', '.join(RETURN_TYPES)}")
                returns = {}
            if t.get("required") and role != "data":
                self.problem(t.key_line("required"), f"{where} is required but not a data tool (role: data)")
            if t.get("exit_on_refusal") and not t.get("required"):
                self.problem(t.key_line("exit_on_refusal"), f"{where}.exit_on_refusal needs required: true "
                                                              "(a refusal can only end the procedure of a required tool)")
            if role == "withheld" and not str(t.get("note", "")).strip():
                self.problem(t.line, f"{where} is withheld: say why in note")
            result_name = t.get("result_name", "")
            if not isinstance(result_name, str):
                self.problem(t.key_line("result_name"), f"{where}.result_name must be the argument name of its bare result")
                result_name = ""
            fixed = t.get("fixed_result")
            tools.append(TaskTool(
                name=name, role=str(role), required=self.boolean(t, "required", where),
                after=after, item_args=self.strings(t, "item_args", where), chained_args=self.strings(t, "chained_args", where),
                returns=tuple((str(k), str(v)) for k, v in returns.items()),
                fixed_result=MappingProxyType(dict(fixed)) if isinstance(fixed, dict) else None,
                random=self.boolean(t, "random", where),
                computes_decision_column=self.boolean(t, "computes_decision_column", where),
                volatile_keys=self.strings(t, "volatile_keys", where), note=str(t.get("note", "")),
                exit_on_refusal=self.boolean(t, "exit_on_refusal", where), result_name=result_name,
            ))
        for name in node:
            if name not in spec_names:
                self.problem(node.key_line(name), f"tool {name!r} is not in toolspecs.json")
        return tuple(tools)

    def record(self, doc: LineMap, item: Item) -> RecordStep:
        node = self.mapping(doc["record"], doc.key_line("record"), "record", RECORD_KEYS, ("tool", "description", "fields"))
        fields_node = node.get("fields", LineMap())
        fields = []
        if not isinstance(fields_node, LineMap):
            self.problem(node.key_line("fields"), "record.fields must map each field name to its kind")
            fields_node = LineMap()
        for fname, f in fields_node.items():
            where = f"record.fields.{fname}"
            f = self.mapping(f, fields_node.key_line(fname), where, FIELD_KEYS, ("kind",))
            kind = f.get("kind")
            if kind not in FIELD_KINDS:
                self.problem(f.key_line("kind"), f"{where}.kind must be one of {', '.join(FIELD_KINDS)}")
            choices = self.strings(f, "choices", where)
            if kind in ("choice", "scores") and not choices:
                self.problem(f.line, f"{where} of kind {kind} needs choices")
            fields.append(RecordField(name=str(fname), kind=str(kind), choices=choices,
                                      description=str(f.get("description", "")), what=str(f.get("what", ""))))
        tool = self.string(node, "tool", "record")
        usage = node.get("usage") or (f'Call {tool} with {{"{item.id_column}": "<{item.noun} id>", '
                                      + ", ".join(f'"{f.name}": {_field_form(f)}' for f in fields) + "}.")
        return RecordStep(tool=tool, description=self.string(node, "description", "record").strip(), fields=tuple(fields),
                          usage=usage, required=self.boolean(node, "required", "record", True))

    def decision_columns(self, node: LineMap) -> tuple[DecisionColumn, ...]:
        items = node.get("columns")
        if not isinstance(items, LineList) or not items:
            self.problem(node.key_line("columns"), "decision.columns must list at least one output column")
            return ()
        columns = []
        for i, c in enumerate(items):
            where = f"decision.columns[{i}]"
            c = self.mapping(c, items.item_line(i), where, COLUMN_KEYS, ("column", "argument", "labels"))
            labels = self.strings(c, "labels", where)
            if not labels:
                self.problem(c.line, f"{where}.labels must list the label vocabulary")
            columns.append(DecisionColumn(column=self.string(c, "column", where), argument=self.string(c, "argument", where),
                                          labels=labels, description=str(c.get("description", "")), what=str(c.get("what", ""))))
        return tuple(columns)

    @staticmethod
    def decision_usage(tool: str, item: Item, columns: tuple[DecisionColumn, ...]) -> str:
        parts = [f'"{c.argument}": one of ' + ", ".join(f'"{label}"' for label in c.labels) for c in columns]
        return f'Call {tool} with {{"{item.id_column}": "<{item.noun} id>", ' + ", ".join(parts) + "}."


def _field_form(f: RecordField) -> str:
    if f.kind == "choice":
        return "one of " + ", ".join(f.choices)
    if f.kind == "scores":
        return "{" + ", ".join(f'"{k}": 0' for k in f.choices) + "} (integers >= 0)"
    return {"string": "a string", "number": "a number", "integer": "an integer", "boolean": "true or false"}[f.kind]


def load_manifest(path: Path, data_root: Path, *, verify: bool = True) -> Task:
    """Load and validate one manifest; ``data_root`` is what its ``folder`` is relative to.
    ``verify=False`` skips the sha256 check and the check of the gold against the labels (tests
    that change a copy of a folder only)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskError(path, [Problem(None, f"cannot read the manifest: {exc.strerror}")]) from None
    return _Loader(text, path, data_root, verify).build()
