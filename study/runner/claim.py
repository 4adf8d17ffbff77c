"""One runner per session folder: the claim.

Creating (or rerunning) a session claims its folder first: the runner opens the folder's
``runner.claim`` file (created with ``O_EXCL`` if absent) and takes an exclusive ``flock`` on it,
without waiting, and holds it while the session runs; it writes its identity into the file (host,
pid, the pid's start time, when). Only then does it look at what the folder holds, so "the folder
already holds a session" is decided by the one runner holding the claim: a second runner started
at the same moment is refused (``SessionClaimed``, naming the holder) or, if the first has
already finished, finds its session (``SessionExists``), whichever process wins. Two runners
never write into one folder.

The lock is released by the kernel when its holder dies, however it dies, so the claim of a
killed runner is stale and taken over by the next runner. The file is removed when the claim is
released; a runner that locked a file which was meanwhile removed or replaced (its inode is no
longer the one at the path) tries again. On a filesystem without ``flock`` (some network or
FUSE filesystems; NFSv4 and local filesystems have it) the claim falls back to the ``O_EXCL``
file alone and its recorded identity: a claim of a dead runner on this host (pid gone, or reused
with another start time) is stale and taken over; a claim from another host is refused with its
path, to be removed by hand once that runner is known to be gone. (Without locks, two runners
that break the same stale claim at the same moment can both succeed; with locks they cannot.)

Whether a ``running`` session still runs is decided the same way (``session_status``, read by
``study status`` and ``run-all``): where ``flock`` works, its claim's lock is the judge wherever
its runner ran (a node that crashed leaves a claim whose lock is free: the session is
``unfinished``, rerun by ``--rerun-voided``); no claim file at all means no runner holds it;
only without locks does the recorded identity decide (``meta.runner_gone``). Looking at the lock
takes it for an instant, so a runner claiming the folder at that moment tries again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

from study.errors import StudyError
from study.session_io.meta import SessionMeta, effective_status, runner_gone, runner_identity
from study.session_io.vocabulary import SessionStatus
from study.session_io.writer import utc_now


CLAIM_NAME = "runner.claim"
_NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)
#: Tries, and the pause between them, before a held lock refuses a claim (a status may be looking).
_BUSY_TRIES, _BUSY_PAUSE_S = 5, 0.05


class SessionExists(StudyError, RuntimeError):
    """The session folder already holds a session."""


class SessionClaimed(SessionExists):
    """Another runner holds the session folder's claim; ``holder`` is what its claim records."""

    def __init__(self, message: str, holder: dict[str, Any] | None = None):
        super().__init__(message)
        self.holder = holder or {}

    def __reduce__(self) -> tuple:   # across processes (a run-all worker's result) with the holder
        return (type(self), (str(self), self.holder))

    @property
    def held_by(self) -> str:
        """``held by pid 4242 on host node-17`` (or ``held by another runner``)."""
        if not self.holder:
            return "held by another runner"
        return f"held by pid {self.holder.get('pid')} on host {self.holder.get('host')}"


def _read(fd: int) -> dict[str, Any]:
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        holder = json.loads(os.read(fd, 65536).decode("utf-8", "replace") or "{}")
    except json.JSONDecodeError:
        return {}
    return holder if isinstance(holder, dict) else {}


def _describe(holder: dict[str, Any]) -> str:
    if not holder:
        return "another runner"
    return f"the runner pid {holder.get('pid')} on {holder.get('host')} (since {holder.get('claimed')})"


class Claim:
    """The held claim of one session folder (a context manager; ``release()`` ends it)."""

    def __init__(self, session_dir: Path, fd: int):
        self.session_dir = session_dir
        self.path = session_dir / CLAIM_NAME
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            if _same_file(self._fd, self.path):
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)  # releases the lock
        self._fd = None

    def __enter__(self) -> "Claim":
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (mine.st_dev, mine.st_ino)


def claim_session(session_dir: Path, *, attempts: int = 20) -> Claim:
    """Claim ``session_dir`` (created if absent) for this runner, or raise ``SessionClaimed``."""
    session_dir = Path(session_dir)
    session_dir.mkdir(parents=True, exist_ok=True)
    path = session_dir / CLAIM_NAME
    for _ in range(attempts):
        try:
            fd, created = os.open(path, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o644), True
        except FileExistsError:
            try:
                fd, created = os.open(path, os.O_RDWR), False
            except FileNotFoundError:
                continue  # released in between: try to create it again
        try:
            _lock_soon(fd)
            locks = True
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise SessionClaimed(f"{session_dir} is being run by {_describe(holder)}; "
                                 "wait for it to end (study status shows it) or stop that runner", holder) from None
        except OSError as exc:
            if exc.errno not in _NO_LOCKS:
                os.close(fd)
                raise
            locks = False
        if not _same_file(fd, path):
            os.close(fd)  # the claim we locked was released and removed meanwhile
            continue
        if not created and not locks:
            holder = _read(fd)
            os.close(fd)
            if not runner_gone(holder):   # on another host it cannot be checked: it may still run
                raise SessionClaimed(f"{session_dir} is claimed by {_describe(holder)} (this filesystem has no "
                                     f"locks); if that runner is gone, remove {path} and run again", holder)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)  # a dead runner's claim: remove it, then create ours with O_EXCL
            continue
        identity = {**runner_identity(), "claimed": utc_now()}
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, (json.dumps(identity) + "\n").encode("utf-8"))
        os.fsync(fd)
        return Claim(session_dir, fd)
    raise SessionClaimed(f"{session_dir}: could not claim the folder after {attempts} attempts "
                         "(other runners keep claiming it); run one runner per session")


def _lock_soon(fd: int) -> None:
    """Lock ``fd`` exclusively, trying a few times: a ``study status`` looking at the lock holds
    it for an instant (``lock_free``). BlockingIOError when another runner holds it."""
    for attempt in range(_BUSY_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if attempt == _BUSY_TRIES - 1:
                raise
            time.sleep(_BUSY_PAUSE_S)


def lock_free(session_dir: Path) -> bool | None:
    """Whether no runner holds the folder's claim: True when there is no claim file or its lock
    is free, False when a runner holds it, None when that cannot be told (a filesystem without
    locks; a claim that is not a regular file, which no runner makes)."""
    path = Path(session_dir) / CLAIM_NAME
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return True
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        except OSError as exc:
            if exc.errno in _NO_LOCKS:
                return None
            raise
        return True
    finally:
        os.close(fd)   # releases the shared lock at once


def session_status(session_dir: Path, meta: SessionMeta | None) -> SessionStatus:
    """The status to show for a session folder: meta.json's, except for a ``running`` one: where
    locks work, ``unfinished`` when no runner holds its claim (its runner is gone, on whichever
    host it ran) and ``running`` while one does; elsewhere ``effective_status`` (the recorded
    runner's pid, on this host)."""
    if meta is not None and meta.status == SessionStatus.RUNNING:
        free = lock_free(session_dir)
        if free is not None:   # the lock can tell: it decides, whatever the recorded identity says
            return SessionStatus.UNFINISHED if free else SessionStatus.RUNNING
    return effective_status(meta)
