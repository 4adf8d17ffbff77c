"""Structured edits of a workflow: add or alter a state, a transition, a guard, an instruction.

A proposal (``proposals.py``) carries either a complete new workflow text or a list of edits;
:func:`apply_edits` turns the edits into the complete text they make, which the loader then
validates like any workflow file (so a problem comes back with its line in that text). The edits
work on the YAML tree of the current text; the result is written in the block style of the
study's generated workflows, with the current file's leading comment lines kept.

Each edit is a mapping with ``op`` and its fields (docs/fsm.md, "Proposing changes")::

    {op: add_state,        state: S_x, definition: {instructions, exit_conditions, allow, deny}}
    {op: alter_state,      state: S_x, set: {instructions: ..., allow: [...]}}     # null removes a key
    {op: set_instructions, state: S_x, instructions: "..."}
    {op: add_transition,   from: S_a, to: S_b, guard: {...}, automatic: false, description: "..."}
    {op: alter_transition, from: S_a, to: S_b, set: {automatic: true}}
    {op: set_guard,        from: S_a, to: S_b, guard: {hard: [...]}}            # null: no guard
    {op: remove_transition, from: S_a, to: S_b}
    {op: alter_workflow,   set: {tools: [...], pause: [...], variables: {...}, description: "..."}}

An edit that cannot be applied (an unknown op, a state that does not exist, a transition that
already does) raises :class:`EditError` naming the edit by its position. A proposal never
changes ``workflow`` (the name) or ``check_modules``: new Python checks are the maintainer's
to add, and validating a proposal must not import modules an agent named.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from study.errors import StudyError
from study.protocol.yaml_lines import YamlError, load_yaml

from .build_referral_workflow import _dump
from .workflow_loader import STATE_KEYS, TRANSITION_KEYS

#: Top-level keys ``alter_workflow`` may set.
WORKFLOW_KEYS = ("description", "tools", "variables", "initial", "exit", "pause")
#: Keys no proposal may change.
PROTECTED_KEYS = ("workflow", "check_modules")


class EditError(StudyError, ValueError):
    """An edit that cannot be applied to the workflow (says which edit and why)."""


def leading_comments(text: str) -> str:
    """The comment and blank lines at the top of a workflow file (kept over the edited tree)."""
    out = []
    for line in text.splitlines(keepends=True):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        out.append(line)
    return "".join(out)


def apply_edits(text: str, edits: Any) -> str:
    """The complete workflow text ``edits`` make of ``text``; EditError if one cannot be applied."""
    if not isinstance(edits, list) or not edits:
        raise EditError("'edits' must be a non-empty list of edits, each a mapping with 'op'")
    try:
        doc = load_yaml(text)
    except YamlError as exc:
        raise EditError(f"the current workflow text is not valid YAML ({exc}); propose a complete text instead") from None
    if not isinstance(doc, dict):
        raise EditError("the current workflow text is not a mapping; propose a complete text instead")
    doc = copy.deepcopy(doc)
    for i, edit in enumerate(edits, start=1):
        if not isinstance(edit, dict) or not isinstance(edit.get("op"), str):
            raise EditError(f"edit {i}: an edit is a mapping with 'op' (one of {', '.join(OPS)})")
        op = OPS.get(edit["op"])
        if op is None:
            raise EditError(f"edit {i}: unknown op '{edit['op']}'; use one of {', '.join(OPS)}")
        try:
            op(doc, edit)
        except EditError as exc:
            raise EditError(f"edit {i} ({edit['op']}): {exc}") from None
    return leading_comments(text) + _dump(doc)


# -- the operations -------------------------------------------------------------------------------


def _fields(edit: dict, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    missing = [k for k in required if k not in edit]
    unknown = [k for k in edit if k not in ("op", *required, *optional)]
    if missing:
        raise EditError(f"needs {', '.join(repr(k) for k in missing)}")
    if unknown:
        raise EditError(f"takes no {', '.join(repr(k) for k in unknown)}; it takes {', '.join((*required, *optional))}")


def _states(doc: dict) -> dict:
    states = doc.get("states")
    if not isinstance(states, dict):
        raise EditError("the workflow has no 'states' mapping")
    return states


def _state(doc: dict, edit: dict) -> dict:
    states = _states(doc)
    name = edit["state"]
    if name not in states:
        raise EditError(f"state '{name}' does not exist; states: {', '.join(map(str, states))} (add_state adds one)")
    if states[name] is None:
        states[name] = {}
    if not isinstance(states[name], dict):
        raise EditError(f"state '{name}' is not a mapping")
    return states[name]


def _mapping(value: Any, what: str, allowed: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise EditError(f"'{what}' must be a mapping with keys among {', '.join(allowed)}")
    unknown = [k for k in value if k not in allowed]
    if unknown:
        raise EditError(f"'{what}' has unknown keys {unknown}; allowed: {', '.join(allowed)}")
    return value


def _set_keys(target: dict, values: dict) -> None:
    for key, value in values.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = copy.deepcopy(value)


def _add_state(doc: dict, edit: dict) -> None:
    _fields(edit, ("state",), ("definition",))
    name = edit["state"]
    if not isinstance(name, str) or not name:
        raise EditError("'state' must be a state name")
    states = _states(doc)
    if name in states:
        raise EditError(f"state '{name}' already exists; alter_state changes it")
    definition = _mapping(edit.get("definition") or {}, "definition", STATE_KEYS)
    states[name] = copy.deepcopy(definition)


def _alter_state(doc: dict, edit: dict) -> None:
    _fields(edit, ("state", "set"))
    _set_keys(_state(doc, edit), _mapping(edit["set"], "set", STATE_KEYS))


def _set_instructions(doc: dict, edit: dict) -> None:
    _fields(edit, ("state", "instructions"))
    if not isinstance(edit["instructions"], str):
        raise EditError("'instructions' must be text")
    _state(doc, edit)["instructions"] = edit["instructions"]


def _transitions(doc: dict) -> list:
    node = doc.setdefault("transitions", [])
    if node is None:
        node = doc["transitions"] = []
    if not isinstance(node, list):
        raise EditError("the workflow's 'transitions' is not a list")
    return node


def _find(doc: dict, edit: dict) -> dict | None:
    for item in _transitions(doc):
        if isinstance(item, dict) and item.get("from") == edit["from"] and item.get("to") == edit["to"]:
            return item
    return None


def _existing(doc: dict, edit: dict) -> dict:
    found = _find(doc, edit)
    if found is None:
        raise EditError(f"there is no transition {edit['from']} -> {edit['to']} (add_transition adds one)")
    return found


_TRANSITION_SETTABLE = tuple(k for k in TRANSITION_KEYS if k not in ("from", "to"))


def _add_transition(doc: dict, edit: dict) -> None:
    _fields(edit, ("from", "to"), _TRANSITION_SETTABLE)
    if _find(doc, edit) is not None:
        raise EditError(f"transition {edit['from']} -> {edit['to']} already exists; alter_transition or set_guard changes it")
    _transitions(doc).append({k: copy.deepcopy(edit[k]) for k in TRANSITION_KEYS if k in edit})


def _alter_transition(doc: dict, edit: dict) -> None:
    _fields(edit, ("from", "to", "set"))
    _set_keys(_existing(doc, edit), _mapping(edit["set"], "set", _TRANSITION_SETTABLE))


def _set_guard(doc: dict, edit: dict) -> None:
    _fields(edit, ("from", "to", "guard"))
    _set_keys(_existing(doc, edit), {"guard": edit["guard"]})


def _remove_transition(doc: dict, edit: dict) -> None:
    _fields(edit, ("from", "to"))
    doc["transitions"] = [t for t in _transitions(doc) if t is not _existing(doc, edit)]


def _alter_workflow(doc: dict, edit: dict) -> None:
    _fields(edit, ("set",))
    values = edit["set"]
    if isinstance(values, dict) and any(k in PROTECTED_KEYS for k in values):
        raise EditError(f"a proposal cannot change {' or '.join(PROTECTED_KEYS)}: ask the workflow's maintainer")
    _set_keys(doc, _mapping(values, "set", WORKFLOW_KEYS))


OPS: dict[str, Callable[[dict, dict], None]] = {
    "add_state": _add_state,
    "alter_state": _alter_state,
    "set_instructions": _set_instructions,
    "add_transition": _add_transition,
    "alter_transition": _alter_transition,
    "set_guard": _set_guard,
    "remove_transition": _remove_transition,
    "alter_workflow": _alter_workflow,
}
