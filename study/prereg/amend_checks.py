"""Check each file an amendment covers with the loader that will read it, before it is recorded.

An amendment freezes the new content of a file: an empty order, a YAML file that no longer
parses or a workflow with a problem would otherwise become the registered plan, and only the
first run would find out. ``check_amended_file(root, rel)`` returns None when the file (as it is
on disk under ``root``) loads as the study will load it, else one sentence saying what is wrong:

- ``preregistration/orders/seed-<s>.txt``: the order file's name, and its content as an order of
  the task's accounts (each id exactly once), read by ``sopbench_tools.orders.frozen_order``;
- ``conditions.yaml``, ``limits.yaml`` (for every model of models.yaml and the simulator),
  ``models.yaml``, ``predictions.yaml``: their loaders in ``study.protocol``;
- ``preregistration/workflows/**.yaml``: the workflow loader (``Workflow.load``); a task
  manifest (``sopbench_tools/tasks/manifests/*.yaml``): the task loader (``load_manifest``);
- ``preregistration/texts/**.md``: UTF-8 text, not empty, with the placeholders its template must
  have (``study.protocol.texts.fill``);
- ``preregistration/runtime.json``: a JSON object (``runtime.parse_runtime``);
- frozen Python sources: they compile;
- anything else under ``preregistration/``: UTF-8 text.

A file the study cannot run without (``REQUIRED``) may not be deleted by an amendment; any
other deletion is allowed. Every amended file must be a regular file (not a symlink, FIFO or
device) of at most ``MAX_BYTES``.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .files import PREREG_DIR, RUNTIME, TASK_MANIFEST_DIR

#: Largest frozen file an amendment accepts (the SOP-sized texts are ~30 KB).
MAX_BYTES = 4 * 1024 * 1024

#: Files a session or the analysis reads unconditionally: an amendment may change, never delete them.
REQUIRED = tuple(f"{PREREG_DIR}/{name}" for name in (
    "conditions.yaml", "limits.yaml", "models.yaml", "predictions.yaml", "runtime.json",
    "texts/first_message.md", "texts/system_append.md", "texts/continuation.md",
    "texts/continuation_state.md", "texts/reminder.md",
))

#: The placeholders each frozen template must hold (what ``study.runner.texts`` fills in with
#: ``study.protocol.texts.fill``).
TEMPLATE_PLACEHOLDERS = {
    "first_message.md": ("n_accounts", "fsm_paragraph", "sop"),
    "system_append.md": ("sop",),
    "continuation.md": ("accounts_left", "next_account"),
    "continuation_state.md": ("state",),
}

_ORDER_NAME = re.compile(r"seed-([1-9][0-9]*)\.txt")
#: What the loaders raise for a file that does not load (their own errors derive from ValueError;
#: the structural walks of a malformed mapping can also raise these).
_LOAD_ERRORS = (ValueError, LookupError, TypeError, AttributeError, RecursionError)


def check_amended_file(root: Path, rel: str) -> str | None:
    """None if ``root/rel`` loads as the study reads it (or is an allowed deletion), else what is wrong."""
    path = root / rel
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if rel in REQUIRED:
            return f"{rel} is deleted, but the study cannot run without it; restore it (git checkout -- {rel})"
        return None
    if not stat.S_ISREG(info.st_mode):
        return f"{rel} is not a regular file (a symlink, folder or special file); put the file itself there"
    if info.st_size > MAX_BYTES:
        return f"{rel} has {info.st_size} bytes, more than the {MAX_BYTES} a frozen file may have"
    try:
        problem = _check(root, rel, path)
    except _LOAD_ERRORS as exc:
        problem = str(exc) or type(exc).__name__
    if problem is None:
        return None
    first = problem.strip().splitlines()[0] if problem.strip() else "it does not load"
    return f"{rel} does not load as the study reads it: {first}"


def _check(root: Path, rel: str, path: Path) -> str | None:
    parts = rel.split("/")
    if rel.startswith(TASK_MANIFEST_DIR + "/") and rel.endswith(".yaml"):
        from sopbench_tools.tasks.manifest import load_manifest

        load_manifest(path, root / "sopbench_tools" / "data")
        return None
    if parts[0] != PREREG_DIR:
        return _check_python(path) if rel.endswith(".py") else None
    inner = "/".join(parts[1:])
    if inner.startswith("orders/"):
        return _check_order(path, inner.removeprefix("orders/"))
    if inner.startswith("workflows/") and rel.endswith((".yaml", ".yml")):
        from study.fsm.workflow import Workflow

        Workflow.load(path)
        return None
    if inner == "conditions.yaml":
        from study.protocol.conditions import load_conditions

        load_conditions(path)
        return None
    if inner == "models.yaml":
        from study.protocol.models import load_models

        load_models(path)
        return None
    if inner == "limits.yaml":
        return _check_limits(root, path)
    if inner == "predictions.yaml":
        from study.protocol.plan import load_plan

        load_plan(path)
        return None
    if rel == RUNTIME:
        from .runtime import parse_runtime

        return None if parse_runtime(path.read_bytes()) is not None else "not a JSON object"
    text = _utf8(path)
    return _check_text(inner.removeprefix("texts/"), text) if inner.startswith("texts/") else None


def _utf8(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def _check_text(name: str, text: str) -> str | None:
    if not text.strip():
        return "the text is empty"
    if name in TEMPLATE_PLACEHOLDERS:
        from study.protocol.texts import fill

        fill(text, name, **dict.fromkeys(TEMPLATE_PLACEHOLDERS[name], ""))
    return None


def _check_order(path: Path, name: str) -> str | None:
    match = _ORDER_NAME.fullmatch(name)
    if match is None:
        return "an order file is named seed-<s>.txt with s a whole number >= 1 (no leading zero)"
    from sopbench_tools.orders import frozen_order

    frozen_order(int(match.group(1)), path.parent)
    return None


def _check_limits(root: Path, path: Path) -> str | None:
    from study.protocol.limits import load_limits
    from study.protocol.models import load_models

    try:
        aliases = list(load_models(root / PREREG_DIR / "models.yaml").models)
    except _LOAD_ERRORS:
        aliases = []   # models.yaml is checked on its own; the limits still need a default
    for model in [*aliases, "sim:amendment-check"]:
        load_limits(model, path=path)
    return None


def _check_python(path: Path) -> str | None:
    source = path.read_bytes()
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        return f"a syntax error at line {exc.lineno}: {exc.msg}"
    return None
