"""What ``study audit`` passed, remembered, so that ``study tables`` can say whether its numbers
are audited (docs/contracts.md, "What the audit's cross-checks catch").

Every command applies the record rules of this package; what only the audit checks (the log
against the CLI's transcript, the frozen runtime and code version, the batch against the frozen
order, the preregistration's history and stamps) is not known to a table until the audit has
passed for exactly the sessions it shows. So ``study audit``, when it passes (exit 0), keeps one
entry per sessions folder: each session folder it found, the proof of each file the audit read
there (``folders.RECORD_FILES``: events.jsonl, meta.json, the transcript, the simulator's truth
file; ``study.caching``'s lstat proofs: device, inode, size, mtime, ctime; absent files as absent)
and the audit's verdict for it (``ok``, or why it was left out), under a head: the proof of every
file of the preregistration and the source of the audit's code. The proofs are taken before the
audit reads anything and kept only if they still hold after it and every file was settled
(``RACY_S``) when it began, so no change made during the audit is remembered as audited.

``unaudited(root, include_exploratory)`` is what a table says: None when the entry holds for the
folder now (the same sessions, every file unchanged, the same preregistration and audit code)
and every session the table counts was one the audit checked (``--include-exploratory`` adds
sessions the audit never checks), else the one line to print. It reads one small file and
``lstat``s the files: no log is read. The entries live in ``audits/`` of the cache folder
(``study.caching.cache_root``); a broken or foreign entry is "not audited", never an error.
Deleting the cache only makes the tables say "unaudited" until the audit is run again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import time
from pathlib import Path

from study.caching import State, all_settled, cache_root, state_of, write_atomic
from study.families.registry import role_modules
from study.paths import prereg_dir, sessions_dir, shell_word

from .folders import find_sessions, record_states

#: Bump to drop every entry written by an older layout.
FORMAT = 1
#: The code that decides an audit's verdict (its source is part of every entry; the task families'
#: reading parts hold the record rules it applies to their logs).
AUDIT_MODULES = ("study.prereg.audit", "study.prereg.record_checks", "study.prereg.session_checks",
                 "study.prereg.verify", "study.prereg.chain", "study.prereg.history", "study.prereg.runtime",
                 "study.prereg.stamps", "study.session_io.reader", "study.session_io.meta_rules", "study.session_io.record",
                 "study.session_io.values", "study.session_io.witnesses", "study.session_io.audited",
                 "study.families.registry", *role_modules("reading"),
                 "study.session_io.verdicts", "study.session_io.folders", "study.session_io.safe_files")
#: Where the families' evidence parts and what they re-derive with live (every source there is part
#: of every entry: ``verdicts`` asks a family's part for a session's verdict).
FAMILIES_DIR = "families"
#: The verdicts of sessions the analysis counts only with ``--include-exploratory`` (the audit never checks them).
NOT_CHECKED = ("exploratory", "dev-seed")


def _prereg_state() -> tuple[tuple[str, State], ...]:
    """Every file of the preregistration folder and its proof (the chain, the manifest, the
    runtime, the orders, the stamps: what the audit checked the sessions against)."""
    root = prereg_dir()
    out = []
    for folder, dirs, names in os.walk(root):
        dirs.sort()
        out += [(os.path.join(folder, n), state_of(os.path.join(folder, n))) for n in sorted(names)]
    return tuple(out)


def _audit_code() -> str:
    """sha256 of the Python version and the source of ``AUDIT_MODULES``, found beside this package
    without importing them (``study.prereg`` imports much that a table does not need)."""
    study_dir = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(sys.version.encode())
    paths = [(name, study_dir.joinpath(*name.split(".")[1:]).with_suffix(".py")) for name in AUDIT_MODULES]
    paths += [(str(p), p) for p in sorted((study_dir / FAMILIES_DIR).rglob("*.py"))]
    for name, path in paths:
        try:
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            digest.update(name.encode() + b"\0(none)\0")
    return digest.hexdigest()


class Snapshot:
    """The sessions under a folder and the proofs of their files, taken before an audit reads them."""

    def __init__(self, root: Path):
        self.root = str(root)
        self.taken_ns = time.time_ns()
        self.head = (FORMAT, self.root, _audit_code(), _prereg_state())
        self.sessions = tuple((str(folder), record_states(folder)) for folder in find_sessions(Path(root)))


def snapshot(root: Path) -> Snapshot:
    """Take the proofs of what an audit of ``root`` is about to read (``study audit`` calls it first)."""
    return Snapshot(root)


def _entry_file(root: str) -> Path:
    return cache_root() / "audits" / f"{hashlib.sha256(root.encode()).hexdigest()[:40]}.pickle"


def remember(before: Snapshot, verdicts: dict[str, str], after: Snapshot | None = None) -> bool:
    """Keep that the audit of ``before.root`` passed with ``verdicts`` (session folder -> ``ok`` or
    its exclusion), if nothing it read changed since ``before`` (``after``: taken once it had read
    everything; default: now) and every file was settled then; returns whether it was kept."""
    now = after if after is not None else Snapshot(Path(before.root))
    if now.head != before.head or now.sessions != before.sessions:
        return False
    states = [s for _folder, files in before.sessions for s in files] + [s for _p, s in before.head[3]]
    if not all_settled(states, before.taken_ns):
        return False
    write_atomic(_entry_file(before.root), pickle.dumps(
        (before.head, before.sessions, {str(k): str(v) for k, v in verdicts.items()}), protocol=pickle.HIGHEST_PROTOCOL))
    return True


def forget(root: Path) -> None:
    """Drop what was kept for ``root`` (an audit that did not pass)."""
    try:
        _entry_file(str(root)).unlink()
    except OSError:
        pass


def audited(root: Path, include_exploratory: bool = False) -> bool:
    """Whether ``study audit`` passed for exactly the sessions under ``root`` as they are now, and
    checked every session a table counts (see the module docstring)."""
    try:
        head, sessions, verdicts = pickle.loads(_entry_file(str(root)).read_bytes())
    except Exception:       # absent, torn or foreign: not audited
        return False
    now = Snapshot(Path(root))
    if head != now.head or sessions != now.sessions:
        return False
    if not any(v == "ok" for v in verdicts.values()):
        return False
    return not (include_exploratory and any(v in NOT_CHECKED for v in verdicts.values()))


def unaudited(root: Path, include_exploratory: bool = False) -> str | None:
    """The one line a table prints at the end of its terminal output when its numbers are not
    audited (None when they are)."""
    if audited(root, include_exploratory):
        return None
    given = "" if Path(root) == sessions_dir() else f" --sessions {shell_word(root)}"
    return (f"note: these numbers are unaudited until `study audit{given}` passes for exactly these sessions "
            "(it checks each log against its transcript, the frozen runtime and code; exploratory sessions "
            "are never audited)")


__all__ = ["AUDIT_MODULES", "Snapshot", "audited", "forget", "remember", "snapshot", "unaudited"]
