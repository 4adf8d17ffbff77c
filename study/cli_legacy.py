"""Old spellings kept for one release: a positional sessions folder, now ``--sessions DIR``.

``study audit`` (and ``study status``) took the sessions folder as a positional argument; the
shared vocabulary (``study.cli_vocabulary``) names it ``--sessions DIR`` everywhere. The old
form keeps working, hidden from the usage line and the help, and prints one note on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from study.cli_vocabulary import FolderPath, UsageError

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
    """``--sessions`` or, with a note on stderr, the old positional folder; both: a usage error."""
    if legacy is None:
        return sessions
    if sessions is not None:
        raise UsageError(f"the sessions folder is given twice ({legacy} and --sessions {sessions}); "
                         "give it once, as --sessions DIR")
    click.echo(NOTE, err=True)
    return legacy
