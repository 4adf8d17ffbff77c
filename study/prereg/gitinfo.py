"""What git says about the checkout: the commit, whether the tree is dirty, and the history of a
file. Every function returns None (or an empty answer) outside a git checkout or when git fails,
so the callers can say "not checked" instead of failing."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

from .files import FROZEN_TOPS, is_frozen_path


def _git(root: Path, *args: str) -> str | None:
    done = _git_bytes(root, *args)
    return None if done is None else done.decode("utf-8", errors="replace")


def _git_bytes(root: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], input=stdin, capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def head_commit(root: Path) -> str | None:
    """The commit checked out at ``root``, or None outside a git checkout (or before a commit)."""
    out = _git(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if out is None or not out.strip():
        return None
    return out.strip()


def dirty_paths(root: Path, ignore: tuple[str, ...] = ()) -> list[str] | None:
    """Paths with uncommitted changes or untracked (not ignored) files; None outside git.

    Paths are relative to the repository root; those in ``ignore`` are left out.
    """
    out = _git(root, "status", "--porcelain=v1", "--untracked-files=all")
    if out is None:
        return None
    paths = [line[3:] for line in out.splitlines() if len(line) > 3]
    return [p for p in paths if p not in ignore]


def tracked_changes(root: Path) -> bool:
    """True if a tracked file differs from HEAD (what ``git describe --dirty`` calls dirty)."""
    out = _git(root, "status", "--porcelain=v1", "--untracked-files=no")
    return bool(out and out.strip())


def is_shallow(root: Path) -> bool:
    return (_git(root, "rev-parse", "--is-shallow-repository") or "").strip() == "true"


def committed_bytes(root: Path, rel: str, commit: str = "HEAD") -> bytes | None:
    """The content of ``rel`` (relative to ``root``) at ``commit`` (default HEAD), or None if it
    is not there (or ``root`` is not a git checkout)."""
    return _git_bytes(root, "show", f"{commit}:./{rel}")


def is_commit(root: Path, name: str) -> str | None:
    """The full hash of commit ``name`` if this repository has it, else None."""
    out = _git(root, "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
    return out.strip() if out and out.strip() else None


def file_history(root: Path, rel: str, since: str | None = None) -> list[tuple[str, bytes | None]]:
    """Every committed version of ``rel`` up to HEAD (only those after commit ``since`` if given),
    oldest first: ``(commit, content or None if the commit deleted it)``; [] outside git or if
    it was never committed."""
    span = [f"{since}..HEAD"] if since else ["HEAD"]
    out = _git(root, "log", "--reverse", "--format=%H", "--full-history", *span, "--", rel)
    if not out:
        return []
    commits = out.split()
    objects = _objects(root, [f"{commit}:./{rel}" for commit in commits]) or [None] * len(commits)
    return [(commit, found[1] if found is not None and found[0] == "blob" else None)
            for commit, found in zip(commits, objects)]


def git_blob_id(data: bytes) -> str:
    """The id git gives a file with content ``data`` (what ``git hash-object`` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def tree_blobs(root: Path, commit: str, tops: tuple[str, ...]) -> dict[str, str] | None:
    """``path -> blob id`` of every file under ``tops`` at ``commit`` (paths relative to ``root``),
    or None if git cannot list it."""
    out = _git_bytes(root, "ls-tree", "-r", "-z", commit, "--", *tops)
    if out is None:
        return None
    blobs = {}
    for item in out.split(b"\0"):
        if not item:
            continue
        info, _, path = item.partition(b"\t")
        mode, kind, blob = info.decode().split()
        if kind == "blob":
            blobs[path.decode("utf-8", errors="surrogateescape")] = blob
    return blobs


def frozen_blobs(root: Path, commit: str) -> dict[str, str] | None:
    """``path -> blob id`` of every frozen file (``files.is_frozen_path``) at ``commit``, or None
    if git cannot list it."""
    blobs = tree_blobs(root, commit, FROZEN_TOPS)
    return None if blobs is None else {path: blob for path, blob in blobs.items() if is_frozen_path(path)}


def blob_sha256(root: Path, blobs: list[str]) -> dict[str, str]:
    """The sha256 of each git blob's content (``git cat-file --batch``): blob id -> sha256."""
    objects = _objects(root, blobs) or []
    return {blob: hashlib.sha256(found[1]).hexdigest() for blob, found in zip(blobs, objects) if found is not None}


def _objects(root: Path, names: list[str]) -> list[tuple[str, bytes] | None] | None:
    """``(type, content)`` of each object ``names`` names (a blob id, or ``commit:./path``), in
    order, None for a name git has no object for; one ``git cat-file --batch`` for all of them
    (a run's check reads every committed version of the freeze record: one process, not one
    ``git show`` per version). None if git cannot run."""
    if not names:
        return []
    out = _git_bytes(root, "cat-file", "--batch", stdin="".join(name + "\n" for name in names).encode())
    if out is None:
        return None
    objects: list[tuple[str, bytes] | None] = []
    position = 0
    for _name in names:
        end = out.find(b"\n", position)
        if end < 0:
            objects.append(None)
            continue
        header = out[position:end].split(b" ")
        position = end + 1
        if len(header) < 3 or not header[-1].isdigit():     # "<name> missing", "<name> ambiguous"
            objects.append(None)
            continue
        size = int(header[-1])
        objects.append((header[-2].decode(), out[position:position + size]))
        position += size + 1
    return objects
