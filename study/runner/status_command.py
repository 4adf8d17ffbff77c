"""``study status``: every session's status under a sessions folder.

The command lives apart from ``study run`` and ``study run-all`` (``cli.py``) so that it imports
what it reads with (``status``, ``claim``, ``progress``, ``matrix_plan``) and nothing of the
session runner or the agent runtimes; it keeps what it read between runs (``status_cache``).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from study.cli.legacy import legacy_folder_argument, sessions_or_legacy
from study.cli.vocabulary import NothingToShow, UsageError, examples, sessions_option
from study.paths import sessions_folder as resolve_sessions

from .matrix_plan import not_started
from .status import format_not_started, format_table, scan


@click.command(epilog=examples(
    "study status",
    "study status --sessions /shared/sessions",
    "study status --sessions sessions/exploratory --json"))
@sessions_option(exists=True, help="The sessions folder, or one session's folder [default: sessions/ of the project].")
@legacy_folder_argument()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per session instead of the table.")
def status(sessions: Path | None, legacy_folder: Path | None, as_json: bool) -> None:
    """Show every session's status under the sessions folder, unfinished ones included: decided/N,
    cost (a simulated session's priced as the model the simulator stands in for), time, size on
    disk and notes. Over a cluster's shared folder it shows every shard's sessions, and the sessions
    of a run-all matrix that no runner has started yet (recorded in DIR/.matrix/)."""
    given = sessions_or_legacy(sessions, legacy_folder)
    root = resolve_sessions(given)
    if given is not None and not root.is_dir():   # --sessions is checked by click; the old positional folder here
        raise UsageError(f"{root} is not a folder; pass the sessions folder with --sessions DIR")
    rows = scan(root, cache=root.is_dir())
    if as_json:
        for row in rows:
            click.echo(json.dumps(row.as_dict()))
        return
    missing = not_started(root, [r.path for r in rows])
    if not rows and not missing:
        raise NothingToShow(f"no session under {root} (a session folder holds meta.json or events.jsonl); "
                            "start one with study run, or pass the sessions folder with --sessions DIR")
    click.echo(format_table(rows) if rows else "no session started yet")
    if missing:
        click.echo("\n" + format_not_started(missing))
