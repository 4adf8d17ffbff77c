"""Whether a session's workspace holds a git history of its own (the evidence a family's verdict is
re-derived from: ``study.session_io.verdicts``), read without running git.

A repository borrows another's objects through ``objects/info/alternates`` (and
``http-alternates``), or shares another's folder through ``commondir``; a history read through
either is not the session's. An empty ``alternates`` file borrows nothing (git reads its lines, and
there are none): Claude Code's sandbox leaves exactly such empty files behind in a repository its
commands touched (it binds them read-only so no command can create one), so only a file with a
line in it, a link or anything but a regular file counts.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The files through which a repository's history would be another's.
BORROWING = ("objects/info/alternates", "objects/info/http-alternates", "commondir")
#: At most this much of such a file is read (a forged one may be huge).
READ_CAP = 64 * 1024


def borrowed(dot_git: Path) -> str | None:
    """The first of ``BORROWING`` through which the repository at ``dot_git`` (its ``.git``
    folder) reads another's history (relative to ``dot_git``), or None."""
    for name in BORROWING:
        path = Path(dot_git) / name
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError:
            return name
        if not stat.S_ISREG(st.st_mode):
            return name
        if name == "commondir":
            return name
        try:
            with open(path, "rb") as handle:
                text = handle.read(READ_CAP)
        except OSError:
            return name
        if text.strip():
            return name
    return None
