"""``study audit``: check that every session ran under the manifest in effect when it started.

For each session folder (one holding ``meta.json`` or ``events.jsonl``) the audit reads the
``session_start`` event and ``meta.json`` and checks: the manifest hash it recorded is the hash
of the chain record in effect at its start (the freeze, or the latest amendment recorded before
it started); its code version is recorded; its status. Sessions the analysis leaves out
(voided, incomplete, exploratory: the rules of ``analysis.loading``) are listed with the reason
and not checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from study.session_log import read_events

from .verify import Link, Report


@dataclass
class SessionAudit:
    """The audit of one session folder.

    ``excluded`` says why the analysis leaves the session out (voided, incomplete,
    exploratory; the same rules as ``analysis.loading``), or is None for an analysed session,
    which passes when ``problems`` is empty.
    """

    path: Path
    status: str
    excluded: str | None = None
    simulated: bool = False
    manifest: str | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.excluded:
            return self.excluded.split(":")[0]
        return "FAIL" if self.problems else "ok"


def find_sessions(directory: Path) -> list[Path]:
    """Every folder under ``directory`` (itself included) that holds a session."""
    marks = {p.parent for name in ("meta.json", "events.jsonl") for p in directory.rglob(name)}
    return sorted(marks)


def audit_sessions(directory: Path, report: Report) -> list[SessionAudit]:
    """Audit every session under ``directory`` against the chain of ``report`` (from ``verify``)."""
    return [audit_session(path, report.links, directory) for path in find_sessions(directory)]


def audit_session(path: Path, links: list[Link], directory: Path | None = None) -> SessionAudit:
    """Audit one session folder against the chain's records (the freeze, then amendments).

    ``directory`` is the folder being audited; a session below an ``exploratory`` folder of it
    is exploratory.
    """
    problems: list[str] = []
    meta = _read_meta(path, problems)
    start, end = _start_and_end(path, problems)
    status = end.get("status") or meta.get("status") or "unfinished"
    result = SessionAudit(path=path, status=str(status), simulated=bool(meta.get("simulated", start.get("simulated"))))
    result.excluded = _exclusion(path, directory, meta, start, end)
    if result.excluded:
        return result
    result.problems = problems
    recorded = {start.get("manifest_sha256"), meta.get("manifest_sha256")} - {None, ""}
    if len(recorded) > 1:
        problems.append("meta.json and the session_start event record different manifest hashes")
    if not recorded:
        problems.append("no manifest hash recorded (manifest_sha256)")
    if (start.get("code_version") or meta.get("code_version")) in (None, "", "unknown"):
        problems.append("no code version recorded (code_version)")
    started = _parse_time(start.get("t") or meta.get("started"))
    if started is None:
        problems.append("no start time (session_start event or meta.json 'started')")
    if len(recorded) == 1 and started is not None:
        result.manifest = recorded.pop()
        _check_manifest(result, started, links)
    return result


def _exclusion(path: Path, directory: Path | None, meta: dict, start: dict, end: dict) -> str | None:
    """Why the analysis leaves this session out, or None if it is analysed."""
    if meta.get("voided"):
        return f"voided: {meta.get('void_reason') or 'no reason recorded'}"
    if end.get("status") == "infrastructure_failure":
        return f"voided: infrastructure failure ({end.get('error') or 'no error text'})"
    if not end:
        return "incomplete: no session_end (still running, or crashed)"
    below = path.relative_to(directory).parts if directory and path.is_relative_to(directory) else ()
    if meta.get("exploratory") or start.get("exploratory") or "exploratory" in below:
        return "exploratory: not a preregistered run"
    return None


def _check_manifest(result: SessionAudit, started: datetime, links: list[Link]) -> None:
    in_effect = [link for link in links if (made := _parse_time(link.time)) is not None and made <= started]
    if not in_effect:
        result.problems.append(f"started at {started.isoformat()}, before the freeze")
        return
    expected = in_effect[-1]
    if result.manifest == expected.sha256:
        return
    ran_under = next((link for link in links if link.sha256 == result.manifest), None)
    if ran_under is None:
        result.problems.append(
            f"ran under an unknown manifest {result.manifest[:16]}… (neither the freeze nor any "
            f"amendment); {expected.label} was in effect when it started"
        )
    else:
        result.problems.append(
            f"ran under {ran_under.label} ({ran_under.time}), but {expected.label} "
            f"({expected.time}) was in effect when it started"
        )


def _read_meta(path: Path, problems: list[str]) -> dict[str, Any]:
    meta_path = path / "meta.json"
    if not meta_path.exists():
        problems.append("meta.json is missing")
        return {}
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"meta.json is not valid JSON ({exc})")
        return {}
    if not isinstance(meta, dict):
        problems.append("meta.json is not a JSON object")
        return {}
    return meta


def _start_and_end(path: Path, problems: list[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    log = path / "events.jsonl"
    if not log.exists():
        problems.append("events.jsonl is missing")
        return {}, {}
    events = read_events(log)
    start = next((e for e in events if e.get("kind") == "session_start"), None)
    end = next((e for e in reversed(events) if e.get("kind") == "session_end"), {})
    if start is None:
        problems.append("events.jsonl has no session_start event")
        start = {}
    return start, end


def _parse_time(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
