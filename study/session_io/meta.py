"""``meta.json``: the one typed definition of a session's summary, and reading and writing it.

``meta.json`` is written atomically when the session starts (status ``running``, with the
runner's host, pid and pid start time) and again when it ends, so a session whose runner was
killed is recognisable as unfinished (``effective_status``). ``events.jsonl`` is the primary
record; meta.json summarises it and must agree with it (``reader.validate_log``).

Reading never misreads: a field of the wrong JSON type (``"voided": "false"``, a string) is a
problem, never coerced. ``read_meta(dir, strict=True)`` raises ``MetaError`` naming the file and
the problem; the reporting read (default) never raises and returns the meta with ``problems``
(each an ``Issue``) and the badly typed fields left at their defaults.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from .folders import META_NAME
from .issues import Issue, MetaError, Rule
from .jsontypes import checker, describe, shown
from .safe_files import META_CAP, read_capped
from .vocabulary import SessionStatus, VoidReason, status_voids


def _extra() -> Any:
    """A field that not every session's meta.json has (not in ``CORE_FIELDS``)."""
    return field(default=None, metadata={"core": False})


@dataclass
class SessionMeta:
    """The fields of ``meta.json`` (docs/contracts.md, "Session directory"). Absent fields are
    None (``voided`` False); keys this definition does not know are kept in ``other``. Every
    session's meta.json has the core fields (``CORE_FIELDS``: all but those made with
    ``_extra()``), null where unknown."""

    model: str | None = None
    model_id: str | None = None
    condition: str | None = None
    seed: int | None = None
    simulated: bool | None = None
    exploratory: bool | None = None
    accounts: int | None = None
    status: SessionStatus | None = None
    voided: bool = False
    void_reason: str | None = None
    void_kind: VoidReason | None = _extra()
    cost_usd: float | None = None
    cost_complete: bool | None = _extra()
    cost_estimated_usd: float | None = _extra()
    turns: int | None = None
    duration_s: float | None = None
    resumes: int | None = None
    decisions: int | None = None
    manifest_sha256: str | None = None
    code_version: str | None = None
    cli_version: str | None = None
    runtime: str | None = _extra()              # the agent runtime (absent: claude-code, the only one before schema 3)
    runtime_lock_sha256: str | None = _extra()  # the runtime's own lock (Codex CLI's npm lock)
    sdk_version: str | None = _extra()
    lock_sha256: str | None = _extra()
    token_reminder: str | None = None
    started: str | None = None
    ended: str | None = None
    session_id: str | None = None
    error: str | None = None
    limits: dict | None = _extra()
    runner: dict | None = _extra()             # host, pid, pid_start of the runner
    cli_settings: dict | None = _extra()
    other: dict[str, Any] = field(default_factory=dict)
    problems: list[Issue] = field(default_factory=list, compare=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], path: Path = Path(META_NAME)) -> "SessionMeta":
        """The meta of a JSON object; wrongly typed fields are left at their default and listed
        in ``problems`` (rule ``meta-field``)."""
        known: dict[str, Any] = {}
        other: dict[str, Any] = {}
        problems: list[Issue] = []
        for key, value in data.items():
            check = _CHECKS.get(key)
            if check is None:
                other[key] = value
            elif check[1](value):
                known[key] = SessionStatus(value) if key == "status" and value is not None else (
                    VoidReason(value) if key == "void_kind" and value is not None else value)
            else:
                problems.append(Issue(Rule.META_FIELD, path, None,
                                      f"{key!r} must be {describe(check[0])}, not {shown(value)}"))
        return cls(**known, other=other, problems=problems)

    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        """The JSON object: fields that are set, then ``other``; ``full`` also writes the fields
        every session has (``CORE_FIELDS``) when they are None."""
        out: dict[str, Any] = {}
        for f in _FIELDS:
            value = getattr(self, f)
            if value is not None or (full and f in CORE_FIELDS):
                out[f] = value.value if hasattr(value, "value") else value
        out.update(self.other)
        return out

    def get(self, key: str, default: Any = None) -> Any:
        """A field or ``other`` key by name, like ``dict.get`` (None counts as absent)."""
        value = getattr(self, key, None) if key in _CHECKS else self.other.get(key)
        return default if value is None else value


_FIELDS = tuple(f.name for f in dataclasses.fields(SessionMeta) if f.name not in ("other", "problems"))
_HINTS = typing.get_type_hints(SessionMeta)
_CHECKS = {name: (_HINTS[name], checker(_HINTS[name])) for name in _FIELDS}

