"""``study audit``: check that every session ran under the manifest in effect when it started.

For each session folder (one holding ``meta.json`` or ``events.jsonl``) the audit reads the
``session_start`` event and ``meta.json`` and checks: the manifest hash it recorded is the hash
of the chain record in effect at its start (the freeze, or the latest amendment recorded before
it started); its code version is recorded; and (``session_checks``) its CLI and SDK versions
against the runtime then in effect, and its code version against the manifest then in effect
(through git); its status; and (``record_checks``) its three records against each other:
meta.json against the log, the log against itself and the CLI's transcript. Sessions the
analysis leaves out (without a log, voided, incomplete, exploratory, on the development seed:
the one rule of ``study.session_io.record``, which the analysis uses too) are listed with the
reason and not checked; a session whose records break a rule is excluded too, and fails the
audit with its problems.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from study.session_io import folders
from study.session_io.meta import SessionMeta
from study.session_io.reader import SessionRead, read_session
from study.session_io.record import MAIN_STUDY, Exclusion, ExclusionKind, SessionRecord

from .record_checks import check_order, check_records, check_study_unit
from .session_checks import SessionChecks
from .verify import Link, Report


@dataclass
class SessionAudit:
    """The audit of one session folder.

    ``exclusion`` says why the analysis leaves the session out, by the one rule both use
    (``SessionRecord.exclusion``), or is None for an analysed session, which passes when
    ``problems`` is empty. A session with invalid records is excluded and fails: its problems
    are listed.
    """

    path: Path
    status: str
    exclusion: Exclusion | None = None
    simulated: bool = False
    manifest: str | None = None
    problems: list[str] = field(default_factory=list)
    #: What could not be checked (e.g. no sdk_version in an old log); does not fail the session.
    notes: list[str] = field(default_factory=list)

    @property
    def excluded(self) -> str | None:
        """The exclusion's reason, as the analysis' exclusion list gives it."""
        return self.exclusion.reason if self.exclusion is not None else None

    @property
    def verdict(self) -> str:
        if self.problems:
            return "FAIL"
        return self.exclusion.kind.value if self.exclusion is not None else "ok"


def find_sessions(directory: Path) -> list[Path]:
    """Every folder under ``directory`` (itself included) that holds a session, by the one rule
    of ``study.session_io.folders`` (``attempt-*`` folders are earlier attempts, not sessions)."""
    return folders.find_sessions(directory)


def audit_sessions(directory: Path, report: Report, kept: dict[str, SessionAudit] | None = None
                   ) -> list[SessionAudit]:
    """Audit every session under ``directory`` against the chain of ``report`` (from ``verify``):
    its manifest, and (``session_checks``) its runtime and code version against the project's
    git history. ``kept``: session folder -> its result from an earlier audit whose inputs still
    hold (``audit_cache.kept_results``), taken instead of reading it again."""
    checks = SessionChecks.for_root(report.root)
    kept = kept or {}
    return [kept.get(str(path)) or audit_session(path, report.links, directory, checks)
            for path in find_sessions(directory)]


def audit_session(path: Path, links: list[Link], directory: Path | None = None,
                  checks: SessionChecks | None = None) -> SessionAudit:
    """Audit one session folder against the chain's records (the freeze, then amendments).

    ``directory`` is the folder being audited; a session below an ``exploratory`` folder of it
    is exploratory. With ``checks``, the runtime and the code version are checked too.
    """
    session = read_session(path, strict=False)
    record = SessionRecord.of(session, directory)
    # each session by its own study's rule (a study of another family is audited like the main one)
    result = SessionAudit(path=path, status=str(record.status), simulated=record.simulated,
                          exclusion=record.exclusion(study=record.study))
    if result.exclusion is not None and result.exclusion.kind != ExclusionKind.INVALID:
        return result     # never scored for a reason other than its records: not checked
    problems = result.problems
    meta = _meta_fields(path, session.meta, problems)
    start = _start(session, problems)
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
        in_effect = _check_manifest(result, started, links)
        if checks is not None and in_effect is not None:
            checks.check_runtime(in_effect, start, meta, problems, result.notes)
            checks.check_code_version(in_effect, start.get("code_version") or meta.get("code_version"),
                                      problems, result.notes)
            if record.study == MAIN_STUDY:
                check_order(checks.root, in_effect.files, start, problems, result.notes)
            else:
                check_study_unit(checks.root, in_effect.files, start, record.study, problems, result.notes)
    records = check_records(path, meta)   # meta against the log, the log against the transcript
    problems.extend(records.problems)
    result.notes.extend(records.notes)
    result.simulated = result.simulated or records.simulated is not None
    return result


def _check_manifest(result: SessionAudit, started: datetime, links: list[Link]) -> Link | None:
    """Check the recorded manifest; return the record in effect when the session started."""
    in_effect = [link for link in links if (made := _parse_time(link.time)) is not None and made <= started]
    if not in_effect:
        result.problems.append(f"started at {started.isoformat()}, before the freeze")
        return None
    expected = in_effect[-1]
    if result.manifest == expected.sha256:
        return expected
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
    return expected


def _meta_fields(path: Path, meta: SessionMeta | None, problems: list[str]) -> dict[str, Any]:
    """meta.json's well-typed fields (``meta`` read in reporting mode: a broken file or a wrongly
    typed field is a problem, never a crash and never misread)."""
    if meta is None:
        problems.append("meta.json is missing")
        return {}
    problems.extend(issue.describe(path) for issue in meta.problems)
    return meta.to_dict()


def _start(session: SessionRead, problems: list[str]) -> dict[str, Any]:
    """The log's session_start (empty if absent); every rule of ``study.session_io.reader`` the
    log or its consistency with meta.json breaks is a problem."""
    if session.log is None:
        problems.append("events.jsonl is missing")
        return {}
    problems.extend(issue.describe(session.path) for issue in session.log.errors)
    start = next((e for e in session.log.events if e.get("kind") == "session_start"), None)
    if start is None:
        problems.append("events.jsonl has no session_start event")
    return start or {}


def _parse_time(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
