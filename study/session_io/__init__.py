"""The session log's format: what a session folder holds, and how it is read and written.
Layer 1: may import the foundations only (docs/architecture.md).

- ``vocabulary``: the closed sets of statuses, limits, void reasons and event kinds;
- ``events``: one typed definition per event kind (``SCHEMA_VERSION`` 2; readers accept 1 and 2);
- ``writer``: ``EventLog``, the only writer of ``events.jsonl`` (``utc_now``);
- ``meta``: ``SessionMeta``, ``read_meta``, ``write_meta`` (atomic), ``effective_status``;
- ``folders``: ``find_sessions`` (the one rule for ``attempt-*``, ``exploratory/``, the demo
  output), ``EVENTS_NAME``, ``META_NAME``, ``session_dir_for``;
- ``reader``: ``read_log``/``read_session`` (strict for the analysis, reporting for status and
  audit), ``validate_log``; ``issues``: ``Issue`` (rule, file, line), ``LogError``, ``MetaError``;
- ``record``: ``SessionRecord``, what one session folder is (identity, status, voided,
  exploratory, cost, sizes, attempts), and ``Exclusion``/``ExclusionKind``, the one rule by which
  the analysis and the audit leave a session out;
- ``values``: the rules of a session's numbers (``range``, ``cost``, decisions within the
  ``batch``), which both readings of ``reader`` apply; ``witnesses``: the witnesses of
  ``simulated`` (flag, model, endpoint, truth file, the log's and the transcript's ids), which
  must agree (rule ``simulated``), and ``RECORD_FILES``, the files those rules read;
- ``verdicts``: the rule ``verdict``: another family's outcome re-derived from its evidence by
  the family's ``evidence`` part (the one seam, ``verdicts.part``), kept under the proofs of what
  it read;
- ``audited``: what ``study audit`` passed, kept under the proofs of what it read, so that
  ``study tables`` can say whether its numbers are audited.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each name of the package and the module that defines it. The package imports none of them
#: itself: ``from study.session_io.folders import find_sessions`` (what ``study status`` needs)
#: then loads ``folders`` alone, not the reader, the record and the task definitions behind them;
#: ``from study.session_io import X`` still works, loading X's module on first use.
_NAMES = {
    "events": ("READABLE_SCHEMAS", "SCHEMA_VERSION"),
    "folders": ("EVENTS_NAME", "META_NAME", "exploratory_by_location", "find_sessions", "session_dir_for"),
    "issues": ("Issue", "LogError", "MetaError", "Rule"),
    "meta": ("SessionMeta", "effective_status", "read_meta", "write_meta"),
    "reader": ("LogRead", "SessionRead", "read_log", "read_session", "validate_log"),
    "record": ("Exclusion", "ExclusionKind", "SessionRecord", "read_record"),
    "vocabulary": ("EventKind", "Limit", "SessionStatus", "VoidReason"),
    "writer": ("EventLog", "utc_now"),
}
_MODULE_OF = {name: module for module, names in _NAMES.items() for name in names}

__all__ = [
    "EVENTS_NAME", "META_NAME", "READABLE_SCHEMAS", "SCHEMA_VERSION", "EventKind", "EventLog", "Exclusion",
    "ExclusionKind", "Issue", "SessionRecord", "read_record",
    "Limit", "LogError", "LogRead", "MetaError", "Rule", "SessionMeta", "SessionRead", "SessionStatus",
    "VoidReason", "effective_status", "exploratory_by_location", "find_sessions", "read_log", "read_meta",
    "read_session", "session_dir_for", "utc_now", "validate_log", "write_meta",
]


def __getattr__(name: str) -> Any:
    """A name of ``__all__`` from its module, imported on first use (PEP 562)."""
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
