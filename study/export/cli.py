"""``study export``: the sessions in other tools' formats (``study export inspect``: Inspect eval
logs). inspect-ai is an optional extra, imported only when the command runs."""

from __future__ import annotations

import importlib
from pathlib import Path

import click

from study.cli.vocabulary import FolderPath, NothingToShow, UsageError, examples, sessions_option

#: The one line that says how to install what ``study export inspect`` needs.
INSTALL_LINE = ("study export inspect needs inspect-ai, an optional extra: "
                "pip install --require-hashes -r requirements-inspect.lock")


def _inspect_log():
    """``study.export.inspect_log``, or a usage error (exit 2) naming the install line when
    inspect-ai is missing."""
    try:
        importlib.import_module("inspect_ai")
    except ImportError:
        raise UsageError(INSTALL_LINE) from None
    return importlib.import_module("study.export.inspect_log")


@click.group(epilog=examples("study export inspect --sessions demo inspect-logs/"))
def export() -> None:
    """Write the sessions in other tools' formats (reading only: nothing is run or changed)."""


@export.command("inspect", epilog=examples(
    "study export inspect inspect-logs/                    # every session of sessions/",
    "study export inspect --sessions demo demo-inspect/    # the demo's (SIMULATED) sessions",
    "inspect view --log-dir inspect-logs/                  # then read them with Inspect's viewer"))
@sessions_option(exists=True)
@click.argument("out", type=FolderPath(path_type=Path, file_okay=False), metavar="OUT")
def inspect_(sessions: Path | None, out: Path) -> None:
    """Write the sessions as Inspect eval logs into OUT: one log per model on runtime, condition,
    task and batch size, one sample per session (its seed), with the transcript's conversation,
    the session log's events and the study's own scores. Read them with `inspect view`,
    `inspect_ai.analysis.samples_df(OUT)` or transcript scanners. A session of another study's task
    family is scored by its family's verdict (a benchmark's reward and its parts, or not judged;
    a protocol's valid rows or correct periods); a conversation's messages are as the benchmark has
    them, a run's fresh contexts are spans of its events.

    A session whose records break a rule of the log's validation (the sessions `study tables`
    lists as invalid) is not exported: it is named on stderr with the reason, and in the
    `skipped_sessions` metadata of its group's log. Voided and unfinished sessions are exported
    as errored samples, left out of the log's results as the tables leave them out. Needs the
    `inspect` extra (pip install --require-hashes -r requirements-inspect.lock)."""
    from study.paths import sessions_folder

    module = _inspect_log()
    root = sessions_folder(sessions)
    if not root.is_dir():
        raise UsageError(f"--sessions {root}: no such folder")
    if out.exists() and not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    written = module.write_inspect_logs(root, out)
    for skipped in written.skipped:
        click.echo(f"skipped {skipped.name}: {skipped.reason}", err=True)
    for note in written.notes:
        click.echo(f"note: {note}", err=True)
    if not written.logs:
        raise NothingToShow(f"no session to export under {root}"
                            + (f" ({len(written.skipped)} skipped, see above)" if written.skipped else "")
                            + "; point --sessions at a sessions folder.")
    for path in written.logs:
        click.echo(str(path))
    click.echo(f"{len(written.logs)} eval logs, {written.samples} samples"
               + (f"; {len(written.skipped)} sessions skipped (stderr says why)" if written.skipped else "")
               + f". Read them: inspect view --log-dir {out}", err=True)
