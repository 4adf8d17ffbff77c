"""The recorded amendments (``preregistration/amendments.jsonl``), read into frozen records.

One line of the file is one amendment (see ``study/prereg/records.py`` for how it is sealed and
chained; whether the chain is intact is checked by ``study prereg verify``, not here). A line that
is not a JSON object, or lacks a field the record needs, stops the reader with the file and the
line number. Where a record is printed (``study prereg show``, the notes under the tables) its
text goes through :func:`shown`: a character a reason may not hold is written as its escape, so a
recorded entry can neither forge a line nor move the cursor.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from study.errors import StudyError

#: Control, format (bidi overrides, zero-width), separator, surrogate, private and unassigned.
UNSAFE_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn")


class AmendmentError(StudyError, ValueError):
    """A line of amendments.jsonl is not an amendment record."""


def unsafe(char: str) -> bool:
    """True for a character an amendment's reason may not hold (see ``UNSAFE_CATEGORIES``)."""
    return unicodedata.category(char) in UNSAFE_CATEGORIES


def shown(text: object) -> str:
    """``text`` for a terminal: every character a reason may not hold written as its escape
    (``\\n``, ``\\x1b``, ``\\u202e``), so a recorded entry can neither forge a line nor move the cursor."""
    return "".join(c.encode("unicode_escape").decode("ascii") if unsafe(c) else c for c in str(text))


@dataclass(frozen=True)
class FileChange:
    """One file an amendment changed; a hash is None for a file that did not or no longer exists."""

    path: str
    old_sha256: str | None = None
    new_sha256: str | None = None


@dataclass(frozen=True)
class Amendment:
    """One recorded amendment, as its line of amendments.jsonl holds it."""

    n: int
    time: str
    reason: str
    files: tuple[FileChange, ...]
    git_commit: str | None
    prev_sha256: str | None
    sha256: str | None
    line: int                     # its line in amendments.jsonl (1-based)

    def summary(self) -> str:
        """``Amendment 1 (2026-…Z): reason [path, …]``, escaped (see :func:`shown`), for the tables."""
        paths = ", ".join(sorted(change.path for change in self.files))
        return shown(f"Amendment {self.n} ({self.time}): {self.reason} [{paths}]")


def _change(raw: object) -> FileChange:
    if isinstance(raw, dict):
        return FileChange(str(raw.get("path")), raw.get("old_sha256"), raw.get("new_sha256"))
    return FileChange(str(raw))


def parse_amendment(raw: Any, where: str, line: int) -> Amendment:
    """The record of one parsed line (``where``: the file, for the message)."""
    if not isinstance(raw, dict):
        raise AmendmentError(f"{where} line {line} is not a JSON object; run `study prereg verify`")
    n, time, reason, files = raw.get("n"), raw.get("time"), raw.get("reason"), raw.get("files", [])
    if not isinstance(n, int) or isinstance(n, bool) or not isinstance(time, str) or not isinstance(reason, str) \
            or not isinstance(files, list):
        raise AmendmentError(f"{where} line {line} is not an amendment (it needs a number n, a time, a reason "
                             "and a list of files); run `study prereg verify`")
    return Amendment(n=n, time=time, reason=reason, files=tuple(_change(f) for f in files),
                     git_commit=raw.get("git_commit"), prev_sha256=raw.get("prev_sha256"),
                     sha256=raw.get("sha256"), line=line)


def read_amendments_file(path: Path) -> list[Amendment]:
    """The amendments of ``path`` in file order; none if the file is absent."""
    path = Path(path)
    if not path.exists():
        return []
    entries = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise AmendmentError(f"{path} line {number} is not JSON ({exc}); run `study prereg verify`") from None
        entries.append(parse_amendment(raw, str(path), number))
    return entries
