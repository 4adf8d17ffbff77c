"""A per-session cache of scored sessions, so that a rerun of the tables does not parse, validate
and score every log again.

An entry holds what ``loading.score_or_reason`` returned for one session folder (its record
and score, or its exclusion) and is used only while its key still holds: the folder and the
scanned folder, the log's size, mtime and sha256, the sha256 of meta.json, and the fingerprint
of the code that reads and scores (``code_fingerprint``: the source of those modules and the
Python version). Anything else is a miss, and the session is scored again, so the cache is
never stale; deleting it changes no number, only the time.

The cache lives apart from the sessions (``default_dir``: ``.cache/scores/`` of the project,
gitignored; ``STUDY_CACHE_DIR`` moves it) and is written by the commands that make tables and
figures, never by the audit, which reads every session itself. Entries are pickles of the
package's own types, written atomically; a broken or foreign entry is a miss, never an error.
"""

from __future__ import annotations

import gc
import hashlib
import os
import pickle
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from study.paths import project_root
from study.session_io.folders import EVENTS_NAME, META_NAME, attempts
from study.session_io.safe_files import open_regular

#: Bump to drop every entry written by an older layout.
FORMAT = 1
CACHE_ENV = "STUDY_CACHE_DIR"

#: The modules whose code decides a cached value (their source is part of every key).
_MODULES = ("analysis.scoring", "analysis.loading", "analysis.sopbench_grader", "analysis.evidence",
            "study.escape_routes", "study.session_io.reader", "study.session_io.events",
            "study.session_io.meta", "study.session_io.record", "study.session_io.issues",
            "study.session_io.jsontypes", "study.session_io.vocabulary", "study.session_io.folders",
            "sopbench_tools.dataset", "sopbench_tools.tool_definitions", "sopbench_tools.orders",
            "sopbench_tools.tasks", "study.task_procedure",
            "analysis.score_cache")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """sha256 of the source of every module a cached value depends on, and of the Python version."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    for name in _MODULES:
        __import__(name)
        digest.update(name.encode() + b"\0" + Path(sys.modules[name].__file__).read_bytes())
    return digest.hexdigest()


def default_dir() -> Path:
    """``$STUDY_CACHE_DIR``, else ``.cache/scores/`` of the project."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else project_root() / ".cache" / "scores"


def _regular(path: Path) -> tuple[os.stat_result, str] | None:
    """The stat and sha256 of ``path`` if it is a regular file (the sessions folder is untrusted:
    a FIFO, a device or a link is never opened here, so it cannot block or lead elsewhere; the
    reader then says what is wrong with it). None otherwise."""
    try:
        with open_regular(path) as (fd, st), os.fdopen(fd, "rb", closefd=False) as fh:
            return st, hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:          # missing, a link, or not a regular file (UnsafeFile is an OSError)
        return None


class ScoreCache:
    """The entries under one folder (see the module docstring)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_dir()
        self.hits = self.misses = 0

    def key(self, session: Path, root: Path | None) -> tuple[Any, ...] | None:
        """The key of a session folder now (None: not cacheable, e.g. no log)."""
        log = _regular(Path(session) / EVENTS_NAME)
        if log is None:
            return None     # no log, or not a regular file: scored every time (the reader refuses it)
        meta_path = Path(session) / META_NAME
        meta = _regular(meta_path) if os.path.lexists(meta_path) else (None, None)
        if meta is None:
            return None
        st, sha = log
        return (FORMAT, code_fingerprint(), str(session), str(root), st.st_size, st.st_mtime_ns, sha, meta[1])

    def _file(self, key: tuple[Any, ...]) -> Path:
        name = hashlib.sha256(f"{key[2]}\0{key[3]}".encode()).hexdigest()[:40]
        return self.folder / name[:2] / f"{name}.pickle"

    def get(self, key: tuple[Any, ...] | None) -> Any | None:
        """The value cached under ``key``, or None (a miss)."""
        if key is None:
            return None
        try:
            stored_key, value = pickle.loads(self._file(key).read_bytes())
        except Exception:   # absent, torn or foreign: a miss
            return None
        return value if stored_key == key else None

    def put(self, key: tuple[Any, ...] | None, value: Any) -> None:
        """Store ``value`` under ``key`` (atomically; a cache that cannot be written is skipped)."""
        if key is None:
            return
        path = self._file(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
        except OSError:
            return

    def lookup(self, dirs: list[Path], root: Path | None) -> tuple[list[Any], list[tuple[Any, ...] | None]]:
        """The cached value of each folder (None where it is a miss) and each folder's key now."""
        with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:   # sha256 releases the GIL
            keys = list(pool.map(lambda d: self.key(d, root), dirs))
        with without_gc():
            values = [_fresh(self.get(k), d) for k, d in zip(keys, dirs)]
        found = sum(v is not None for v in values)
        self.hits += found
        self.misses += len(values) - found
        return values, keys


@contextmanager
def without_gc() -> Iterator[None]:
    """No cyclic garbage collection inside: reading a log or an entry makes thousands of objects,
    none of them in a cycle, and the collector's passes over them cost time for nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _fresh(value: Any, session: Path) -> Any:
    """A cached value with what may change without its log changing (earlier attempts) read now."""
    record = getattr(value, "record", None)
    if record is None:
        return value
    now = len(attempts(session))
    return value if record.attempts == now else replace(value, record=replace(record, attempts=now))
