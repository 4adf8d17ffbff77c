"""The chain of records: the freeze record (``freeze.json``) and the amendments after it.

Each record is a JSON object that carries its own hash in the field ``sha256``: the sha256 of the
record's *canonical form*, i.e. the object without ``sha256``, serialised with sorted keys, no
spaces and UTF-8 (``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``).
Every amendment names the hash of the record before it in ``prev_sha256`` (the first names the
freeze record), so editing, removing or reordering an entry breaks the chain at that entry. The
hash of the last record is the *effective manifest hash* that every session records.

``amendments.jsonl`` holds one amendment a line, appended and never rewritten. Fields:
``n`` (1, 2, …), ``time`` (UTC ISO 8601), ``reason``, ``files`` (a list of ``{"path",
"old_sha256", "new_sha256"}``, a hash being null for a file that did not or no longer exists),
``git_commit`` (HEAD when recorded, or null), ``prev_sha256``, ``sha256``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from study.paths import project_root
from study.protocol.amendments import Amendment, read_amendments_file

from .files import AMENDMENTS, FREEZE_RECORD, sha256_bytes


def canonical_bytes(record: dict[str, Any]) -> bytes:
    """The bytes a record's ``sha256`` is computed over (the record without ``sha256``)."""
    body = {key: value for key, value in record.items() if key != "sha256"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def seal(record: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``record`` with its own hash in ``sha256``."""
    return {**record, "sha256": sha256_bytes(canonical_bytes(record))}


def seal_intact(record: dict[str, Any]) -> bool:
    """True if the record's ``sha256`` still matches its content."""
    return record.get("sha256") == sha256_bytes(canonical_bytes(record))


def write_freeze_record(root: Path, record: dict[str, Any]) -> None:
    """Write ``freeze.json`` atomically (a crash leaves the old file or the new one)."""
    path = root / FREEZE_RECORD
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def amendment_lines(root: Path) -> list[str]:
    """The lines of ``amendments.jsonl`` (blank lines dropped), or [] if there is none."""
    path = root / AMENDMENTS
    if not path.exists():
        return []
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def read_amendments(root: Path | None = None) -> list[Amendment]:
    """The amendments as recorded, in file order, as typed records; ``root`` defaults to the
    project root.

    Raises ``AmendmentError`` (a ``ValueError``) naming the line if a line is not an amendment;
    whether the chain is intact is checked by ``study.prereg.verify``.
    """
    root = Path(root) if root is not None else project_root()
    return read_amendments_file(root / AMENDMENTS)


def append_amendment(root: Path, entry: dict[str, Any]) -> None:
    """Append one sealed entry as one line, flushed and synced to disk."""
    path = root / AMENDMENTS
    line = json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n"
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(line)
        fh.flush()
        os.fsync(fh.fileno())
