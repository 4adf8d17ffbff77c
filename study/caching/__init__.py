"""What the caches of the reading commands share: where they live, how a file is known unchanged
without reading it, and the fingerprint of the code and packages a cached value was made by.

- ``cache_root()``: ``$STUDY_CACHE_DIR``, else ``.cache/scores/`` of the project (gitignored). The
  score cache's entries are there (``analysis.score_cache``); the output cache of ``study
  tables``/``study predictions`` in its ``tables/`` and the facts of ``study status`` in its
  ``status/``. Deleting it changes no output, only the time.
- A file's *proof*: its device, inode, size, mtime and ctime by ``lstat``. When ``lstat`` gives
  the same proof later, the file is the one that was read: no write, rename or ``utime`` leaves a
  file's ctime as it was (only the kernel sets it). A proof is trusted only when the file was
  last changed at least ``RACY_S`` before it was read (``settled``), so that a write in the same
  clock tick as the reading (git's "racy" case) is never mistaken for no change.
- ``sources_digest``: the sha256 of the source files of named modules, found without importing
  them (a cached answer must not pay for the imports it saves), and of the Python version;
  ``distributions``: the installed ``.dist-info`` folders beside named packages (their versions).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from study.paths import project_root

if TYPE_CHECKING:
    from collections.abc import Iterable

#: A file changed less than this long before it was read keeps no proof (it is read again).
RACY_S = 2.0
CACHE_ENV = "STUDY_CACHE_DIR"

#: What identifies a file's content without reading it: (device, inode, size, mtime, ctime).
Proof = tuple[int, int, int, int, int]
#: The state of a file that is not there (a session folder without a transcript, say).
ABSENT = "absent"
#: What ``state_of`` gives: a regular file's proof, ABSENT, or None (anything else: never kept).
State = Proof | str | None


def cache_root() -> Path:
    """``$STUDY_CACHE_DIR``, else ``.cache/scores/`` of the project."""
    env = os.environ.get(CACHE_ENV)
    return Path(env) if env else project_root() / ".cache" / "scores"


def proof_of(st: os.stat_result) -> Proof:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def state_of(path: str | Path) -> State:
    """The state of ``path`` now, by ``lstat``: its proof if it is a regular file, ``ABSENT`` if
    nothing is there, else None (a link, a folder, a special file, an unreadable place)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return ABSENT
    except OSError:
        return None
    return proof_of(st) if stat.S_ISREG(st.st_mode) else None


def all_settled(states: "Iterable[State]", read_at_ns: int) -> bool:
    """Every one of ``states`` is ``ABSENT`` or the proof of a file settled before ``read_at_ns``
    (``settled``): what a cache may keep a value read from those files under."""
    return all(s is not None and (s == ABSENT or settled(s, read_at_ns)) for s in states)


def unchanged(path: str | Path, proof: Proof | None) -> bool:
    """Whether ``path`` is still, by ``lstat``, the regular file ``proof`` describes."""
    if proof is None:
        return False
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and proof_of(st) == proof


def settled(proof: Proof, read_at_ns: int, racy_s: float | None = None) -> bool:
    """The file of ``proof`` was last changed at least ``racy_s`` (default ``RACY_S``) before
    ``read_at_ns`` (``time.time_ns()`` just before it was read)."""
    racy = RACY_S if racy_s is None else racy_s
    return max(proof[3], proof[4]) <= read_at_ns - racy * 1e9


def sources_digest(modules: tuple[str, ...]) -> str:
    """sha256 of the Python version and of the source of each module in ``modules`` (found by
    ``importlib.util.find_spec``, which imports only the packages above it; a module that cannot
    be found counts as such)."""
    digest = hashlib.sha256(sys.version.encode())
    for name in modules:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        try:
            source = Path(origin).read_bytes() if origin else b"(none)"
        except OSError:
            source = b"(unreadable)"
        digest.update(name.encode() + b"\0" + source + b"\0")
    return digest.hexdigest()


def distributions(packages: tuple[str, ...]) -> tuple[str, ...]:
    """The ``.dist-info`` folders (name and version) in the folders the top-level ``packages``
    are installed in, found without importing them: any install or upgrade there changes it."""
    places = set()
    for name in packages:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin:
            places.add(os.path.dirname(os.path.dirname(spec.origin)))
    names: list[str] = []
    for place in sorted(places):
        try:
            names += [f"{place}/{n}" for n in os.listdir(place) if n.endswith(".dist-info")]
        except OSError:
            continue
    return tuple(sorted(names))


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (a reader sees the old file
    or the new one); a cache that cannot be written is skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        return
