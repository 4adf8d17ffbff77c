"""A per-session cache of scored sessions, so that a rerun of the tables does not parse, validate
and score every log again.

An entry holds what ``loading.score_or_reason`` returned for one session folder (its record
and score, or its exclusion) and is used only while its key still holds: the folder and the
scanned folder, the log's size, mtime and sha256, the sha256 of meta.json, the sha256 of the two
files beside them that the record rules read (the transcript and the simulator's truth file, the
witnesses of ``simulated``: ``study.session_io.witnesses``; None when absent), and the fingerprint
of the code that reads and scores (``code_fingerprint``: the source of those modules and the
Python version). Anything else is a miss, and the session is scored again, so the cache is
never stale; deleting it changes no number, only the time. So the verdict of the ``simulated``
rule, which reads the transcript, is remembered with the score: a warm lookup reads no transcript.

Hashing every log of a large corpus is most of a warm rerun (1,000 sessions are about 400 MB),
so an entry also keeps the proof of the files it hashed: their device, inode, size, mtime and
ctime as ``fstat`` gave them while they were hashed. When ``lstat`` gives the same now, the files
are the ones hashed and their sha256 is the entry's, without reading them: no write, rename or
``utime`` leaves a file's ctime as it was (only the kernel sets it). A proof is kept only when
both files were last changed at least ``RACY_S`` before they were hashed, so that a write in the
same clock tick as the hashing (git's "racy" case) is never trusted and is hashed every time.

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
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from study.caching import CACHE_ENV, Proof, cache_root  # noqa: F401  (CACHE_ENV: re-exported)
from study.caching import all_settled
from study.caching import proof_of as _proof
from study.caching import unchanged as _unchanged
from study.session_io.folders import EVENTS_NAME, META_NAME, RECORD_FILES, attempts, evidence_states
from study.session_io.safe_files import open_regular

#: Bump to drop every entry written by an older layout.
FORMAT = 3
#: The files beside the log and meta.json that a session's record rules read (the witnesses of
#: ``simulated``): their sha256 is part of every key (None: absent).
BESIDE = tuple(name for name in RECORD_FILES if name not in (EVENTS_NAME, META_NAME))
#: A file changed less than this long before it was hashed is hashed again at every lookup.
RACY_S = 2.0
#: The fingerprint in the keys of sessions read for their records alone, never scored
#: (``ScoreCache.note_folders``): no value of this cache is stored under them.
RECORDS_ONLY = "records only"

#: The modules whose code decides a cached value (their source is part of every key).
_MODULES = ("analysis.scoring", "analysis.clauses", "analysis.loading", "analysis.sopbench_grader",
            "analysis.evidence",
            "study.procedure.escape_routes", "study.session_io.reader", "study.session_io.meta_rules", "study.session_io.events",
            "study.session_io.typed_events", "study.session_io.meta", "study.session_io.record", "study.session_io.issues",
            "study.session_io.jsontypes", "study.session_io.vocabulary", "study.session_io.folders",
            "sopbench_tools.dataset", "sopbench_tools.tool_definitions", "sopbench_tools.orders",
            "sopbench_tools.tasks", "study.procedure.core", "study.protocol.preregistered",
            "study.session_io.values", "study.session_io.witnesses", "analysis.score_cache")


def code_fingerprint() -> str:
    """sha256 of the source of every module a cached value depends on, of the Python version and
    the versions of the JSON decoders (orjson, msgspec), and
    of what defines the tasks the scorer reads (``task_files``, read at every call: a lookup
    computes it once), for the project in use."""
    digest = hashlib.sha256(_modules_digest().encode())
    for path in task_files():
        digest.update(str(path).encode() + b"\0" + (path.read_bytes() if path.is_file() else b"(none)"))
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _modules_digest() -> str:
    import msgspec
    import orjson

    digest = hashlib.sha256(f"{FORMAT} {sys.version} {orjson.__version__} {msgspec.__version__}".encode())
    for name in _MODULES:
        __import__(name)
        digest.update(name.encode() + b"\0" + Path(sys.modules[name].__file__).read_bytes())
    return digest.hexdigest()


def task_files() -> list[Path]:
    """The files a session's procedure and gold labels come from, beside the modules: the task
    package's code, every vendored manifest (each lists its data files' sha256, which the loader
    checks, so it stands for them), and the project's ``task.yaml`` with the manifest it names."""
    import sopbench_tools.tasks as tasks
    from study.paths import prereg_dir
    from sopbench_tools.tasks import PROJECT_TASK_FILE, project_task_source

    files = sorted(Path(tasks.__file__).parent.glob("*.py")) + sorted(tasks.MANIFEST_DIR.glob("*.yaml"))
    files.append(prereg_dir() / PROJECT_TASK_FILE)
    source = project_task_source()
    if isinstance(source, Path):
        files.append(source)
    return files


