"""The sessions of another study than the main one, read from their logs for that study's tables.

``load_study_sessions(root, studies)`` finds every session below ``root`` (the one rule of
``study.session_io.folders``), reads each one's records once (``study.session_io.record``: the
record rules of the reader apply, so a forged or broken log is left out with its rule), keeps the
sessions of ``studies`` that the one exclusion rule admits (``SessionRecord.exclusion``: voided,
incomplete, invalid, exploratory unless ``include_exploratory``) and says why every other session
is left out. Simulated and real sessions are never mixed (``allow_simulated`` admits both under a
SIMULATED title, as for the main study's tables). Nothing here knows a family: a family's tables
(its ``tables`` part, ``study.families.<family>.tables``) read the events they need from each kept
session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from study.protocol.runtimes import model_on_runtime
from study.session_io.folders import find_sessions
from study.session_io.record import Exclusion, SessionRecord, read_record

from .loading import MixedSessions, NoSuchFolder


@dataclass(frozen=True)
class StudySession:
    """One analysed session: its record and its log's events."""

    record: SessionRecord
    events: list[dict[str, Any]]

    @property
    def start(self) -> dict[str, Any]:
        return self.events[0] if self.events else {}

    @property
    def model(self) -> str:
        """The model as the tables name it: ``sim:oracle on Codex CLI`` beside ``sim:oracle``."""
        return model_on_runtime(self.record.model or "?", self.record.runtime)

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("kind") == kind]

    def last(self, kind: str) -> dict[str, Any] | None:
        found = self.of_kind(kind)
        return found[-1] if found else None


@dataclass
class StudySessions:
    root: Path
    studies: tuple[str, ...]
    sessions: list[StudySession] = field(default_factory=list)
    excluded: list[tuple[str, Exclusion]] = field(default_factory=list)
    simulated: bool = False
    exploratory: bool = False


def _below(path: Path, root: Path) -> str:
    try:
        return Path(path).relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def load_study_sessions(root: Path, studies: tuple[str, ...] | list[str], *, include_exploratory: bool = False,
                        allow_simulated: bool = False) -> StudySessions:
    """The analysable sessions of ``studies`` below ``root`` and why the others are left out."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise NoSuchFolder(f"{root}: no such folder. Pass the sessions folder with --sessions "
                           "(default: sessions/ of the project).")
    found = StudySessions(root, tuple(studies))
    for folder in find_sessions(root):
        record, session = read_record(folder, root)
        study = record.study if record.study in studies else studies[0]
        why = record.exclusion(include_exploratory=include_exploratory, study=study)
        if why is not None:
            found.excluded.append((_below(folder, root), why))
            continue
        log = session.log
        found.sessions.append(StudySession(record, list(log.events) if log is not None else []))
    simulated = [s for s in found.sessions if s.record.simulated]
    if simulated and len(simulated) < len(found.sessions) and not allow_simulated:
        raise MixedSessions(f"{root}: {len(simulated)} simulated and {len(found.sessions) - len(simulated)} real "
                            f"sessions of {', '.join(studies)}; they are never mixed in one table (first simulated: "
                            f"{simulated[0].record.path}). Point --sessions at a folder with only one kind, or pass "
                            "--allow-simulated to tabulate both under a SIMULATED title.")
    found.simulated = bool(simulated)
    found.exploratory = include_exploratory and any(s.record.exploratory for s in found.sessions)
    found.excluded.sort()
    return found
