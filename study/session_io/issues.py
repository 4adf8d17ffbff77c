"""What can be wrong with a session's records: one ``Issue`` (rule, file, line, message), and the
errors strict readers raise with it.

Strict readers (the analysis) raise ``LogError`` (``MetaError`` for ``meta.json``) carrying the
first error issue; reporting readers (status, audit) never raise and return every issue.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from study.errors import StudyError


class Rule(StrEnum):
    """The rule an issue breaks (docs/contracts.md, "Validation of a log")."""

    NO_LOG = "no-log"                 # a session folder without events.jsonl
    FILE = "file"                     # not a regular file inside the session folder, or over a size cap
    EMPTY = "empty"                   # events.jsonl holds no event
    ENCODING = "encoding"             # a line that is not UTF-8
    JSON = "json"                     # a line that is not one JSON object
    TORN = "torn"                     # the last line cut short by a crash (a warning)
    EVENT = "event"                   # unknown kind, missing field, wrong type
    SEQ = "seq"                       # seq must be 0, 1, 2, ... in file order
    TIME = "time"                     # t never goes back (beyond a clock step's slack)
    START = "start"                   # exactly one session_start, the first line
    END = "end"                       # at most one session_end, the last line
    SCHEMA = "schema"                 # a schema this package reads (1 or 2)
    BATCH = "batch"                   # a successful tool call's account, and every count of decisions, within the batch
    RANGE = "range"                   # a cost, token count, count or duration that is negative or not finite
    COST = "cost"                     # a session's cost below the share of its streamed usage's list price
    SIMULATED = "simulated"           # the witnesses of simulated (flag, model, endpoint, truth file, ids) disagree
    META_FILE = "meta-file"           # meta.json unreadable: not UTF-8, not JSON, not an object
    META_FIELD = "meta-field"         # a meta.json field of the wrong type ("false" for false)
    META_LOG = "meta-log"             # meta.json disagrees with the log
    VERDICT = "verdict"               # another family's outcome is not what its evidence re-derives (``verdicts``)


@dataclass(frozen=True)
class Issue:
    """One thing wrong with a session's records. ``line`` counts from 1 (None: the whole file)."""

    rule: Rule
    file: Path
    line: int | None
    message: str
    warning: bool = False             # tolerated (a torn last line): reported, not an error

    def __str__(self) -> str:
        return self.describe()

    def describe(self, base: Path | None = None) -> str:
        """``file:line: message [rule r]``, the file relative to ``base`` when it is below it."""
        name = str(self.file)
        if base is not None and self.file.is_relative_to(base):
            name = self.file.relative_to(base).as_posix()
        if self.line is not None:
            return f"{name}:{self.line}: {self.message} [rule {self.rule}]"
        if self.message.startswith(self.file.name):
            return f"{self.message} [rule {self.rule}]"
        return f"{name}: {self.message} [rule {self.rule}]"


class LogError(StudyError, ValueError):
    """A session's records that cannot be analysed; the message names the file, the line and the
    rule, and says what to do. ``issue`` is the first error found (None for a missing folder)."""

    def __init__(self, message: str, issue: Issue | None = None):
        super().__init__(message)
        self.issue = issue

    @classmethod
    def of(cls, issue: Issue, advice: str = "") -> "LogError":
        return cls(f"{issue}{'. ' + advice if advice else ''}", issue)


class MetaError(LogError):
    """A ``meta.json`` that cannot be read as a session's summary."""


def first_error(issues: list[Issue]) -> Issue | None:
    return next((i for i in issues if not i.warning), None)
