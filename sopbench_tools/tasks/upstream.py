"""Running a task's own vendored ``tools.py`` (SOP-Bench's manager class) in process.

``UpstreamTools(task)`` loads the task folder's ``tools.py`` (already sha256-checked by the
manifest loader) as a private module, builds its manager with stdout discarded (upstream prints
paths on construction, which must not reach an MCP stdio stream), and answers
``call(tool, args)`` through the manager's ``process_tool_call``. Two things are added, neither
changing a result:

- ``pd.read_csv`` of the module is served from a per-file cache (a fresh copy per call), since
  upstream re-reads its CSV on every call;
- a tool the manifest marks ``random`` (content_flagging's bot probability and device
  consistency use ``random.random()``) runs with Python's ``random`` seeded from the task, tool
  and arguments, so the same call gives the same result in every session; the global random
  state is restored afterwards.

``to_json`` turns upstream's values (numpy scalars, NaN, pandas timestamps) into JSON values.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

from study.errors import StudyError

from .task import Task


class UpstreamError(StudyError):
    """Upstream's tool raised: ``str()`` is its message."""


class _CachedPandas:
    """The ``pandas`` module, except that ``read_csv(path)`` is read once per path."""

    def __init__(self, pandas: Any):
        self._pandas = pandas
        self._frames: dict[str, Any] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pandas, name)

    def read_csv(self, path: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            return self._pandas.read_csv(path, *args, **kwargs)
        key = str(path)
        if key not in self._frames:
            self._frames[key] = self._pandas.read_csv(path)
        return self._frames[key].copy()


def load_module(tools_py: Path, module_name: str) -> Any:
    """Import ``tools_py`` as ``module_name`` (not added to ``sys.modules``). No bytecode is
    written: the vendored task folder is data, checked file by file, never a cache."""
    spec = importlib.util.spec_from_file_location(module_name, tools_py)
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module


def manager_class(module: Any) -> type:
    """The class of ``module`` that defines ``process_tool_call`` (SOP-Bench's manager)."""
    found = [obj for obj in vars(module).values()
             if isinstance(obj, type) and obj.__module__ == module.__name__ and hasattr(obj, "process_tool_call")]
    if len(found) != 1:
        raise RuntimeError(f"{module.__file__}: expected one manager class with process_tool_call, found {len(found)}")
    return found[0]


def call_seed(task_name: str, tool: str, args: dict) -> int:
    text = f"{task_name}:{tool}:{json.dumps(args, sort_keys=True, ensure_ascii=False)}"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], 16)


class UpstreamTools:
    """The task's own tools, called as SOP-Bench calls them."""

    def __init__(self, task: Task, folder: Path | None = None):
        self.task = task
        folder = Path(folder) if folder is not None else task.folder
        module = load_module(folder / "tools.py", f"_sopbench_upstream_{task.name}_{id(self)}")
        if hasattr(module, "pd"):
            module.pd = _CachedPandas(module.pd)
        with contextlib.redirect_stdout(io.StringIO()):
            self.manager = manager_class(module)()
        self._random_tools = {t.name for t in task.tools if t.random}

    def call(self, tool: str, args: dict) -> Any:
        """Upstream's result as a JSON value; raises UpstreamError when upstream raises."""
        state = random.getstate() if tool in self._random_tools else None
        try:
            if state is not None:
                random.seed(call_seed(self.task.name, tool, args))
            with contextlib.redirect_stdout(io.StringIO()):
                result = self.manager.process_tool_call(tool, dict(args))
        except Exception as exc:  # upstream's own checks raise ValueError, KeyError, TypeError...
            raise UpstreamError(f"{type(exc).__name__}: {exc}") from None
        finally:
            if state is not None:
                random.setstate(state)
        return to_json(result)


def to_json(value: Any) -> Any:
    """A JSON value equal to ``value``: numpy scalars to Python, NaN to None, others by str()."""
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return None if math.isnan(value) else float(value)
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        try:
            return to_json(item())
        except (TypeError, ValueError):
            pass
    return str(value)
