"""A cache of what ``study tables``, ``study predictions`` and ``study figures`` print and write, so
that a rerun whose inputs have not changed gives the same bytes without scoring, comparing,
evaluating or drawing anything, and without importing the statistics stack (polars, numpy, scipy)
or matplotlib.

An entry is one command's output (``Output``: the lines it printed on stderr, the text of every
table file, the exclusion list) made under one head (``head``: the command, its options, the
sessions folder, the preregistration folder, the ``--plan`` file, the Python version and the
installed distributions, by the names of their ``.dist-info`` folders). It is used only while
everything it was made from still holds:

- the sessions: the same session folders are found (``study.session_io.folders``), and each
  one's log and meta.json are still those of its key in the score cache (``analysis.score_cache``:
  the log's size, mtime and sha256, the sha256 of meta.json), shown by the score cache's proofs
  (device, inode, size, mtime and ctime by ``lstat``) where they hold, else hashed again;
- the files: every file of the preregistration folder (plan, predictions, conditions, models,
  amendments, the task) and the ``--plan`` file, the files the score cache keys the task
  definitions on (``score_cache.task_files``), and the source of every module of ``analysis``,
  ``study`` and ``sopbench_tools`` that was loaded when the entry was made: each with the same
  sha256 (shown by its proof where it holds, else hashed again), and each folder among them
  (the preregistration's, the task manifests') still listing the same names.

Anything else is a miss, and the command computes its output as it always did. An entry is
written only when no file it names changed since ``RACY_S`` before the command began, so a
change made while the tables were being computed is never stored as their input; a session
folder's key is taken before it is scored (the score cache's own rule), so a log written during
the computation is hashed again next time. Deleting the cache changes no byte, only the time.

Entries live in ``tables/`` inside the score cache's folder (``score_cache.default_dir``), as
pickles of plain tuples and strings, written atomically; a broken or foreign entry is a miss,
never an error. ``study figures``' entry holds the bytes of each image file it wrote (PNG and PDF,
which matplotlib writes without a date, so the same inputs draw the same bytes) under their
absolute paths; a hit writes them again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from study.caching import distributions, write_atomic
from study.session_io.folders import find_sessions

from . import score_cache
from .score_cache import Key, Proof, ScoreCache, _regular, _unchanged, default_dir, proven_key, still_holds

#: Bump to drop every entry written by an older layout.
FORMAT = 2
#: The project's packages: the source of each of their modules loaded when an entry is made is
#: part of the entry.
PACKAGES = ("analysis", "study", "sopbench_tools")
#: Distributions whose folder's ``.dist-info`` names are part of every head (what a table is
#: computed with besides the project's code; an upgrade of any package installed beside them
#: changes the head too).
DISTRIBUTIONS = ("polars", "numpy", "scipy", "msgspec", "orjson", "yaml", "click", "matplotlib")


@dataclass(frozen=True)
class Output:
    """What a command printed and wrote: its stderr lines in order; each table file's name and
    text, in order (printed one after the other without ``--out``); the exclusion list files
    (written beside the tables with ``--out``)."""

    notes: tuple[str, ...]
    files: tuple[tuple[str, str], ...]
    exclusions: tuple[tuple[str, str], ...]
    #: ``study figures``: each image file written (its absolute path) and its bytes
    blobs: tuple[tuple[str, bytes], ...] = ()


#: A file an entry depends on: its path, its sha256 and its proof (None: hashed at every lookup).
Checked = tuple[str, str, Proof | None]


@dataclass(frozen=True)
class Entry:
    head: tuple[Any, ...]
    sessions: tuple[Key, ...]                       # each session folder's key, in find_sessions' order
    files: tuple[Checked, ...]
    listings: tuple[tuple[str, tuple[str, ...] | None], ...]   # (folder, the names it held; None: absent)
    output: Output


def head(command: str, options: tuple[Any, ...], root: Path, prereg: Path, plan: Path | None) -> tuple[Any, ...]:
    """What an entry is made under (everything but the files and the sessions, which are checked
    one by one): the command and its options, the folders it reads, the Python version and the
    installed distributions."""
    return (FORMAT, command, options, str(root), str(prereg), None if plan is None else str(Path(plan).resolve()),
            sys.version, distributions(DISTRIBUTIONS))


class OutputCache:
    """The entries under one folder (see the module docstring)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_dir() / "tables"
        self.hits = self.misses = 0

    def _file(self, head_: tuple[Any, ...]) -> Path:
        return self.folder / f"{hashlib.sha256(repr(head_).encode()).hexdigest()[:40]}.entry"

    def get(self, head_: tuple[Any, ...], root: Path) -> Output | None:
        """The output stored under ``head_`` if everything it was made from still holds; else None."""
        found = self._check(head_, root)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        return found

    def _check(self, head_: tuple[Any, ...], root: Path) -> Output | None:
        try:
            entry = pickle.loads(self._file(head_).read_bytes())
        except Exception:       # absent, torn or foreign: a miss
            return None
        if not isinstance(entry, Entry) or entry.head != head_:
            return None
        for folder, names in entry.listings:
            if _listing(folder) != names:
                return None
        if [str(d) for d in find_sessions(root)] != [k.key[2] for k in entry.sessions]:
            return None
        sessions = _still(entry.sessions, _proven_session, still_holds)
        if sessions is None:
            return None
        files = _still(entry.files, lambda f: _unchanged(f[0], f[2]), _rehashed)
        if files is None:
            return None
        if sessions != entry.sessions or files != entry.files:     # hashed again: keep the new proofs
            self._write(replace(entry, sessions=sessions, files=files))
        return entry.output

    def put(self, head_: tuple[Any, ...], scores: ScoreCache, prereg: Path, plan: Path | None, output: Output,
            started: float) -> None:
        """Store ``output`` under ``head_``, with the session keys of the score cache's last lookup
        (the corpus the output was made from) and the files it depends on; nothing is stored when
        a session was not cacheable or a file changed since ``RACY_S`` before ``started`` (the
        command's start, ``time.time()``)."""
        sessions = [k for _d, k in scores.looked_up]
        if any(k is None for k in sessions):
            return
        paths, listings = _inputs(prereg, plan)
        files = []
        for path in paths:
            found = _regular(Path(path))
            if found is None:
                return
            st, sha, _proof = found
            if max(st.st_mtime_ns, st.st_ctime_ns) >= (started - score_cache.RACY_S) * 1e9:
                return      # changed while (or just before) the output was made: never trusted
            files.append((path, sha, _proof))
        self._write(Entry(head_, tuple(sessions), tuple(files), tuple(listings), output))

    def _write(self, entry: Entry) -> None:
        write_atomic(self._file(entry.head), pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL))


