"""Old spellings kept for one release: a positional sessions folder, now ``--sessions DIR``.

``study audit`` (and ``study status``) took the sessions folder as a positional argument; the
shared vocabulary (``study.cli.vocabulary``) names it ``--sessions DIR`` everywhere. The old
form keeps working, hidden from the usage line and the help, and prints one note on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from study.cli.vocabulary import FolderPath, UsageError

NOTE = "note: the folder is now --sessions DIR for this command"


class HiddenArgument(click.Argument):
    """A positional argument left out of the usage line (click has no ``hidden`` for arguments)."""

    hidden = True

    def get_usage_pieces(self, ctx: click.Context) -> list[str]:
        return []


def legacy_folder_argument(name: str = "legacy_folder") -> Any:
    """The old positional sessions folder, hidden; resolve it with :func:`sessions_or_legacy`."""
    return click.argument(name, required=False, cls=HiddenArgument, metavar="",
                          type=FolderPath(path_type=Path, file_okay=False))


def sessions_or_legacy(sessions: Path | None, legacy: Path | None) -> Path | None:
    """``--sessions`` or, with a note on stderr, the old positional folder (``old_spelling``)."""
    return old_spelling(sessions, legacy, NOTE, "the positional folder")


def old_spelling(sessions: Path | None, old: Path | None, note: str, old_name: str) -> Path | None:
    """The one rule for an old spelling of the sessions folder (the positional folder of status
    and audit, ``--out`` of run and run-all): alone, it is used with ``note`` on stderr; given
    with ``--sessions``, both must name the same folder, else a usage error."""
    if old is None:
        return sessions
    click.echo(note, err=True)
    if sessions is not None and Path(sessions) != Path(old):
        raise UsageError(f"the sessions folder is given twice, as --sessions {sessions} and as {old_name} {old}; "
                         "give it once, as --sessions DIR")
    return Path(old)
