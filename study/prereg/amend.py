"""``study prereg amend``: record a change to frozen files before any run uses it.

Edit the file, then amend: the entry records each file's hash in the manifest in effect (old)
and on disk now (new), the reason, the time and the hash of the record before it. Until the
amendment is recorded, ``study run`` refuses; afterwards it runs under the new effective
manifest. Entries are appended, never edited.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from study.paths import project_root
from study.protocol.amendments import unsafe
from study.session_io.writer import utc_now

from .amend_checks import check_amended_file
from .errors import PreregError
from .files import (AMENDMENTS, FREEZE_RECORD, FROZEN_CODE_DIRS, FROZEN_CODE_FILES, MANIFEST, STAMPS_DIR,
                    is_frozen_path, sha256_file)
from .gitinfo import head_commit
from .records import append_amendment, seal
from .verify import verify


def amend(files: Iterable[str | Path], reason: str, root: Path | None = None) -> dict[str, Any]:
    """Append an amendment covering ``files`` (paths relative to the working directory or to
    the project root, or absolute); return the entry written. Raises ``PreregError`` if the
    reason is empty or not one line of printable text, a file is not frozen, unchanged or does
    not load as the study reads it, or the chain is already broken."""
    root = Path(root) if root is not None else project_root()
    reason = check_reason(reason)
    paths = list(dict.fromkeys(_relative(root, f) for f in files))
    if not paths:
        raise PreregError("Name the files the amendment covers: study prereg amend --reason \"…\" FILE...")
    report = verify(root)
    if not report.chain_intact:
        raise PreregError(
            "The manifest or the amendment chain is broken, so no amendment can follow it:\n  "
            + "\n  ".join(report.problems)
            + "\nRestore the damaged record (e.g. from git) and try again."
        )
    changes = []
    for rel in paths:
        if not is_frozen_path(rel):
            raise PreregError(
                f"{rel} is not a frozen file: the freeze covers the files under preregistration/ "
                f"(except {MANIFEST}, {FREEZE_RECORD}, {AMENDMENTS} and the stamps in {STAMPS_DIR}/) and the "
                "Python sources under "
                + ", ".join([f"{d}/" for d in FROZEN_CODE_DIRS] + list(FROZEN_CODE_FILES)) + "."
            )
        old = report.effective.get(rel)
        new = sha256_file(root / rel) if (root / rel).is_file() else None
        if old == new:
            if new is None:
                raise PreregError(f"{rel} is neither on disk nor in the manifest in effect: nothing to amend.")
            raise PreregError(
                f"{rel} is unchanged since the manifest in effect: nothing to amend. Edit the file "
                "first, then record the amendment before any run uses it."
            )
        problem = check_amended_file(root, rel)
        if problem is not None:
            raise PreregError(f"{problem}; fix the file, then amend again (nothing was recorded).")
        changes.append({"path": rel, "old_sha256": old, "new_sha256": new})
    entry = seal({
        "n": len(report.amendments) + 1,
        "time": utc_now(),
        "reason": reason,
        "files": changes,
        "git_commit": head_commit(root),
        "prev_sha256": report.effective_sha256,
    })
    append_amendment(root, entry)
    return entry


#: The longest reason an amendment records (it is listed under the tables).
MAX_REASON = 1000


def check_reason(reason: str | None) -> str:
    """The reason, stripped: one line of printable text (no newline, tab, terminal escape or other
    control or format character, which would forge or hide lines where the reason is listed)."""
    reason = (reason or "").strip()
    if not reason:
        raise PreregError('An amendment needs a reason: --reason "what changed and why".')
    odd = sorted({c for c in reason if unsafe(c)})
    if odd:
        shown = ", ".join(f"U+{ord(c):04X}" for c in odd)
        raise PreregError(f"An amendment's reason is one line of printable text; this one holds {shown} "
                          "(a newline, tab, escape or other control character): write it on one line.")
    if len(reason) > MAX_REASON:
        raise PreregError(f"An amendment's reason has at most {MAX_REASON} characters (this one has "
                          f"{len(reason)}): say what changed and why in a sentence or two.")
    return reason


def _relative(root: Path, name: str | Path) -> str:
    """A file argument as a root-relative POSIX path.

    A relative name is tried against the working directory, then against the root; the first
    that exists wins (for a deleted file, the first inside the root).
    """
    given = Path(name)
    root = root.resolve()
    candidates = [given] if given.is_absolute() else [Path.cwd() / given, root / given]
    # resolve the folder only, so a deleted file still names itself
    inside = [c.parent.resolve() / c.name for c in candidates]
    inside = [c for c in inside if c.is_relative_to(root)]
    if not inside:
        raise PreregError(f"{name} is not inside the project root {root}.")
    full = next((c for c in inside if c.exists()), inside[0])
    if full.is_dir():
        raise PreregError(f"{name} is a folder: name the files one by one (`study prereg verify` lists them).")
    return full.relative_to(root).as_posix()