def default_dir() -> Path:
    """``$STUDY_CACHE_DIR``, else ``.cache/scores/`` of the project (``study.caching.cache_root``)."""
    return cache_root()


def _regular(path: Path) -> tuple[os.stat_result, str, Proof | None] | None:
    """The stat, sha256 and proof of ``path`` if it is a regular file (the sessions folder is
    untrusted: a FIFO, a device or a link is never opened here, so it cannot block or lead
    elsewhere; the reader then says what is wrong with it). None otherwise. The proof is None
    when the file changed less than ``RACY_S`` ago (it is hashed again next time)."""
    try:
        with open_regular(path) as (fd, st), os.fdopen(fd, "rb", closefd=False) as fh:
            now = time.time_ns()
            digest = hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:          # missing, a link, or not a regular file (UnsafeFile is an OSError)
        return None
    settled = max(st.st_ctime_ns, st.st_mtime_ns) <= now - RACY_S * 1e9
    return st, digest, _proof(st) if settled else None


class Key(NamedTuple):
    """A session folder's key now, and the proofs that let the next lookup skip the hashing."""

    key: tuple[Any, ...]
    log_proof: Proof | None
    meta_proof: Proof | None       # also None when the folder has no meta.json
    beside_proofs: tuple[Proof | None, ...] = ()    # of the ``BESIDE`` files (None: absent, or unsettled)


class ScoreCache:
    """The entries under one folder (see the module docstring)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_dir()
        self.hits = self.misses = 0
        #: each folder of the last ``lookup`` and its key then (None: not cacheable), in its order:
        #: what the output cache (``analysis.output_cache``) keeps beside the tables made from them
        self.looked_up: list[tuple[str, Key | None]] = []

    def key(self, session: Path, root: Path | None) -> tuple[Any, ...] | None:
        """The key of a session folder now (None: not cacheable, e.g. no log)."""
        found = self._key(session, root, code_fingerprint())
        return None if found is None else found.key

    def _key(self, session: Path, root: Path | None, fingerprint: str) -> Key | None:
        return folder_key(session, root, fingerprint)

    def _proven(self, session: Path, root: Path | None, stored: Key, fingerprint: str) -> Key | None:
        return proven_key(session, root, stored, fingerprint)

    def _file(self, key: tuple[Any, ...]) -> Path:
        name = hashlib.sha256(f"{key[2]}\0{key[3]}".encode()).hexdigest()[:40]
        return self.folder / name[:2] / f"{name}.pickle"

    def _read(self, session: Path | str, root: Path | str | None) -> tuple[Key, Any] | None:
        """The stored (key, value) of a session folder, whatever its freshness; None if none."""
        try:
            stored, value = pickle.loads(self._file((None, None, str(session), str(root))).read_bytes())
        except Exception:   # absent, torn or foreign: a miss
            return None
        return (stored, value) if isinstance(stored, Key) else None

    def get(self, key: tuple[Any, ...] | None) -> Any | None:
        """The value cached under ``key``, or None (a miss)."""
        if key is None:
            return None
        found = self._read(key[2], key[3])     # str(root) as the key holds it
        return found[1] if found is not None and found[0].key == key else None

    def put(self, key: Key | None, value: Any) -> None:
        """Store ``value`` under ``key`` (``lookup``'s; atomically; a cache that cannot be written
        is skipped)."""
        if key is None:
            return
        path = self._file(key.key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(pickle.dumps((key, value), protocol=pickle.HIGHEST_PROTOCOL))
            os.replace(tmp, path)
        except OSError:
            return

    def note_folders(self, dirs: list[Path], root: Path | None) -> None:
        """Take each folder's key now, as ``lookup`` does, without reading or scoring anything, and
        keep them as ``looked_up``: for an output made from these folders' records alone (another
        study's tables), which the output cache keeps under them. The keys carry ``RECORDS_ONLY``
        for the code's fingerprint: such an output's code is checked by the output cache itself
        (every source module it loaded), so the scorer is not imported for a fingerprint."""
        with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
            keys = list(pool.map(lambda d: self._key(d, root, RECORDS_ONLY), dirs))
        self.looked_up = [(str(d), k) for d, k in zip(dirs, keys)]

    def lookup(self, dirs: list[Path], root: Path | None) -> tuple[list[Any], list[Key | None]]:
        """The cached value of each folder (None where it is a miss) and each folder's key now:
        proven from the stored proofs where they still hold, otherwise hashed (in threads:
        sha256 releases the GIL)."""
        fingerprint = code_fingerprint()
        values: list[Any] = [None] * len(dirs)
        keys: list[Key | None] = [None] * len(dirs)
        with without_gc():
            stored = [self._read(d, root) for d in dirs]
        for i, (d, entry) in enumerate(zip(dirs, stored)):
            if entry is not None and (proven := self._proven(d, root, entry[0], fingerprint)) is not None:
                keys[i], values[i] = proven, entry[1]
        unproven = [i for i, k in enumerate(keys) if k is None]
        if unproven:
            with ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
                for i, k in zip(unproven, pool.map(lambda i: self._key(dirs[i], root, fingerprint), unproven)):
                    keys[i] = k
                    entry = stored[i]
                    if k is not None and entry is not None and entry[0].key == k.key:
                        values[i] = entry[1]
        values = [_fresh(v, d) for v, d in zip(values, dirs)]
        self.looked_up = [(str(d), k) for d, k in zip(dirs, keys)]
        found = sum(v is not None for v in values)
        self.hits += found
        self.misses += len(values) - found
        return values, keys


def folder_key(session: Path | str, root: Path | str | None, fingerprint: str) -> Key | None:
    """A session folder's key now, hashing its log and meta.json (None: not cacheable, e.g. no log)."""
    log = _regular(Path(session) / EVENTS_NAME)
    if log is None:
        return None     # no log, or not a regular file: scored every time (the reader refuses it)
    meta_path = Path(session) / META_NAME
    meta = _regular(meta_path) if os.path.lexists(meta_path) else (None, None, None)
    if meta is None:
        return None
    beside = []
    for name in BESIDE:     # a transcript or truth file that is not a regular file: not cacheable
        path = Path(session) / name
        found = _regular(path) if os.path.lexists(path) else (None, None, None)
        if found is None:
            return None
        beside.append(found)
    evidence: tuple[Any, ...] = ()
    if fingerprint == RECORDS_ONLY:
        # another study's session is read for its records alone, and its verdict is re-derived from
        # every other file of its folder (study.session_io.verdicts): their states are in the key, so
        # an edit of the evidence is a miss; a link, a special file or a file still being written
        # (changed less than RACY_S ago) makes the folder not cacheable
        states = evidence_states(session)
        if not all_settled(states, time.time_ns()):
            return None
        evidence = (states,)
    st, sha, proof = log
    key = (FORMAT, fingerprint, str(session), str(root), st.st_size, st.st_mtime_ns, sha, meta[1],
           *(b[1] for b in beside), *evidence)
    return Key(key, proof, meta[2], tuple(b[2] for b in beside))


