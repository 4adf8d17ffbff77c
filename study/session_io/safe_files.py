"""Opening a session's files safely: the sessions folder is untrusted input.

A session folder may hold anything a writer put there: a symbolic link to ``/etc/passwd`` or
``/dev/zero``, a FIFO (which blocks a reader forever), a file of NUL bytes left by a crash, a
line of gigabytes. Every reader of session files (the log and meta readers, the viewer) opens
them through ``read_capped``, which:

- resolves links and refuses a file whose resolved path lies outside ``within`` (the session
  folder; the runner's own transcript link points inside it, so it stays readable);
- opens with ``O_NONBLOCK`` and checks the opened file with ``fstat``: only a regular file is
  read, so a FIFO, a device or a socket never blocks and is never read;
- refuses a file larger than its cap (``max_bytes``), and reads at most that much even if the
  file grows meanwhile.

A refusal is ``UnsafeFile`` (an ``OSError`` whose ``strerror`` says why), which the readers
report as a broken record (``issues.Rule.FILE``); a missing file stays ``FileNotFoundError``.
``long_line`` finds a line over the per-line cap for the line-oriented readers.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

#: Caps per file: a 200-account FSM session's log is about 2 MB, its transcript about 17 MB.
LOG_CAP = 256 * 2**20
META_CAP = 4 * 2**20
TRANSCRIPT_CAP = 512 * 2**20
#: Cap per line of a log or transcript (one event, one transcript record).
LINE_CAP = 16 * 2**20
#: Caps of a family's evidence (``verdicts``): one file a scorer reads (a benchmark's run record, a
#: ledger, a report), and a folder it reads (a working folder with its git history: bytes, entries).
EVIDENCE_CAP = 64 * 2**20
TREE_CAP = 4 * 2**30
TREE_ENTRIES_CAP = 200_000

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


class UnsafeFile(OSError):
    """A session file that is not read: not a regular file, outside its folder, or too large."""

    def __init__(self, path: Path, why: str):
        super().__init__(errno.EPERM, why, str(path))
        self.why = why

    def __str__(self) -> str:
        return f"{Path(self.filename).name} {self.why}"


def _kind(mode: int) -> str:
    return next((word for test, word in _KINDS if test(mode)), "not a regular file")


def read_capped(path: Path, *, within: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, whose resolved path must lie inside ``within``
    and whose size must not pass ``max_bytes``; ``UnsafeFile`` otherwise (never blocks)."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except OSError:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(path)) from None
    if path.parent == Path(within) and not stat.S_ISLNK(st.st_mode):
        # a file of the folder itself that is no link lies inside it wherever the folder's own
        # path leads: nothing to resolve (resolving costs a system call per part of the path)
        real = path
    else:
        base = Path(os.path.realpath(within))
        real = Path(os.path.realpath(path))
        if real != base and base not in real.parents:
            raise UnsafeFile(path, f"is a link to {real}, outside the session folder; only files inside it are read")
    with open_regular(real, shown=path) as (fd, st):
        if st.st_size > max_bytes:
            raise UnsafeFile(path, f"is {st.st_size:,} bytes, over the cap of {max_bytes:,} bytes for this file")
        chunks, left = [], max_bytes + 1
        # the first read asks for the size fstat gave (and one byte more): a buffer of that size,
        # not of a fixed chunk, which for a log of a few hundred KB costs more than the read
        want = st.st_size + 1
        while left > 0:
            chunk = os.read(fd, min(left, want))
            want = 2**20
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise UnsafeFile(path, f"grew past the cap of {max_bytes:,} bytes for this file while it was read")
        return data


@contextlib.contextmanager
def open_regular(path: Path, *, shown: Path | None = None) -> Iterator[tuple[int, os.stat_result]]:
    """The descriptor and ``fstat`` of the regular file ``path``, opened without blocking and
    without following a link in its last part; ``UnsafeFile`` (named as ``shown``) if it is
    anything else. The descriptor is closed when the block ends."""
    shown = Path(path if shown is None else shown)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:     # a link (or the last part was swapped for one since it was resolved)
            raise UnsafeFile(shown, "changed into a link while it was opened") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(shown, f"is {_kind(st.st_mode)}, not a regular file; only regular files are read")
        yield fd, st
    finally:
        os.close(fd)


def check_tree(folder: Path, *, within: Path, max_bytes: int = TREE_CAP, max_entries: int = TREE_ENTRIES_CAP) -> None:
    """Check a folder of evidence (a run's working folder) before anything reads in it: ``folder`` itself a
    folder and no link; below it only folders, regular files and links that resolve to a regular
    file or folder inside ``within`` (the session folder); at most ``max_entries`` entries and
    ``max_bytes`` bytes of regular files. ``UnsafeFile`` names the first entry that is not (a FIFO
    would block a reader, a link to ``/dev/zero`` would never end, a link outside reads another
    place's files); a missing folder stays ``FileNotFoundError``."""
    folder = Path(folder)
    try:
        st = os.lstat(folder)
    except OSError:
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(folder)) from None
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFile(folder, f"is {_kind(st.st_mode) if not stat.S_ISLNK(st.st_mode) else 'a link'}, not a folder")
    base = Path(os.path.realpath(within))
    entries, total = 0, 0
    for where, dirs, names in os.walk(folder):
        for name in dirs + names:
            entries += 1
            if entries > max_entries:
                raise UnsafeFile(folder, f"holds more than {max_entries:,} entries, over the cap for evidence")
            path = os.path.join(where, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                real = Path(os.path.realpath(path))
                if real != base and base not in real.parents:
                    raise UnsafeFile(Path(path), f"is a link to {real}, outside the session folder; only files inside it are read")
                try:
                    mode = os.stat(path).st_mode
                except OSError:
                    continue     # a dangling link inside the folder reads as a missing file
                if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                    raise UnsafeFile(Path(path), f"is a link to {_kind(mode)}; only regular files are read")
                continue
            if stat.S_ISDIR(mode):
                continue
            if not stat.S_ISREG(mode):
                raise UnsafeFile(Path(path), f"is {_kind(mode)}, not a regular file; only regular files are read")
            total += os.lstat(path).st_size
            if total > max_bytes:
                raise UnsafeFile(folder, f"holds more than {max_bytes:,} bytes, over the cap for evidence")


def long_line(data: bytes, cap: int = LINE_CAP) -> tuple[int, int] | None:
    """(line number from 1, length) of the first line of ``data`` longer than ``cap``, or None."""
    if len(data) <= cap:
        return None
    start, number = 0, 1
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if end - start > cap:
            return number, end - start
        start, number = end + 1, number + 1
    return None
