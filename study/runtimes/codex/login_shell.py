"""Codex CLI with a shell of the work's own: a private password database naming it.

Codex CLI (0.169.0) runs the agent's commands with the user's shell from the password database
(``getpwuid``: codex-rs ``core/src/shell.rs``); it ignores ``$SHELL``. A work whose commands run
elsewhere (``Work.command_shell``: a container of its own) therefore needs the CLI to see a
password database whose entry for the user names that shell. :func:`prefix` gives a command prefix
that runs the CLI in a mount namespace of its own (``unshare --mount``, propagation private) with a
copy of ``/etc/passwd`` bind-mounted over it, the user's entry naming the shell: the machine's
``/etc/passwd`` is unchanged and nothing else sees the copy. It execs, so the CLI keeps the pid
(and the process group) the launcher gives it. It needs root (or CAP_SYS_ADMIN) and util-linux's
``unshare``: :func:`problem` says so in one line where either is missing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def problem() -> str | None:
    """None when a private password database can be given to Codex here; else one line."""
    if shutil.which("unshare") is None:
        return ("Codex CLI takes its shell from the password database, and giving it the work's shell needs "
                "util-linux's unshare: install it (apt-get install util-linux)")
    if os.geteuid() != 0:
        return ("Codex CLI takes its shell from the password database, and giving it the work's shell needs a mount "
                "namespace of its own: run the session as root (or with CAP_SYS_ADMIN), or run it on Claude Code")
    return None


def passwd_with_shell(shell: Path, folder: Path) -> Path:
    """Write ``folder/passwd``: the machine's password database with this user's shell ``shell``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    uid = str(os.getuid())
    lines = []
    for line in Path("/etc/passwd").read_text().splitlines():
        fields = line.split(":")
        if len(fields) == 7 and fields[2] == uid:
            fields[6] = str(shell)
        lines.append(":".join(fields))
    passwd = folder / "passwd"
    passwd.write_text("\n".join(lines) + "\n")
    return passwd


def prefix(shell: Path, folder: Path) -> list[str]:
    """The command prefix that runs a program with ``shell`` as the user's login shell (see the
    module docstring); the copy of the password database is written into ``folder``."""
    passwd = passwd_with_shell(shell, folder)
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            'mount --bind "$0" /etc/passwd && exec "$@"', str(passwd)]
