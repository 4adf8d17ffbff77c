"""Compare the tree with the manifest in effect, and the check every run makes first.

The manifest in effect is the freeze (``MANIFEST.sha256``, sealed by ``freeze.json``) with the
amendments of ``amendments.jsonl`` applied in order. ``verify()`` reports every frozen file as
ok, changed, missing or added, and every problem with the records themselves (a manifest edited
after the freeze, an amendment edited, removed or reordered), each naming its file and line.
``check_before_run()`` turns any of these into a ``PreregViolation``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from study.paths import project_root

from .errors import NotFrozen, PreregError, PreregViolation
from .files import AMENDMENTS, FREEZE_RECORD, MANIFEST, PREREG_DIR, hash_tree, parse_manifest, sha256_bytes
from .gitinfo import committed_bytes
from .records import amendment_lines, seal_intact

@dataclass(frozen=True)
class Link:
    """One record of the chain: the freeze or an amendment, when it was made, and its hash."""

    label: str
    time: str
    sha256: str


@dataclass
class Report:
    """The outcome of ``verify()``."""

    root: Path
    freeze: dict[str, Any] | None
    #: The amendment entries that could be read, in file order.
    amendments: list[dict[str, Any]]
    #: The chain's records in order, up to the first break: the freeze, then each amendment.
    links: list[Link]
    #: ``(status, path)`` for every file in the manifest in effect or on disk, sorted by path.
    statuses: list[tuple[str, str]]
    #: What is wrong with the manifest, freeze.json or amendments.jsonl, each naming its file.
    problems: list[str]
    #: The manifest in effect: path -> sha256.
    effective: dict[str, str] = field(default_factory=dict)

    def paths(self, status: str) -> list[str]:
        return [path for s, path in self.statuses if s == status]

    @property
    def chain_intact(self) -> bool:
        return not self.problems

    @property
    def effective_sha256(self) -> str | None:
        """The hash of the last record of an intact chain (what sessions record), else None."""
        return self.links[-1].sha256 if self.chain_intact and self.links else None

    @property
    def ok(self) -> bool:
        return self.chain_intact and all(status == "ok" for status, _ in self.statuses)


def verify(root: Path | None = None) -> Report:
    """Check the frozen files and the chain of records under ``root`` (default: the project).

    Raises ``NotFrozen`` if there is no freeze at all.
    """
    root = Path(root) if root is not None else project_root()
    lines = amendment_lines(root)
    if not (root / MANIFEST).exists() and not (root / FREEZE_RECORD).exists() and not lines:
        raise NotFrozen(
            f"The preregistration in {root / PREREG_DIR} is not frozen: there is no {MANIFEST}. "
            "Freeze it with `study prereg freeze` once the plan is final."
        )
    problems: list[str] = []
    _compare_with_commit(root, problems)
    freeze = _read_freeze(root, problems)
    manifest = _read_manifest(root, freeze, problems)
    links = [Link("the freeze", freeze["frozen_at"], freeze["sha256"])] if freeze and not problems else []
    amendments, effective = _apply_amendments(lines, freeze, manifest, links, problems)
    try:
        on_disk = hash_tree(root)
    except PreregError as exc:
        problems.append(str(exc))
        on_disk = {}
    statuses = []
    for path in sorted(set(effective) | set(on_disk)):
        if path not in on_disk:
            statuses.append(("missing", path))
        elif path not in effective:
            statuses.append(("added", path))
        else:
            statuses.append(("ok" if effective[path] == on_disk[path] else "changed", path))
    return Report(root, freeze, amendments, links, statuses, problems, effective)


def _compare_with_commit(root: Path, problems: list[str]) -> None:
    """Once committed, the records only grow: the manifest and freeze.json stay as committed,
    and amendments.jsonl still begins with its committed entries. This catches an edit that
    was made consistent (a manifest line and freeze.json's hash rewritten together)."""
    for rel in (MANIFEST, FREEZE_RECORD, AMENDMENTS):
        committed = committed_bytes(root, rel)
        path = root / rel
        if committed is None or not path.exists():
            continue
        now = path.read_bytes()
        if rel == AMENDMENTS and not now.startswith(committed):
            problems.append(
                f"{rel} no longer begins with its committed entries (git HEAD): entries are only "
                f"ever appended; see `git diff HEAD -- {rel}`"
            )
        elif rel != AMENDMENTS and now != committed:
            problems.append(
                f"{rel} differs from its committed version (git HEAD): the records of the freeze are "
                f"never edited; see `git diff HEAD -- {rel}` (after `study prereg freeze --refreeze`, "
                "commit the new freeze)"
            )


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
            links.append(Link(label, str(entry.get("time")), head))
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


def violation_message(report: Report) -> str:
    """The message of a refused run: every changed, missing or added file and each problem."""
    lines = ["The preregistration check failed, so nothing was started."]
    for status in ("changed", "missing", "added"):
        for path in report.paths(status):
            lines.append(f"  {status}: {path}")
    for problem in report.problems:
        lines.append(f"  {problem}")
    lines.append(
        "See every file's status with `study prereg verify`. If a change is intended, record it "
        "before running with `study prereg amend --reason \"why\" FILE...`; otherwise restore the "
        "file (e.g. `git checkout -- FILE`)."
    )
    return "\n".join(lines)


def check_before_run(root: Path | None = None) -> str:
    """The check ``study run`` and ``study run-all`` make before anything starts.

    Returns the effective manifest hash (to record in the session), or raises
    ``PreregViolation`` (``NotFrozen`` if there is no freeze) naming every changed, missing or
    added file and every broken record.
    """
    report = verify(root)
    if not report.ok:
        raise PreregViolation(
            violation_message(report),
            changed=report.paths("changed"),
            missing=report.paths("missing"),
            added=report.paths("added"),
            problems=report.problems,
        )
    return report.effective_sha256
