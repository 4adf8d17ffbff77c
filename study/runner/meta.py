"""The runner's names for the session folder layout and ``meta.json`` (``study.session_io``).

``study.session_io.meta`` owns the format (``SessionMeta``), ``study.session_io.folders`` the
layout; this module keeps the names the runner has always used. ``read_meta`` here returns the
meta as a plain dict (None without a readable meta.json); new code should use
``study.session_io.meta.read_meta``, which returns a typed ``SessionMeta`` with its problems.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from study.session_io import meta as _meta
from study.session_io.folders import EVENTS_NAME, META_NAME, session_dir_for
from study.session_io.issues import Rule
from study.session_io.meta import CORE_FIELDS, effective_status, is_rerunnable, runner_identity, write_meta
from study.session_io.vocabulary import SessionStatus

RUNNING = SessionStatus.RUNNING
UNFINISHED = SessionStatus.UNFINISHED

#: meta.json fields every session has (docs/contracts.md, "Session directory").
META_FIELDS = CORE_FIELDS

__all__ = ["EVENTS_NAME", "META_FIELDS", "META_NAME", "RUNNING", "UNFINISHED", "effective_status",
           "is_rerunnable", "read_meta", "runner_identity", "session_dir_for", "write_meta"]


def read_meta(session_dir: Path) -> dict[str, Any] | None:
    """meta.json as a dict of its well-typed fields, or None if it is missing or unreadable."""
    meta = _meta.read_meta(session_dir)
    if meta is None or any(p.rule == Rule.META_FILE for p in meta.problems):
        return None
    return meta.to_dict()
