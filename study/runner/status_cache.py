"""What ``study status`` read from each session's log, kept between runs, so that a rerun reads
no log of a session that has not changed.

A session whose runner is not running it (it ended, or its runner is gone) changes no more: the
facts its row takes from its records (``status.LogFacts``: identity, recorded status, voided,
cost, decisions, duration, the problems of its records, the API errors retried) are kept under
the proofs of the files its record rules read (``study.session_io.folders.RECORD_FILES``: its
events.jsonl and meta.json, and the transcript and truth file that witness ``simulated``;
``study.caching``: device, inode, size, mtime and ctime by ``lstat``; a file absent then must be
absent now) and used while they all still hold. What
may change without them is read every time: the claim's lock (a session that meta.json says is
running), the earlier attempts and the size on disk. A file changed less than
``study.caching.RACY_S`` before it was read (or while it was read) keeps no entry, so a write in
the same moment is read again next time.

A session that a runner is running is not read from here: its progress (``LogProgress``) is kept
instead, with how far its log was read, and the next status reads only the lines added since.

Each entry also names the source of the modules that read the records (``MODULES``: the task
families' ``events`` and ``reading`` parts among them, whose words a family session's row holds)
and the installed msgspec/orjson: other code is a miss. The entries of one sessions folder are one file
in ``status/`` of the cache folder (``study.caching.cache_root``), a pickle written atomically;
a broken or foreign file is empty, never an error. Deleting it changes no row, only the time.
"""

from __future__ import annotations

import hashlib
import pickle
import time
from pathlib import Path
from typing import Any

from study.caching import State, all_settled, cache_root, distributions, sources_digest, write_atomic
from study.families.registry import role_modules
from study.session_io.folders import record_states

#: Bump to drop every entry written by an older layout.
FORMAT = 3
#: The modules whose code decides a kept value (their source is part of every entry).
MODULES = ("study.runner.status", "study.runner.status_cache", "study.runner.progress", "study.runner.claim",
           "study.session_io.reader", "study.session_io.meta_rules", "study.session_io.record", "study.session_io.meta",
           "study.session_io.events",
           "study.session_io.typed_events", "study.session_io.issues", "study.session_io.log_lines",
           "study.session_io.jsontypes", "study.session_io.vocabulary", "study.session_io.safe_files",
           "study.session_io.folders", "study.session_io.values", "study.session_io.witnesses",
           "sopbench_tools.tool_definitions", "sopbench_tools.tasks",
           "study.protocol.cost_text", "study.transcripts.outcomes", "study.session_io.outcome_fields",
           "study.families.registry", "study.families.units", *role_modules("events"), *role_modules("reading"))
#: The state of a folder's record files (``RECORD_FILES``): each a proof, ABSENT, or None (not a
#: regular file: never kept).
Files = tuple[State, ...]


class StatusCache:
    """The kept facts of the sessions under one sessions folder (see the module docstring)."""

    def __init__(self, root: Path, folder: Path | None = None) -> None:
        self.root = str(root)
        place = Path(folder) if folder is not None else cache_root() / "status"
        self.path = place / f"{hashlib.sha256(self.root.encode()).hexdigest()[:40]}.pickle"
        self.head = (FORMAT, self.root, sources_digest(MODULES), distributions(("msgspec", "orjson")))
        self.facts: dict[str, tuple[Files, Any]] = {}
        self.progress: dict[str, Any] = {}
        self.seen: set[str] = set()
        self.changed = False
        try:
            head, facts, progress = pickle.loads(self.path.read_bytes())
            if head == self.head:
                self.facts, self.progress = facts, progress
        except Exception:       # absent, torn or foreign: empty
            pass

    def get(self, folder: Path) -> Any | None:
        """The facts kept for ``folder``, if its files are still the ones they were read from."""
        key = str(folder)
        self.seen.add(key)
        found = self.facts.get(key)
        if found is None:
            return None
        files, facts = found
        return facts if record_states(key) == files else None

    def put(self, folder: Path, before: Files, read_at_ns: int, facts: Any) -> None:
        """Keep ``facts``, read from ``folder`` whose files were ``before`` just before it was read
        at ``read_at_ns``: only when they are still so now and were settled then."""
        key = str(folder)
        self.seen.add(key)
        if record_states(key) != before or not all_settled(before, read_at_ns):
            return
        self.facts[key] = (before, facts)
        self.progress.pop(key, None)
        self.changed = True

    def progress_of(self, folder: Path) -> Any | None:
        """The progress kept for a running session (read on from where it stopped)."""
        key = str(folder)
        self.seen.add(key)
        return self.progress.get(key)

    def keep_progress(self, folder: Path, progress: Any) -> None:
        key = str(folder)
        self.progress[key] = progress
        self.facts.pop(key, None)
        self.changed = True

    def save(self) -> None:
        """Write the entries of the sessions seen in this scan (the others are dropped)."""
        facts = {k: v for k, v in self.facts.items() if k in self.seen}
        progress = {k: v for k, v in self.progress.items() if k in self.seen}
        if not self.changed and len(facts) == len(self.facts) and len(progress) == len(self.progress):
            return
        write_atomic(self.path, pickle.dumps((self.head, facts, progress), protocol=pickle.HIGHEST_PROTOCOL))


def now_ns() -> int:
    """The time a read starts, as ``put`` compares it with the files' times."""
    return time.time_ns()
