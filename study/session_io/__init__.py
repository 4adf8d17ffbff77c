"""Session I/O: the one owner of what a session folder holds and how it is read and written.

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
  the analysis and the audit leave a session out.
"""

from .events import READABLE_SCHEMAS, SCHEMA_VERSION
from .folders import EVENTS_NAME, META_NAME, exploratory_by_location, find_sessions, session_dir_for
from .issues import Issue, LogError, MetaError, Rule
from .meta import SessionMeta, effective_status, read_meta, write_meta
from .reader import LogRead, SessionRead, read_log, read_session, validate_log
from .record import Exclusion, ExclusionKind, SessionRecord, read_record
from .vocabulary import EventKind, Limit, SessionStatus, VoidReason
from .writer import EventLog, utc_now

__all__ = [
    "EVENTS_NAME", "META_NAME", "READABLE_SCHEMAS", "SCHEMA_VERSION", "EventKind", "EventLog", "Exclusion",
    "ExclusionKind", "Issue", "SessionRecord", "read_record",
    "Limit", "LogError", "LogRead", "MetaError", "Rule", "SessionMeta", "SessionRead", "SessionStatus",
    "VoidReason", "effective_status", "exploratory_by_location", "find_sessions", "read_log", "read_meta",
    "read_session", "session_dir_for", "utc_now", "validate_log", "write_meta",
]
