"""The tools the agent sees for one task: names, descriptions, input schemas, usage texts and
argument kinds, all built from the ``Task`` (``sopbench_tools/tasks/``).

The task's own tools keep SOP-Bench's names, descriptions and input schemas (its
``toolspecs.json``); a ``withheld`` tool is not served. The study's tools are generic over the
item noun and labels: ``get_inputs`` (only when an item has input columns besides its id),
the record tool, the decision tool, ``list_batch`` and ``list_decisions``. For the preregistered
task this gives exactly the definitions of ``tool_definitions.py`` (tests/tasks check it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from .tasks import Task

_NO_ARGS_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}
_SIMPLE_TYPES = {"string": "string", "number": "number", "integer": "integer", "boolean": "boolean"}


@dataclass(frozen=True)
class ToolDefs:
    """Everything the server needs to list and validate the task's tools."""

    #: ``{"name", "description", "inputSchema"}`` of every served tool, in ``task.all_tools`` order
    specs: tuple[Mapping[str, Any], ...]
    #: tool -> the valid form quoted in its error messages
    usage: Mapping[str, str]
    #: tool -> ((argument, kind), ...) for tools validated by kind: "item", "field:<name>",
    #: "decision:<argument>"; listing tools have ()
    arguments: Mapping[str, tuple[tuple[str, str], ...]]
    #: tool -> its toolspecs.json input schema, for task tools validated against it (upstream backend)
    schemas: Mapping[str, Mapping[str, Any]]


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _field_schema(field) -> dict:
    if field.kind == "scores":
        schema = {"type": "object"}
        if field.description:
            schema["description"] = field.description
        schema.update({"properties": {k: {"type": "integer", "minimum": 0} for k in field.choices},
                       "required": list(field.choices), "additionalProperties": False})
        return schema
    schema = {"type": "string", "enum": list(field.choices)} if field.kind == "choice" else {"type": _SIMPLE_TYPES[field.kind]}
    if field.description:
        schema["description"] = field.description
    return schema


def _schema_usage(name: str, schema: Mapping[str, Any]) -> str:
    props = schema.get("properties", {})
    parts = ", ".join(f'"{p}": <{(s or {}).get("type", "value")}>' for p, s in props.items())
    required = schema.get("required") or []
    tail = f" (required: {', '.join(required)})" if required and list(required) != list(props) else ""
    return f"Call {name} with {{{parts}}}{tail}."


def build_tool_defs(task: Task) -> ToolDefs:
    item = task.item
    id_schema = {"type": "string", "description": item.id_description}
    item_usage = f'{{"{item.id_column}": "<{_article(item.noun)} {item.noun} id of this batch, e.g. {item.example}>"}}'
    specs_by_name = {s["toolSpec"]["name"]: s["toolSpec"] for s in task.toolspecs}
    specs: dict[str, dict] = {}
    usage: dict[str, str] = {}
    arguments: dict[str, tuple[tuple[str, str], ...]] = {}
    schemas: dict[str, Mapping[str, Any]] = {}
    for tool in task.served_tools:
        spec = specs_by_name[tool.name]
        specs[tool.name] = {"name": tool.name, "description": spec["description"], "inputSchema": spec["inputSchema"]["json"]}
        if task.backend == "columns":
            usage[tool.name] = f"Call {tool.name} with {item_usage}."
            arguments[tool.name] = ((item.id_column, "item"),)
        else:
            usage[tool.name] = _schema_usage(tool.name, spec["inputSchema"]["json"])
            schemas[tool.name] = spec["inputSchema"]["json"]
    if task.inputs_tool:
        name = task.inputs_tool
        specs[name] = {"name": name, "description": (
            f"Gives the input values of one {item.noun} of this batch: the columns its tools take as arguments "
            f"({', '.join(item.input_columns)})."),
            "inputSchema": {"type": "object", "properties": {item.id_column: id_schema}, "required": [item.id_column],
                            "additionalProperties": False}}
        usage[name] = f"Call {name} with {item_usage}."
        arguments[name] = ((item.id_column, "item"),)
    record = task.record
    specs[record.tool] = {"name": record.tool, "description": record.description, "inputSchema": {
        "type": "object",
        "properties": {item.id_column: id_schema, **{f.name: _field_schema(f) for f in record.fields}},
        "required": [item.id_column, *(f.name for f in record.fields)],
        "additionalProperties": False,
    }}
    usage[record.tool] = record.usage
    arguments[record.tool] = ((item.id_column, "item"), *((f.name, f"field:{f.name}") for f in record.fields))
    decision = task.decision
    props: dict[str, Any] = {item.id_column: id_schema}
    for column in decision.columns:
        props[column.argument] = {"type": "string", "enum": list(column.labels)}
        if column.description:
            props[column.argument]["description"] = column.description
    specs[decision.tool] = {"name": decision.tool, "description": decision.description, "inputSchema": {
        "type": "object", "properties": props, "required": list(props), "additionalProperties": False}}
    usage[decision.tool] = decision.usage
    arguments[decision.tool] = ((item.id_column, "item"), *((c.argument, f"decision:{c.argument}") for c in decision.columns))
    for name in task.listing_tools:
        specs[name] = {"name": name, "description": task.listing[name], "inputSchema": _NO_ARGS_SCHEMA}
        usage[name] = f"Call {name} with no arguments ({{}})."
        arguments[name] = ()
    ordered = tuple(json.loads(json.dumps(specs[name])) for name in task.all_tools)
    return ToolDefs(specs=ordered, usage=usage, arguments=arguments, schemas=schemas)
