"""The session log: ``events.jsonl``, one JSON object a line, appended and flushed per event.

This module is the single writer of the log format that ``docs/contracts.md`` ("Session log")
specifies and that ``analysis`` reads. Every event has ``seq`` (0, 1, 2, … in file order),
``t`` (UTC ISO 8601 with microseconds) and ``kind``. A crash loses at most the event being
written; reopening a log continues its ``seq``.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

#: Version of the event schema; ``session_start.schema`` carries it, the analysis checks it.
SCHEMA_VERSION = 1

#: The event kinds of schema 1 and the fields each must have (beyond seq, t, kind).
REQUIRED_FIELDS: dict[str, tuple[str, ...]] = {
    "session_start": (
        "schema", "condition", "seed", "model", "simulated", "manifest_sha256",
        "code_version", "cli_version", "order", "limits",
    ),
    "tool_call": ("tool", "args", "account", "allowed", "ok", "state"),
    "transition": ("from", "to", "ok", "reason"),
    "stop": ("accounts_left", "outcome"),
    "resume": ("n",),
    "compaction": ("trigger",),
    "assistant_text": ("text",),
    "session_end": ("status", "cost_usd", "turns", "duration_s"),
}


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class EventLog:
    """Append-only writer of one session's ``events.jsonl``. Thread-safe."""

    def __init__(self, path: Path, *, fsync: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._seq = self._next_seq(self.path)
        self._fsync = fsync
        self._lock = threading.Lock()
        self._fh = open(self.path, "a", encoding="utf-8")

    @staticmethod
    def _next_seq(path: Path) -> int:
        if not path.exists():
            return 0
        last = -1
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    last = int(json.loads(line)["seq"])
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a crash
        return last + 1

    def emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Write one event and flush it; return the event as written."""
        missing = [f for f in REQUIRED_FIELDS.get(kind, ()) if f not in fields]
        if missing:
            raise ValueError(f"event {kind!r} lacks required fields {missing}")
        with self._lock:
            event = {"seq": self._seq, "t": utc_now(), "kind": kind, **fields}
            self._fh.write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
            self._fh.flush()
            if self._fsync:
                os.fsync(self._fh.fileno())
            self._seq += 1
        return event

    def close(self) -> None:
        with self._lock:
            if not self._fh.closed:
                self._fh.close()

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_events(path: Path) -> list[dict[str, Any]]:
    """All complete events of a log (a torn last line is skipped)."""
    events = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return events