def proven_key(session: Path | str, root: Path | str | None, stored: Key, fingerprint: str) -> Key | None:
    """``stored`` if it is the folder's key now, shown without hashing (module docstring)."""
    key = stored.key
    folder = str(session)
    if key[:4] != (FORMAT, fingerprint, folder, str(root)):
        return None
    if not _unchanged(os.path.join(folder, EVENTS_NAME), stored.log_proof):
        return None
    for name, sha, proof in zip(BESIDE, key[8:], stored.beside_proofs):
        path = os.path.join(folder, name)
        if (os.path.lexists(path) if sha is None else not _unchanged(path, proof)):
            return None
    if len(stored.beside_proofs) != len(BESIDE):
        return None
    if fingerprint == RECORDS_ONLY and key[8 + len(BESIDE):] != (evidence_states(folder),):
        return None     # the evidence a verdict is re-derived from changed (folder_key)
    meta_path = os.path.join(folder, META_NAME)
    if key[7] is None:
        return stored if not os.path.lexists(meta_path) else None
    return stored if _unchanged(meta_path, stored.meta_proof) else None


def still_holds(stored: Key) -> Key | None:
    """The key of ``stored``'s session folder now, if its log and meta.json are still the ones
    ``stored`` names (their size, mtime and sha256): proven by ``lstat`` where the proofs still
    hold, else hashed again (then with the new proofs). None when they changed. Only the files:
    the code fingerprint inside the key is the caller's to check."""
    folder, root, fingerprint = stored.key[2], stored.key[3], stored.key[1]
    if proven_key(folder, root, stored, fingerprint) is not None:
        return stored
    now = folder_key(folder, root, fingerprint)
    return now if now is not None and now.key == stored.key else None


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
