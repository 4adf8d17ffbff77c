"""Read the chain of records: ``freeze.json``, ``MANIFEST.sha256`` and ``amendments.jsonl``.

``read_chain(root)`` checks each record's own hash, the links between them (``prev_sha256``,
``n``, dates) and applies each amendment to the freeze's manifest, giving the manifest in
effect after every record (``Link.files``). Each problem names its file (and line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from .files import FREEZE_RECORD, MANIFEST, AMENDMENTS, parse_manifest, sha256_bytes
from .records import amendment_lines, seal_intact


@dataclass(frozen=True)
class Link:
    """One record of the chain: the freeze or an amendment, when it was made, its hash, and the
    manifest in effect once it was made (path -> sha256)."""

    label: str
    time: str
    sha256: str
    files: dict[str, str] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class Chain:
    freeze: dict[str, Any] | None
    #: the freeze's own manifest (MANIFEST.sha256), path -> sha256
    manifest: dict[str, str]
    amendments: list[dict[str, Any]]
    links: list[Link]
    effective: dict[str, str]
    problems: list[str]


def read_chain(root: Path) -> Chain:
    problems: list[str] = []
    freeze = _read_freeze(root, problems)
    manifest = _read_manifest(root, freeze, problems)
    links = [Link("the freeze", freeze["frozen_at"], freeze["sha256"], dict(manifest))] if freeze and not problems else []
    amendments, effective = _apply_amendments(amendment_lines(root), freeze, manifest, links, problems)
    return Chain(freeze, manifest, amendments, links, effective, problems)


def _read_freeze(root: Path, problems: list[str]) -> dict[str, Any] | None:
    path = root / FREEZE_RECORD
    if not path.exists():
        problems.append(f"{FREEZE_RECORD} is missing: the freeze cannot be checked (restore it from git)")
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        problems.append(f"{FREEZE_RECORD} is not valid JSON ({exc}): restore it from git")
        return None
    if not isinstance(record, dict) or not {"frozen_at", "manifest_sha256", "sha256"} <= set(record):
        problems.append(f"{FREEZE_RECORD} lacks frozen_at, manifest_sha256 or sha256: restore it from git")
        return None
    if not seal_intact(record):
        problems.append(f"{FREEZE_RECORD} was edited after the freeze: its content no longer matches its sha256")
    return record


def _read_manifest(root: Path, freeze: dict[str, Any] | None, problems: list[str]) -> dict[str, str]:
    path = root / MANIFEST
    if not path.exists():
        problems.append(f"{MANIFEST} is missing: restore it from git")
        return {}
    data = path.read_bytes()
    digest = sha256_bytes(data)
    if freeze is not None and freeze.get("manifest_sha256") != digest:
        problems.append(
            f"{MANIFEST} was edited after the freeze: its sha256 is {digest}, "
            f"but {FREEZE_RECORD} records {freeze.get('manifest_sha256')}"
        )
    hashes, line_problems = parse_manifest(data.decode("utf-8", errors="replace"))
    problems.extend(line_problems)
    return hashes


def _apply_amendments(lines, freeze, manifest, links, problems):
    """Check the chain line by line and apply each amendment to a copy of the manifest."""
    effective = dict(manifest)
    amendments = []
    head = freeze.get("sha256") if freeze else None
    previous_time = freeze.get("frozen_at") if freeze else None
    for number, line in enumerate(lines, start=1):
        where = f"{AMENDMENTS} line {number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{where} is not valid JSON ({exc}): the entry was edited")
            head = None
            continue
        if not isinstance(entry, dict):
            problems.append(f"{where} is not a JSON object: the entry was edited")
            head = None
            continue
        amendments.append(entry)
        before = len(problems)
        label = f"amendment {entry.get('n')}"
        if not seal_intact(entry):
            problems.append(f"{where} ({label}) was edited: its content no longer matches its sha256")
        if entry.get("n") != number:
            problems.append(
                f"{where} holds {label}, expected amendment {number}: "
                "an entry was removed or the entries were reordered"
            )
        if entry.get("prev_sha256") != head:
            problems.append(
                f"{where} ({label}) does not follow the record before it: its prev_sha256 is "
                f"{entry.get('prev_sha256')}, that record's sha256 is {head}; an earlier entry "
                "was edited, removed or reordered"
            )
        if not _not_before(entry.get("time"), previous_time):
            problems.append(
                f"{where} ({label}) is dated {entry.get('time')}, before the record it follows "
                f"({previous_time}): the entry was edited"
            )
        previous_time = entry.get("time")
        for change in _file_changes(entry, where, problems):
            path, old, new = change["path"], change.get("old_sha256"), change.get("new_sha256")
            if effective.get(path) != old:
                problems.append(
                    f"{where} ({label}) says {path} had sha256 {old} before it, "
                    f"but the manifest in effect had {effective.get(path)}"
                )
            if new is None:
                effective.pop(path, None)
            else:
                effective[path] = new
        head = entry.get("sha256")
        if len(problems) == before and len(links) == number:
            links.append(Link(label, str(entry.get("time")), head, dict(effective)))
    return amendments, effective


def _not_before(time: object, previous: object) -> bool:
    """True if ISO time ``time`` is not earlier than ``previous`` (or there is nothing to compare)."""
    try:
        return previous is None or datetime.fromisoformat(str(time)) >= datetime.fromisoformat(str(previous))
    except ValueError:
        return False


def _file_changes(entry: dict[str, Any], where: str, problems: list[str]) -> list[dict[str, Any]]:
    files = entry.get("files")
    if not isinstance(files, list) or not all(isinstance(f, dict) and isinstance(f.get("path"), str) for f in files):
        problems.append(f"{where}: 'files' is not a list of {{path, old_sha256, new_sha256}}: the entry was edited")
        return []
    return files
