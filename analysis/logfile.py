"""Reading one session's ``events.jsonl`` and ``meta.json`` (docs/contracts.md, "Session log").

The log is appended and flushed one event at a time, so a crash can leave the last line torn:
that line is reported (``LogRead.warnings``) and skipped. Any other line that is not a JSON
object with ``seq`` and ``kind`` is an error naming the file and the line, because it means the
log was damaged after it was written, and scoring it silently could change a result.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from study.session_log import SCHEMA_VERSION


class LogError(ValueError):
    """A session log or meta file that cannot be analysed; the message says where and what to do."""


@dataclass
class LogRead:
    """The events of one log, in file order, and what was skipped on the way."""

    path: Path
    events: list[dict[str, Any]]
    warnings: list[str] = field(default_factory=list)

    @property
    def start(self) -> dict[str, Any]:
        return self.events[0]

    @property
    def end(self) -> dict[str, Any] | None:
        """The ``session_end`` event, or None while the session runs or after a crash."""
        last = self.events[-1]
        return last if last.get("kind") == "session_end" else None


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or "seq" not in obj or "kind" not in obj:
        return None
    return obj


def _parse_whole(data: bytes) -> list[dict[str, Any]] | None:
    """All events in one orjson call (JSON strings hold no raw newline), or None if any line is
    malformed, so the caller can find and name it line by line."""
    try:
        events = orjson.loads(b"[" + data.rstrip(b"\n").replace(b"\n", b",") + b"]")
    except orjson.JSONDecodeError:
        return None
    if all(type(e) is dict and "seq" in e and "kind" in e for e in events):
        return events
    return None


def read_log(path: Path) -> LogRead:
    """Read ``events.jsonl``; check that it starts with a ``session_start`` of our schema.

    Raises LogError for a missing or empty file, a malformed line other than a torn last one,
    a log that does not start with ``session_start``, or a schema this code does not read.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LogError(f"{path}: no session log here. Point the command at a session folder "
                       "(sessions/<model>/<condition>/seed-<n>/) that holds events.jsonl.") from None
    events = _parse_whole(data)
    warnings: list[str] = []
    if events is None:
        events = _parse_lines(path, data, warnings)
    if not events:
        raise LogError(f"{path}: the log holds no events; the session never started. "
                       "Rerun it or remove the folder.")
    start = events[0]
    if start["kind"] != "session_start":
        raise LogError(f"{path}:1: the first event is {start['kind']!r}, not 'session_start'; "
                       "this is not a complete session log.")
    schema = start.get("schema")
    if schema != SCHEMA_VERSION:
        raise LogError(
            f"{path}:1: session log schema {schema!r}, but this analysis reads schema "
            f"{SCHEMA_VERSION}. Use the version of the package that wrote the log "
            f"(its code_version is {start.get('code_version')!r})."
        )
    return LogRead(path=path, events=events, warnings=warnings)


def _parse_lines(path: Path, data: bytes, warnings: list[str]) -> list[dict[str, Any]]:
    """The events line by line: a torn last line is reported in ``warnings`` and skipped, any
    other malformed line raises LogError naming it."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    events: list[dict[str, Any]] = []
    last = len(lines) - 1
    for number, raw in enumerate(lines):
        if not raw.strip():
            continue
        event = _parse_line(raw)
        if event is None:
            if number == last:
                warnings.append(f"{path}:{number + 1}: truncated last line skipped "
                                f"(a crash while it was written): {raw[:80]!r}")
                continue
            raise LogError(
                f"{path}:{number + 1}: malformed event line {raw[:120]!r}. Every line must be one "
                "JSON object with 'seq' and 'kind'; the log was damaged after it was written. "
                "Restore it from the published session archive; do not edit it by hand."
            )
        events.append(event)
    return events


def read_meta(session_dir: Path) -> dict[str, Any]:
    """``meta.json`` of a session folder, or an empty dict if the runner has not written it yet."""
    path = Path(session_dir) / "meta.json"
    if not path.exists():
        return {}
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise LogError(f"{path}:{exc.lineno}: meta.json is not valid JSON ({exc.msg}). "
                       "Restore it from the session archive; events.jsonl is the primary record.") from None
    if not isinstance(meta, dict):
        raise LogError(f"{path}: meta.json must hold a JSON object.")
    return meta
