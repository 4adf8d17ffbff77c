"""The reference side of the tool comparison (``study task check``, tests/tasks/test_tool_equality.py):
SOP-Bench's own tools.py, called as upstream calls it.

    python sopbench_tools/tasks/upstream_reference.py TASK_FOLDER TASK_NAME RANDOM_TOOLS REQUESTS_JSONL RESULTS_JSONL

Run by its path, not as a module: it imports nothing of this package (only the standard library
and pandas). Imports TASK_FOLDER/tools.py in a fresh process,
builds its manager class, and for each request line {"tool", "args"} writes one result line:
{"ok": true, "result": <JSON>} or {"ok": false, "error": "<Type>: <message>"}. Tools named in
RANDOM_TOOLS (comma-separated) run with ``random`` seeded from sha256("<task>:<tool>:<args as
sorted JSON>") (first 16 hex digits), the seeding the server documents. pandas' read_csv is
served once per file (upstream re-reads its CSV on every call; the frame is copied per call).
Needs pandas and python-dateutil (both in requirements.lock). Upstream's prints go to stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import math
import random
import sys
from pathlib import Path


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def main(folder: str, task: str, random_tools: str, requests: str, results: str) -> None:
    import pandas

    frames: dict[str, object] = {}
    real_read_csv = pandas.read_csv

    def read_csv_once(path, *args, **kwargs):
        if args or kwargs:
            return real_read_csv(path, *args, **kwargs)
        if str(path) not in frames:
            frames[str(path)] = real_read_csv(path)
        return frames[str(path)].copy()

    pandas.read_csv = read_csv_once
    sys.dont_write_bytecode = True          # the vendored folder is data: no __pycache__ in it
    spec = importlib.util.spec_from_file_location("upstream_tools", Path(folder) / "tools.py")
    module = importlib.util.module_from_spec(spec)
    with contextlib.redirect_stdout(sys.stderr):
        spec.loader.exec_module(module)
        managers = [c for c in vars(module).values()
                    if isinstance(c, type) and c.__module__ == module.__name__ and hasattr(c, "process_tool_call")]
        manager = managers[0]()
    randoms = set(filter(None, random_tools.split(",")))
    with open(requests, encoding="utf-8") as src, open(results, "w", encoding="utf-8") as out:
        for line in src:
            request = json.loads(line)
            tool, args = request["tool"], request["args"]
            if tool in randoms:
                text = f"{task}:{tool}:{json.dumps(args, sort_keys=True, ensure_ascii=False)}"
                random.seed(int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], 16))
            try:
                with contextlib.redirect_stdout(sys.stderr):
                    answer = {"ok": True, "result": _plain(manager.process_tool_call(tool, dict(args)))}
            except Exception as exc:  # upstream raises ValueError, KeyError, TypeError...
                answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
            out.write(json.dumps(answer, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
