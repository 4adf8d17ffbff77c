"""Git-anchored verification: the records of the freeze checked against their committed history.

The chain (``chain.py``) shows an edit that was not made consistent. A forger who changes a frozen
file, rewrites its manifest line, reseals ``freeze.json`` and commits, or edits and reseals a
committed amendment, or deletes a committed ``amendments.jsonl``, leaves a consistent chain; the
history still shows it. Where git is available:

- the working tree's records equal git HEAD's (``amendments.jsonl`` may only have grown), and a
  committed record is never missing;
- the *freeze commit* is the first commit whose ``freeze.json`` is the current freeze (same
  ``frozen_at``); from it on, ``freeze.json`` and ``MANIFEST.sha256`` never changed;
- the commit ``freeze.json`` names (``git_commit``, frozen from a clean tree) holds exactly the
  files its manifest lists;
- every committed version of ``amendments.jsonl`` begins with the one before it (over the whole
  history, a deletion included).

What it cannot catch (see preregistration/README.md): a history rewritten as a whole (a re-freeze
through the tool, or rewritten commits) — only a comparison with the anchor registered
elsewhere (``study prereg show --anchor``) shows that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .files import AMENDMENTS, FREEZE_RECORD, FROZEN_TOPS, MANIFEST
from .gitinfo import blob_sha256, committed_bytes, file_history, head_commit, is_commit, is_shallow, tree_blobs


@dataclass
class History:
    """What the history check found: ``problems`` fail the check, ``notes`` only inform."""

    freeze_commit: str | None = None
    earlier_freezes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def check_history(root: Path, freeze: dict[str, Any] | None, manifest: dict[str, str]) -> History:
    history = History()
    if head_commit(root) is None:
        history.notes.append("not a git checkout (or nothing committed): the records' history was not checked")
        return history
    if is_shallow(root):
        history.notes.append("a shallow clone: the history is checked only as far as it goes "
                             "(`git fetch --unshallow` for all of it)")
    _compare_with_head(root, history.problems)
    if freeze is not None:
        _freeze_history(root, freeze, history)
        _freeze_commit_files(root, freeze, manifest, history.problems)
    _amendments_only_grew(root, history.problems)
    return history


def _compare_with_head(root: Path, problems: list[str]) -> None:
    """Once committed, the records only grow: the manifest and freeze.json stay as committed,
    amendments.jsonl still begins with its committed entries, and none of them is deleted."""
    for rel in (AMENDMENTS, MANIFEST, FREEZE_RECORD):
        committed = committed_bytes(root, rel)
        path = root / rel
        if committed is None:
            continue
        if not path.exists():
            entries = len([line for line in committed.splitlines() if line.strip()])
            what = f"git HEAD holds {entries} amendment(s)" if rel == AMENDMENTS else "git HEAD holds it"
            problems.append(
                f"{rel} is missing, but {what}: the records of the freeze are never deleted; restore it with "
                f"`git checkout HEAD -- {rel}`"
            )
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


def _frozen_at(data: bytes | None) -> Any:
    try:
        record = json.loads(data) if data else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return record.get("frozen_at") if isinstance(record, dict) else None


def _freeze_history(root: Path, freeze: dict[str, Any], history: History) -> None:
    """Find the freeze commit; from it on, freeze.json and the manifest never changed."""
    versions = file_history(root, FREEZE_RECORD)
    first = next((i for i, (_, data) in enumerate(versions) if _frozen_at(data) == freeze.get("frozen_at")), None)
    if first is None:
        history.notes.append(f"{FREEZE_RECORD} is not committed yet: commit the freeze (its history and the "
                             "anchor need the freeze commit)")
        return
    commit, base = versions[first]
    history.freeze_commit = commit
    history.earlier_freezes = [c for c, data in versions[:first] if data is not None]
    for later, data in versions[first + 1:]:
        if data != base:
            history.problems.append(
                f"{FREEZE_RECORD} was rewritten at commit {later[:12]}, after the freeze commit {commit[:12]}: "
                f"the freeze record is never edited (see `git log -p -- {FREEZE_RECORD}`)"
            )
            break
    manifest_base = committed_bytes(root, MANIFEST, commit)
    for later, data in file_history(root, MANIFEST, since=commit):
        if data != manifest_base:
            history.problems.append(
                f"{MANIFEST} was rewritten at commit {later[:12]}, after the freeze commit {commit[:12]}: "
                f"the manifest is never edited; changes go through `study prereg amend` (see `git log -p -- {MANIFEST}`)"
            )
            break


def _freeze_commit_files(root: Path, freeze: dict[str, Any], manifest: dict[str, str], problems: list[str]) -> None:
    """The commit the freeze was made at holds the files its manifest lists (if frozen clean)."""
    named = freeze.get("git_commit")
    if not named:
        return
    commit = is_commit(root, str(named))
    if commit is None:
        problems.append(
            f"{FREEZE_RECORD} says the freeze was made at commit {named}, which this repository does not "
            "have: the history was rewritten, or the freeze comes from another repository"
        )
        return
    skip = set(freeze.get("dirty_paths") or []) if freeze.get("git_dirty") else set()
    blobs = tree_blobs(root, commit, FROZEN_TOPS) or {}
    digests = blob_sha256(root, sorted({blobs[p] for p in manifest if p in blobs}))
    differ = [p for p, h in sorted(manifest.items()) if p not in skip and digests.get(blobs.get(p, "")) != h]
    if differ:
        shown = ", ".join(differ[:5]) + (f" and {len(differ) - 5} more" if len(differ) > 5 else "")
        problems.append(
            f"{MANIFEST} does not describe commit {commit[:12]}, the commit {FREEZE_RECORD} says it froze: "
            f"{shown} differ(s) there; the manifest was rewritten after the freeze"
        )


def _amendments_only_grew(root: Path, problems: list[str]) -> None:
    """Each committed version of amendments.jsonl begins with the one before it."""
    before, before_commit = b"", None
    for commit, data in file_history(root, AMENDMENTS):
        data = data or b""
        if not data.startswith(before):
            entries = len([line for line in before.splitlines() if line.strip()])
            if not data:
                what = f"was deleted at commit {commit[:12]}, although commit {before_commit[:12]} holds {entries} amendment(s)"
            else:
                what = (f"at commit {commit[:12]} does not begin with its version at commit {before_commit[:12]} "
                        f"({entries} amendment(s)): committed entries were edited, removed or reordered")
            problems.append(f"{AMENDMENTS} {what}; amendments are only ever appended (see `git log -p -- {AMENDMENTS}`)")
        before, before_commit = data, commit