#: The fields every session's meta.json has (written even when null).
CORE_FIELDS = tuple(f.name for f in dataclasses.fields(SessionMeta)
                    if f.name in _FIELDS and f.metadata.get("core", True))


def meta_path(session_dir: Path) -> Path:
    return Path(session_dir) / META_NAME


def read_meta(session_dir: Path, *, strict: bool = False) -> SessionMeta | None:
    """The session's meta.json, or None if there is none.

    A file that is not UTF-8, not JSON or not a JSON object, or a field of the wrong type:
    ``strict`` raises ``MetaError`` naming the file and the problem; otherwise the returned meta
    carries the problem in ``problems`` (an unreadable file gives an empty meta).
    """
    path = meta_path(session_dir)
    try:
        data = read_capped(path, within=path.parent, max_bytes=META_CAP)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _broken(path, f"cannot be read ({exc.strerror})", None, strict)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _broken(path, f"is not UTF-8 (byte {exc.start})", None, strict)
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        return _broken(path, f"is not valid JSON ({exc.msg})", exc.lineno, strict)
    if not isinstance(obj, dict):
        return _broken(path, f"must hold a JSON object, not {shown(obj)}", None, strict)
    meta = SessionMeta.from_dict(obj, path)
    if strict and meta.problems:
        raise MetaError.of(meta.problems[0], _ADVICE)
    return meta


_ADVICE = ("meta.json is the runner's summary and is never edited by hand; restore it from the "
           "session archive (events.jsonl is the primary record)")


def _broken(path: Path, what: str, line: int | None, strict: bool) -> SessionMeta:
    issue = Issue(Rule.META_FILE, path, line, f"meta.json {what}")
    if strict:
        raise MetaError.of(issue, _ADVICE)
    return SessionMeta(problems=[issue])


def write_meta(session_dir: Path, meta: SessionMeta | Mapping[str, Any]) -> None:
    """Write meta.json atomically (a crash leaves the old or the new file, never half of one).

    A ``SessionMeta`` is written with every core field; a mapping is written as given after its
    fields are checked against ``SessionMeta`` (``ValueError`` for a wrongly typed one)."""
    if isinstance(meta, SessionMeta):
        data = meta.to_dict(full=True)
    else:
        data = dict(meta)
        problems = SessionMeta.from_dict(data).problems
        if problems:
            raise ValueError("refusing to write meta.json: " + "; ".join(i.message for i in problems))
    path = meta_path(session_dir)
    tmp = path.with_name(f"{META_NAME}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(data, indent=1, ensure_ascii=False, default=str) + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (Linux), to tell a reused pid apart."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rfind(")") + 2:].split()[19]


def runner_identity() -> dict[str, Any]:
    """Who runs a session: host, pid and the pid's start time (recorded in meta.json)."""
    return {"host": socket.gethostname(), "pid": os.getpid(), "pid_start": _start_time(os.getpid())}


def runner_alive(runner: Mapping[str, Any]) -> bool:
    """The recorded runner (same host) is still alive: its pid exists with the same start time."""
    pid = runner.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False   # 0, -1 or none: names no runner (os.kill would signal a group, or every process)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return pid > 0
    recorded = runner.get("pid_start")
    return recorded is None or _start_time(pid) in (None, recorded)


def runner_gone(runner: Mapping[str, Any]) -> bool:
    """The recorded runner is known to be gone: it ran on this host and its pid is not alive
    (``runner_alive``). A runner on another host cannot be checked from here: never gone."""
    return runner.get("host") == socket.gethostname() and not runner_alive(runner)


def effective_status(meta: SessionMeta | Mapping[str, Any] | None) -> SessionStatus:
    """The status to show: meta's, except that a ``running`` session whose runner is gone (same
    host, pid not alive) is ``unfinished``. Without meta.json (or without a readable status) the
    session never started properly and is ``unfinished`` too."""
    if meta is None:
        return SessionStatus.UNFINISHED
    if not isinstance(meta, SessionMeta):
        meta = SessionMeta.from_dict(meta)
    status = meta.status or SessionStatus.UNFINISHED
    if status == SessionStatus.RUNNING and runner_gone(meta.runner or {}):
        return SessionStatus.UNFINISHED
    return status


def is_rerunnable(status: str) -> bool:
    """Sessions ``--rerun-voided`` reruns: voided ones (infrastructure failure, interrupted) and
    those left unfinished by a killed runner."""
    return status_voids(status)
