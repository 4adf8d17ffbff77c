"""Loading a workspace workflow whose rules name shell commands and file paths.

The staged protocols' workflows write a built-in tool's rule as ``{tool: shell, command: GLOB}``
or ``{tool: edit, path: GLOB}`` (docs/staged.md, "Workflow vocabulary"). Until the FSM's loader
reads those keys itself, :func:`load_workflow` rewrites each into the predicate the loader has
today, ``args: {command: {matches: REGEX}}`` (the glob translated by ``fnmatch``: the same
``*``/``?``/``[ab]`` a glob means), and loads the result; a loader that already reads them loads
the file as it is. The gate is then asked with the arguments ``{"command": ...}`` (shell) and
``{"path": ...}`` (read, edit, write; the path relative to the workspace).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path

import yaml

from study.fsm.workflow import Workflow, WorkflowError

#: rule key -> the tool argument it names
RULE_ARGUMENTS = {"command": "command", "path": "path"}


def _rewrite_rule(rule):
    if not isinstance(rule, dict) or not any(key in rule for key in RULE_ARGUMENTS):
        return rule
    rule = dict(rule)
    args = dict(rule.get("args") or {})
    for key, argument in RULE_ARGUMENTS.items():
        if key in rule:
            args[argument] = {"matches": fnmatch.translate(str(rule.pop(key)))}
    rule["args"] = args
    return rule


def rewritten_text(text: str) -> str:
    """The workflow's text with every command/path rule as an ``args: {..: {matches: ..}}`` rule."""
    doc = yaml.safe_load(text)
    for state in (doc.get("states") or {}).values():
        for key in ("allow", "deny"):
            if isinstance(state, dict) and isinstance(state.get(key), list):
                state[key] = [_rewrite_rule(rule) for rule in state[key]]
    return yaml.safe_dump(doc, sort_keys=False, width=200)


def load_workflow(path: Path) -> Workflow:
    """The workflow at ``path`` (see the module docstring)."""
    try:
        return Workflow.load(path)
    except WorkflowError as exc:
        if "unknown key 'command'" not in str(exc) and "unknown key 'path'" not in str(exc):
            raise
    return Workflow.from_text(rewritten_text(Path(path).read_text(encoding="utf-8")), file=str(path))
