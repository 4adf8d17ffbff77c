"""The only writer of ``events.jsonl``: one JSON object a line, appended and flushed per event.

Every event has ``seq`` (0, 1, 2, … in file order), ``t`` (UTC ISO 8601 with microseconds) and
``kind``; its other fields are checked against the kind's typed definition in ``events`` before
anything is written (``ValueError`` for an unknown kind, a missing field or a wrongly typed one),
so the writer never writes a line the reader would reject. A type checker sees the same
definitions: ``emit`` has one overload per common kind (``EventKind``) whose keyword parameters
are the kind's fields (tests/session_io/test_emit_overloads.py holds them to ``events.EVENT_TYPES``);
a task family's own kinds (its ``events`` part's) are written through ``emit`` by their names and
checked the same, and an event whose kind is known only at run time goes through ``emit_fields``. A crash loses at most the event being
written; reopening a log continues its ``seq``. A write that fails (a full disk) is raised and
kept in ``failed``, and the log takes no more events, so a line cut short stays its last line
(which the reader tolerates) and the session's driver ends the session.
"""

from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, Mapping, overload

from .events import field_problems
from .vocabulary import EventKind, SessionStatus


def utc_now() -> str:
    """The current UTC time as the log writes it (``2026-11-30T21:12:13.614624Z``); meta.json, the
    claims, the preregistration records and the tools' state logs write the same."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


class EventLog:
    """Append-only writer of one session's ``events.jsonl``. Thread-safe."""

    def __init__(self, path: Path, *, fsync: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._seq = self._next_seq(self.path)
        self._fsync = fsync
        self._lock = threading.Lock()
        #: The first write that failed (OSError: ENOSPC, EIO ...); the event was not written.
        self.failed: OSError | None = None
        self._fh = open(self.path, "ab", buffering=0)

    @staticmethod
    def _next_seq(path: Path) -> int:
        if not path.exists():
            return 0
        last = -1
        with open(path, "rb") as fh:
            for line in fh:
                try:
                    last = int(json.loads(line)["seq"])
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a crash
        return last + 1

    # One overload per kind: the fields of its definition in ``events`` as keyword parameters, in
    # the same order (a ``NotRequired`` one has a default), and ``more`` for the further fields the
    # contract allows. ``transition``'s field ``from`` is a Python keyword, so it goes in ``more``
    # (``emit(EventKind.TRANSITION, **{"from": state}, to=..., ok=..., reason=...)``, in that order).
    @overload
    def emit(self, kind: Literal[EventKind.SESSION_START, "session_start"], *, schema: int, condition: str,
             seed: int, model: str, simulated: bool, manifest_sha256: str | None, code_version: str | None,
             cli_version: str | None, order: list[str], limits: dict, exploratory: bool = ...,
             model_id: str | None = ..., sdk_version: str | None = ..., lock_sha256: str | None = ...,
             task: str = ..., runtime: str = ..., runtime_lock_sha256: str | None = ..., family: str = ...,
             study: str = ..., **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.TOOL_CALL, "tool_call"], *, tool: str, args: dict, account: str | None,
             allowed: bool, ok: bool, state: str | None, server: str = ..., result: str | None = ...,
             error: str | None = ..., call_id: str | None = ..., reminder_attached: bool = ...,
             exit_code: int | None = ..., **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.TRANSITION, "transition"], *, to: str | None, ok: bool,
             reason: str | None, **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.STOP, "stop"], *, accounts_left: int, outcome: Literal["ended", "blocked"],
             reason: str | None = ..., block_cap_reached: bool = ..., stop_hook_active: bool = ...,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.RESUME, "resume"], *, n: int, accounts_left: int = ...,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.COMPACTION, "compaction"], *, trigger: str,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.ASSISTANT_TEXT, "assistant_text"], *, text: str,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.CALL_END, "call_end"], *, n: int, cost_usd: float, session_cost_usd: float,
             subtype: str | None = ..., is_error: bool | None = ..., turns: int | None = ...,
             priced_usd: float | None = ..., decisions: int | None = ..., accounts_left: int | None = ...,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.USAGE, "usage"], *, call: int, priced_usd: float | None,
             session_cost_usd: float, context: int = ..., **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.MODEL_USAGE, "model_usage"], *, role: str, model: str,
             usage: dict[str, int], priced_usd: float | None, session_cost_usd: float, model_id: str = ...,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.PROPOSAL, "proposal"], *, id: str, workflow: str, state: str | None,
             valid: bool, problems: int, reason: str = ..., **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.API_RETRY, "api_retry"], *, call: int, status: int | None,
             error: str | None, attempt: int, max_retries: int | None = ..., wait_s: float | None,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.CONTEXT_START, "context_start"], *, n: int, unit: str | None = ...,
             **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.CONTEXT_END, "context_end"], *, n: int, ended: str,
             unit: str | None = ..., **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.OUTCOME, "outcome"], *, family: str, **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.COMMIT, "commit"], *, sha: str, parents: list[str], subject: str,
             files: list[str], **more: Any) -> dict[str, Any]: ...

    @overload
    def emit(self, kind: Literal[EventKind.SESSION_END, "session_end"], *, status: SessionStatus,
             cost_usd: float | None, turns: int, duration_s: float, error: str | None = ...,
             cost_complete: bool = ..., cost_estimated_usd: float | None = ..., resumes: int = ...,
             decisions: int | None = ..., accounts_left: int | None = ..., cli_stop_s: float | None = ...,
             side_cost_usd: float = ..., **more: Any) -> dict[str, Any]: ...

    def emit(self, kind: EventKind | str, **fields: Any) -> dict[str, Any]:
        """Check the event against its kind's definition, write it and flush; return it as written."""
        return self.emit_fields(kind, fields)

    def emit_fields(self, kind: EventKind | str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """``emit`` of an event whose kind is known only at run time (the FSM tools' event sink):
        the same checks, made at run time only."""
        problems = field_problems(kind, fields)
        if problems:
            raise ValueError(f"refusing to write an invalid event to {self.path}: " + "; ".join(problems))
        with self._lock:
            event = {"seq": self._seq, "t": utc_now(), "kind": str(kind), **fields}
            try:
                self._write(json.dumps(event, ensure_ascii=False, default=str) + "\n")
            except OSError as exc:   # a full disk, a lost mount: the writer of the session must know
                self.failed = self.failed or exc
                raise
            self._seq += 1
        return event

    def _write(self, line: str) -> None:
        if self.failed is not None:   # after a failed write nothing more: a torn line stays the last one
            raise self.failed
        data = memoryview(line.encode("utf-8"))
        while data:   # unbuffered: what the kernel did not take is never written later behind a newer line
            data = data[self._fh.write(data):]
        if self._fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        """Close the file; a write that fails here (the rest of a line a full disk refused) is
        kept in ``failed``, not raised."""
        with self._lock:
            if not self._fh.closed:
                try:
                    self._fh.close()
                except OSError as exc:
                    self.failed = self.failed or exc

    def __enter__(self) -> "EventLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
