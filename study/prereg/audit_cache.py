"""What ``study audit`` found for each session, kept under the proofs of what it read, so that a
rerun reads again only the sessions that changed (issue 35: every reading command answers at once;
a 1,000-session study is audited again each time sessions are added).

The audit of one session (``audit.audit_session``) is a function of the files it reads there
(``study.session_io.folders.RECORD_FILES``: events.jsonl, meta.json, the transcript, the
simulator's truth file), of the sessions folder (what is exploratory), of the preregistration
(the chain's records, the runtime record, the orders, the stamps: every file of the
preregistration folder), of the frozen files on disk (the order files it compares: ``verify``
hashes every file of the manifest at every audit, and its statuses and the manifest in effect
are part of the head) and of the code it ran (the source of every module of the project's
packages loaded when the results were kept, found again without importing them). An
entry keeps, under that head, each session's result with the ``lstat`` proofs of its files
(``study.caching``: device, inode, size, mtime, ctime; absent files as absent); a rerun whose head
is the same takes a session's result from it while every proof still holds. An edit of a file,
a copy over it, a touch or a rename changes its ctime (which no user can set), so a changed
session is always read again.

Kept are only results that passed (``ok``) or that the audit does not check (voided, incomplete,
exploratory, development seed); a session whose records fail is read at every audit. A result
is kept only when its files were settled (``RACY_S``) before the audit read them and unchanged
after. What is not kept here: the git history, which ``verify`` reads at every audit (a code
version found in it, a commit, stays found). ``study audit --fresh`` reads every session again
and keeps the new results; deleting the cache changes no verdict, only the time.

Entries live in ``audits/`` of the cache folder (``study.caching.cache_root``), one per sessions
folder, a pickle written atomically; a broken or foreign entry is a miss, never an error.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from pathlib import Path
from typing import Any

from study.caching import all_settled, cache_root, sources_digest, write_atomic
from study.session_io import audited

from .verify import Report

#: Bump to drop every entry written by an older layout.
FORMAT = 1
#: The verdicts a kept result may have: passed, or left out without being checked.
KEPT_VERDICTS = ("ok", "voided", "incomplete", "exploratory", "dev-seed")
#: The project's packages: the source of each of their modules loaded when the results were kept
#: is part of the entry (the audit's code, and everything it reads a session with).
PACKAGES = ("study", "sopbench_tools", "analysis")


def _head(snapshot: audited.Snapshot, report: Report) -> tuple[Any, ...]:
    return (FORMAT, snapshot.root, snapshot.head[2], snapshot.head[3], tuple(report.statuses),
            tuple(sorted(report.effective.items())))


def _loaded() -> tuple[str, ...]:
    return tuple(sorted(name for name in list(sys.modules) if name.split(".")[0] in PACKAGES))


def _entry_file(root: str) -> Path:
    return cache_root() / "audits" / f"{hashlib.sha256(root.encode()).hexdigest()[:40]}.results.pickle"


def kept_results(snapshot: audited.Snapshot, report: Report) -> dict[str, Any]:
    """Session folder -> its kept ``SessionAudit``, for each session of ``snapshot`` whose files'
    proofs are those the kept result was made from, under the same head; empty on any miss."""
    try:
        head, modules, code, results = pickle.loads(_entry_file(snapshot.root).read_bytes())
    except Exception:       # absent, torn or foreign: nothing kept
        return {}
    if head != _head(snapshot, report) or not isinstance(results, dict) or sources_digest(modules) != code:
        return {}
    out = {}
    for folder, states in snapshot.sessions:
        kept = results.get(folder)
        if kept is not None and kept[0] == states:
            out[folder] = kept[1]
    return out


def keep_results(before: audited.Snapshot, after: audited.Snapshot, report: Report, results: list[Any]) -> int:
    """Keep each result of ``results`` (``SessionAudit``) that passed or was not checked, whose
    files were settled when ``before`` was taken and are as they were in ``after`` (taken once the
    audit had read them); returns how many."""
    if after.head != before.head:
        return 0
    states_after = dict(after.sessions)
    by_folder = {str(r.path): r for r in results}
    keep = {}
    for folder, states in before.sessions:
        result = by_folder.get(folder)
        if (result is not None and result.verdict in KEPT_VERDICTS and states_after.get(folder) == states
                and all_settled(states, before.taken_ns)):
            keep[folder] = (states, result)
    modules = _loaded()
    write_atomic(_entry_file(before.root), pickle.dumps((_head(before, report), modules, sources_digest(modules), keep),
                                                        protocol=pickle.HIGHEST_PROTOCOL))
    return len(keep)


__all__ = ["KEPT_VERDICTS", "keep_results", "kept_results"]