def _proven_session(key: Key) -> bool:
    """The session folder's log and meta.json are, by ``lstat``, the files ``key`` was made of."""
    return proven_key(key.key[2], key.key[3], key, key.key[1]) is not None


def _rehashed(checked: Checked) -> Checked | None:
    """``checked`` with today's proof if the file still has its sha256; None if it changed."""
    found = _regular(Path(checked[0]))
    if found is None or found[1] != checked[1]:
        return None
    return checked[0], checked[1], found[2]


def _still(items: tuple[Any, ...], proven, again) -> tuple[Any, ...] | None:
    """``items`` as they are now: each proven one as it is, the others through ``again`` (which
    hashes; in threads, as sha256 releases the GIL); None if any of them changed."""
    out = list(items)
    unproven = [i for i, item in enumerate(items) if not proven(item)]
    if len(unproven) > 1:
        with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
            now = list(pool.map(lambda i: again(items[i]), unproven))
    else:
        now = [again(items[i]) for i in unproven]
    for i, item in zip(unproven, now):
        if item is None:
            return None
        out[i] = item
    return tuple(out)


def _listing(folder: str) -> tuple[str, ...] | None:
    try:
        return tuple(sorted(os.listdir(folder)))
    except OSError:
        return None


def _inputs(prereg: Path, plan: Path | None) -> tuple[list[str], list[tuple[str, tuple[str, ...]]]]:
    """The files an output depends on besides the sessions, and the folders whose names decide
    which files those are (module docstring)."""
    from .score_cache import task_files

    files: set[str] = set()
    listings: dict[str, tuple[str, ...] | None] = {str(prereg): None}     # None: no such folder
    for folder, dirs, names in os.walk(prereg):
        dirs.sort()
        listings[folder] = _listing(folder)
        files.update(os.path.join(folder, n) for n in names)
    if plan is not None:
        files.add(str(Path(plan).resolve()))
    for path in task_files():
        if path.is_file():
            files.add(str(path))
        listings.setdefault(str(path.parent), _listing(str(path.parent)))
    files.update(_loaded_sources())
    return sorted(files), sorted(listings.items())


def _loaded_sources() -> set[str]:
    """The source file of every module of the project's packages loaded in this process."""
    roots = []
    for name in PACKAGES:
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            roots.append(os.path.dirname(module.__file__) + os.sep)
    found = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py") and path.startswith(tuple(roots)):
            found.add(path)
    return found

