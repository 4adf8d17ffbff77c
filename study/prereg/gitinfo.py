"""What git says about the checkout: the commit and whether the tree is dirty."""

from __future__ import annotations

import subprocess
from pathlib import Path


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60, check=False
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


def committed_bytes(root: Path, rel: str) -> bytes | None:
    """The content of ``rel`` (relative to ``root``) in the HEAD commit, or None if it is not
    committed (or ``root`` is not a git checkout)."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "show", f"HEAD:./{rel}"], capture_output=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None
