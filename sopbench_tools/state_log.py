"""The append-only JSON-lines files that hold a session's records and decisions (``records.jsonl``,
``decisions.jsonl``), and the error for a state folder that cannot be used."""

from __future__ import annotations

import json
import os
from pathlib import Path

from study.errors import StudyError


class ToolStateError(StudyError, RuntimeError):
    """The state folder cannot be used (another batch's state, or a damaged file)."""


class _JsonlLog:
    """An append-only JSON-lines file; each append is flushed and fsynced before it returns."""

    def __init__(self, path: Path):
        self.path = path

    def load(self) -> list[dict]:
        """The entries written so far. A torn last line (a write cut by a crash, never
        confirmed to the agent) is cut off; damage anywhere else stops with an error."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        if tail:
            with open(self.path, "r+b") as f:
                f.truncate(len(raw) - len(tail))
        entries = []
        for number, line in enumerate(complete, start=1):
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                raise ToolStateError(
                    f"{self.path}, line {number}, is not valid JSON; the tool state is damaged. "
                    "Repair or remove that line, or start with a fresh --state-dir."
                ) from None
        return entries

    def append(self, entry: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())
