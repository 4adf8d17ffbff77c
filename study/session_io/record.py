"""``SessionRecord``: what one session folder is, worked out once from its meta.json and its log.

Every reader that asks "what is this session?" — ``study status``, the run summary, the audit,
the analysis' loading, the viewer, the demo — reads it here: identity (model, condition, seed,
batch size, task), status, voided and why, exploratory and why, cost, how long it ran and on
which CLI and SDK, size on disk, earlier attempts, and the issues of its records.
``SessionRecord.exclusion()`` is the one rule by which the analysis leaves a session out and the
audit lists it as excluded (docs/contracts.md, "Exclusions"); its words are rendered from
``ExclusionKind``, never read back from a text.

The record is built from a reporting read (``reader.read_session(strict=False)``): it never
raises on bad records; a session whose records break a rule is excluded as ``INVALID`` with the
first broken rule (the issue a strict read would raise).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from study.protocol.preregistered import DEVELOPMENT_SEED, PREREGISTERED_TASK

from .events import EARLIER_RUNTIME
from .folders import EVENTS_NAME, attempts, exploratory_location
from .issues import Issue, Rule
from .meta import SessionMeta, effective_status
from .reader import LogRead, SessionRead, read_session
from .vocabulary import SessionStatus, status_voids

#: The task of a session that records none (``task``): every session before tasks were added ran
#: the preregistered referral task.
DEFAULT_TASK = PREREGISTERED_TASK

#: What a missing log's exclusion says when the folder has no events.jsonl at all.
NO_LOG_DETAIL = "no events.jsonl (meta.json only: the log was deleted, or the session never started)"

_TO_ADD = "pass --include-exploratory to add it"


class ExclusionKind(StrEnum):
    """Why a session is left out of the analysis, in the order the rule tests them (the value is
    the audit's verdict word)."""

    NO_LOG = "no-log"                  # no events.jsonl (or it cannot be read)
    INVALID = "invalid"                # its records break a rule of ``reader``: never scored
    VOIDED = "voided"                  # meta.json voided, or a session_end status that voids
    INCOMPLETE = "incomplete"          # no session_end: still running, or crashed
    EXPLORATORY = "exploratory"        # flagged so, or below exploratory/ or the demo output
    DEVELOPMENT_SEED = "dev-seed"      # seed 1, the development seed
    OTHER_STUDY = "other-study"        # a session of another study than the one analysed

    @property
    def counted_as(self) -> str:
        """The words after a count in the tables' note ("3 with invalid records")."""
        return _COUNTED_AS[self]

    @property
    def admitted_by_exploratory(self) -> bool:
        """``--include-exploratory`` analyses such sessions."""
        return self in (ExclusionKind.EXPLORATORY, ExclusionKind.DEVELOPMENT_SEED)


#: The study a session belongs to when its log names none (the main one).
MAIN_STUDY = "main"


_COUNTED_AS = {
    ExclusionKind.NO_LOG: "without a log", ExclusionKind.INVALID: "with invalid records",
    ExclusionKind.VOIDED: "voided", ExclusionKind.INCOMPLETE: "incomplete",
    ExclusionKind.EXPLORATORY: "exploratory", ExclusionKind.DEVELOPMENT_SEED: "on the development seed",
    ExclusionKind.OTHER_STUDY: "of other studies",
}

#: The exclusion list's reason (tables, exclusions.md), by kind; ``{detail}`` is the session's.
_REASONS = {
    ExclusionKind.NO_LOG: "{detail}",
    ExclusionKind.INVALID: "invalid records, never scored: {detail}",
    ExclusionKind.VOIDED: "voided: {detail}",
    ExclusionKind.INCOMPLETE: "incomplete: {detail}",
    ExclusionKind.EXPLORATORY: f"exploratory ({_TO_ADD})",
    ExclusionKind.DEVELOPMENT_SEED: f"development seed {DEVELOPMENT_SEED} ({_TO_ADD})",
    ExclusionKind.OTHER_STUDY: "a session of study {detail}, analysed on its own (--study {detail})",
}

#: What the audit says beside its verdict, by kind.
_EXPLAINED = {
    ExclusionKind.EXPLORATORY: "not a preregistered run",
    ExclusionKind.DEVELOPMENT_SEED: f"the development seed {DEVELOPMENT_SEED}, not a preregistered run",
    ExclusionKind.OTHER_STUDY: "another study's session: audited with --study",
}


@dataclass(frozen=True)
class Exclusion:
    """Why one session is left out: its kind and what the session itself says (the void
    reason, the broken rule, …). Every text is rendered from the kind."""

    kind: ExclusionKind
    detail: str = ""

    @property
    def reason(self) -> str:
        """The exclusion list's reason (``exclusions.md``, the commands' stderr list)."""
        return _REASONS[self.kind].format(detail=self.detail)

    @property
    def explained(self) -> str:
        """The audit's words beside its verdict: what makes the session excluded."""
        return _EXPLAINED.get(self.kind, self.detail)

    def __str__(self) -> str:
        return self.reason


def void_of(meta: SessionMeta | None, end: dict[str, Any] | None) -> tuple[bool, str | None]:
    """(voided, why): meta.json voided it (its ``void_reason``), or its ``session_end`` status
    voids it (the status and the error)."""
    status = end.get("status") if end else None
    by_end = status_voids(status)
    voided = bool(meta is not None and meta.voided) or by_end
    reason = (meta.void_reason if meta is not None else None) or (
        f"{status.replace('_', ' ')}: {end.get('error')}" if by_end and end else None)
    return voided, reason if voided else None


def exploratory_of(meta: SessionMeta | None, start: dict[str, Any], folder: Path,
                   root: Path | None) -> str | None:
    """Why the session is exploratory (None: it is not): its flag, or where it is below ``root``."""
    if meta is not None and meta.exploratory:
        return "meta.json says exploratory"
    if start.get("exploratory"):
        return "its session_start says exploratory"
    return exploratory_location(folder, root)


def folder_size(folder: Path) -> int:
    """Bytes of the regular files under ``folder``, each file once: symbolic links are not
    followed and a file of several names (hard links) counts once, so the transcript that Claude
    Code's HOME links to, or that Codex CLI's rollout is a second name of, counts once."""
    total = 0
    seen: set[tuple[int, int]] = set()
    for path, _dirs, files in os.walk(folder, onerror=lambda _: None):
        for name in files:
            try:
                st = os.lstat(os.path.join(path, name))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and (st.st_nlink == 1 or (st.st_dev, st.st_ino) not in seen):
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


@dataclass(frozen=True)
class SessionRecord:
    """One session folder, read once (see the module docstring). Fields the records do not give
    are None; ``issues`` are the errors of meta.json and the log (warnings in ``warnings``)."""

    path: Path
    model: str | None
    model_id: str | None
    condition: str | None
    seed: int | None
    accounts: int | None          # the batch: session_start.order's length, else meta.json's
    task: str
    status: SessionStatus         # meta.json's (``effective_status``), else the log's session_end
    ended: str | None             # session_end.status, None if the log has no session_end
    voided: bool
    void_reason: str | None
    exploratory: bool
    exploratory_why: str | None
    simulated: bool
    cost_usd: float | None        # session_end's, else meta.json's
    decisions: int | None         # meta.json's
    duration_s: float | None      # meta.json's: how long it ran
    cli_version: str | None       # the runtime it ran on: session_start's, else meta.json's
    sdk_version: str | None
    runtime: str                  # the agent runtime: session_start's, else meta.json's, else claude-code
    study: str                    # the study it belongs to: session_start's, else meta.json's, else main
    family: str                   # its task family: session_start's, else meta.json's, else sopbench
    attempts: int                 # earlier attempts kept in attempt-<k>/
    has_meta: bool
    has_log: bool
    has_start: bool               # the log holds its session_start (a log cut inside its first line does not)
    issues: tuple[Issue, ...]
    warnings: tuple[str, ...]

    @classmethod
    def of(cls, session: SessionRead, root: Path | None = None) -> "SessionRecord":
        """The record of a session read in reporting mode (``root``: the scanned folder, for
        where-it-is rules)."""
        meta, log = session.meta, session.log
        start = log.start if log is not None else {}
        end = log.end if log is not None else None
        voided, void_reason = void_of(meta, end)
        why = exploratory_of(meta, start, session.path, root)
        status = effective_status(meta)
        if (meta is None or meta.status is None) and end and end.get("status") in tuple(SessionStatus):
            status = SessionStatus(end["status"])
        order = start.get("order")
        cost = end.get("cost_usd") if end else None
        return cls(
            path=session.path, model=_text(start.get("model"), meta and meta.model),
            model_id=_text(meta and meta.model_id, start.get("model_id")),
            condition=_text(start.get("condition"), meta and meta.condition),
            seed=_integer(start.get("seed"), meta and meta.seed),
            accounts=len(order) if isinstance(order, list) else (meta.accounts if meta else None),
            task=_text(start.get("task"), meta and meta.get("task")) or DEFAULT_TASK,
            status=status, ended=end.get("status") if end else None, voided=voided, void_reason=void_reason,
            exploratory=why is not None, exploratory_why=why,
            simulated=bool(start.get("simulated") or (meta is not None and meta.simulated)),
            cost_usd=cost if cost is not None else (meta.cost_usd if meta else None),
            decisions=meta.decisions if meta else None, duration_s=meta.duration_s if meta else None,
            cli_version=_text(start.get("cli_version"), meta and meta.cli_version),
            sdk_version=_text(start.get("sdk_version"), meta and meta.sdk_version),
            runtime=_text(start.get("runtime"), meta and meta.runtime) or EARLIER_RUNTIME,
            study=_text(start.get("study"), meta and meta.get("study")) or MAIN_STUDY,
            family=_text(start.get("family"), meta and meta.get("family")) or "sopbench",
            attempts=len(attempts(session.path)), has_meta=meta is not None, has_log=log is not None,
            has_start=bool(start),
            issues=tuple(session.errors), warnings=tuple(log.warnings) if log is not None else (),
        )

    @property
    def scorable(self) -> bool:
        """Its log exists, holds its session_start and no record breaks a rule: the scorer may
        read it."""
        return self.has_log and self.has_start and not self.issues

    @property
    def size_bytes(self) -> int:
        """Bytes on disk (every regular file of the folder, attempts included; read on each call)."""
        return folder_size(self.path)

    def exclusion(self, *, include_exploratory: bool = False, study: str = MAIN_STUDY) -> Exclusion | None:
        """Why the analysis of ``study`` leaves this session out, or None if it analyses it: THE
        rule, used by the analysis (``analysis.loading``) and the audit (``study.prereg.audit``)
        alike. A session of another study is left out first (its own analysis reads it); the
        development seed is the main study's only."""
        if self.has_start and self.study != study:
            return Exclusion(ExclusionKind.OTHER_STUDY, self.study)
        if not self.has_log:
            unread = next((i for i in self.issues if i.rule == Rule.NO_LOG), None)
            detail = unread.message if unread is not None and os.path.lexists(self.path / EVENTS_NAME) else NO_LOG_DETAIL
            return Exclusion(ExclusionKind.NO_LOG, detail)
        if self.issues:
            return Exclusion(ExclusionKind.INVALID, self.issues[0].describe(self.path))
        if self.voided:
            return Exclusion(ExclusionKind.VOIDED, self.void_reason or "no reason recorded")
        if not self.has_start:
            return Exclusion(ExclusionKind.INCOMPLETE, "the log holds no session_start (cut inside its first line)")
        if self.ended is None:
            return Exclusion(ExclusionKind.INCOMPLETE, "no session_end (still running, or crashed)")
        if self.exploratory and not include_exploratory:
            return Exclusion(ExclusionKind.EXPLORATORY, self.exploratory_why or "")
        if self.seed == DEVELOPMENT_SEED and not include_exploratory and self.study == MAIN_STUDY:
            return Exclusion(ExclusionKind.DEVELOPMENT_SEED)
        return None


def read_record(folder: Path, root: Path | None = None) -> tuple[SessionRecord, SessionRead]:
    """Read a session folder (reporting mode) and its record; the read holds the events."""
    session = read_session(Path(folder), strict=False)
    return SessionRecord.of(session, root), session


def _text(*values: Any) -> str | None:
    return next((v for v in values if isinstance(v, str)), None)


def _integer(*values: Any) -> int | None:
    return next((v for v in values if isinstance(v, int) and not isinstance(v, bool)), None)


__all__ = ["DEFAULT_TASK", "MAIN_STUDY", "Exclusion", "ExclusionKind", "LogRead", "SessionRecord", "exploratory_of",
           "folder_size", "read_record", "void_of"]
