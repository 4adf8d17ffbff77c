"""``study view``: browse sessions in a local web page, or write the same viewer as a static folder."""

from __future__ import annotations

import signal
from pathlib import Path

import click

from study.cli.vocabulary import INTERRUPTED, FolderPath, NothingToShow, UsageError, examples, sessions_option
from study.paths import sessions_folder

from .paths import session_names

#: The port ``study view`` listens on unless told otherwise.
DEFAULT_PORT = 8765


@click.command(epilog=examples(
    "study view                                  # serve sessions/ on http://127.0.0.1:8765/",
    "study view --sessions demo --port 0         # the demo's sessions, any free port",
    "study view --bundle viewer/                 # a static folder: open viewer/index.html",
    "study view --bundle supplement/ --no-transcripts  # smaller: without the agents' transcripts",
))
@sessions_option(help="The sessions folder to browse [default: sessions/ of the project].")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port on 127.0.0.1 to serve on (0: any free port). The server never listens beyond this machine.")
@click.option("--bundle", "bundle", type=FolderPath(file_okay=False), default=None, metavar="OUT",
              help="Write the viewer as a static folder OUT (opens from disk, no server) instead of serving it.")
@click.option("--no-transcripts", "no_transcripts", is_flag=True,
              help="With --bundle: leave the agents' transcripts (Claude Code's, Codex CLI's) out (they are most of a bundle's size).")
def view(sessions: Path | None, port: int, bundle: Path | None, no_transcripts: bool) -> None:
    """Browse sessions: the matrix, each session's time line and routes, each account's calls.

    Serves a local page on 127.0.0.1 and prints its address (Ctrl-C stops it, exit code 3), or with --bundle
    writes the same viewer, split per session, as a folder that opens from disk. Compliance
    shown is computed by the same scoring code as the tables.
    """
    if no_transcripts and bundle is None:
        raise UsageError("--no-transcripts goes with --bundle OUT; the server reads transcripts only when asked.")
    root = sessions_folder(sessions)
    if not root.is_dir():
        raise UsageError(f"{root}: no such folder. Pass the sessions folder with --sessions DIR.")
    names = session_names(root)
    if not names:
        raise NothingToShow(f"no session under {root}. Run one first (study run, study demo) or point "
                            "--sessions at a folder that holds sessions.")
    if bundle is not None:
        _write_bundle(root, bundle, len(names), transcripts=not no_transcripts)
        return

    from .server import bind, serve

    try:
        sock = bind(port)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror}); pass another --port, "
                         "or --port 0 for any free one.") from None
    click.echo(f"study view: {len(names)} sessions of {root} at http://127.0.0.1:{sock.getsockname()[1]}/ "
               "(Ctrl-C stops it)", err=False)
    try:
        stopped_by = serve(root, sock)
    except KeyboardInterrupt:           # Ctrl-C before uvicorn took the signals over
        stopped_by = [signal.SIGINT]
    if stopped_by:
        click.echo(f"study view: stopped ({signal.Signals(stopped_by[-1]).name})", err=True)
        raise SystemExit(INTERRUPTED)


def _write_bundle(root: Path, out: Path, count: int, *, transcripts: bool) -> None:
    from .bundle import write_bundle

    if out.exists() and not out.is_dir():
        raise UsageError(f"{out} is a file; --bundle takes a folder to write the viewer into.")
    if out.is_dir() and any(out.iterdir()) and not (out / "data" / "matrix.js").is_file():
        raise UsageError(f"{out} is not empty and holds no earlier bundle; pass a new or empty folder.")
    resolved, base = out.resolve(), root.resolve()
    if resolved == base or base in resolved.parents:
        raise UsageError(f"{out} is inside the sessions folder {root}; write the bundle elsewhere.")
    try:
        counts = write_bundle(root, out, transcripts=transcripts)
    except KeyboardInterrupt:
        click.echo(f"study view: interrupted (SIGINT); the bundle in {out} is incomplete: write it again", err=True)
        raise SystemExit(INTERRUPTED) from None
    click.echo(f"wrote {counts['sessions']} of {count} sessions ({counts['files']} files, "
               f"{counts['bytes'] / 1e6:.1f} MB) to {out}; open {out / 'index.html'} in a browser")
