"""One vocabulary for every ``study`` command: the shared options and the exit codes.

Every command that reads or writes *sessions* names their folder ``--sessions DIR`` (default:
``sessions/`` of the project); every command that writes *output files* (tables, figures, a
bundle, a report) names their folder ``--out DIR``. Exit codes mean the same everywhere:

====  =====================================================================================
0     done, and what was asked for exists (an audit that passed, tables with rows, ...)
1     it ran and found a failure (a session that failed, an audit or verify that did not hold)
2     usage error: a bad option or input, refused before anything was created
3     interrupted (SIGINT/SIGTERM); the record of what ran is final and readable
4     nothing to show: the results asked for do not exist (no analysable session, nothing to
      audit); says why and what to do
====  =====================================================================================
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from study.paths import given_path

OK = 0
FAILED = 1
USAGE = 2
INTERRUPTED = 3
NOTHING = 4

F = TypeVar("F", bound=Callable[..., Any])


class UsageError(click.ClickException):
    """A bad input found before anything was created: one line (``Error: ...``), exit code 2."""

    exit_code = USAGE


class NothingToShow(click.ClickException):
    """The results asked for do not exist: one line saying why and what to do, exit code 4."""

    exit_code = NOTHING


class FolderPath(click.Path):
    """``click.Path`` for every path a command takes (a folder or a file, as its arguments say):
    refuses an empty or blank value (``--sessions ""`` would otherwise be the current folder),
    checks it as ``click.Path`` does, in the words the user typed, and gives it resolved
    (``study.paths.given_path``: absolute, ``~`` expanded, ``..`` and links followed). So
    ``x``, ``./x``, ``../x``, a path through a linked folder and the absolute path are one folder,
    resolved once, here, at the command's edge."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("path_type", Path)
        super().__init__(**kwargs)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("is empty: give a folder, e.g. sessions/", param, ctx)
        checked = super().convert(value, param, ctx)
        if checked is None or checked == "-":
            return checked
        resolved = given_path(os.fsdecode(checked))
        return resolved if self.type is Path or self.type is None else self.coerce_path_result(os.fspath(resolved))


#: The same type for a file argument (a name to make it read well: ``FilePath(exists=True)``).
def FilePath(**kwargs: Any) -> FolderPath:   # noqa: N802 (reads as a type)
    """A file path option or argument, resolved like every path (``FolderPath``)."""
    kwargs.setdefault("dir_okay", False)
    return FolderPath(**kwargs)


class TaskOrFile(click.ParamType):
    """``--task``: a vendored task's name, or a manifest file (a name ending ``.yaml``/``.yml``, the
    rule of ``sopbench_tools.tasks.load_task``), which is resolved like every path."""

    name = "TASK"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        if not value.strip():
            self.fail("is empty: give a task's name (study task list) or a manifest file", param, ctx)
        return str(given_path(value)) if value.endswith((".yaml", ".yml")) else value


def sessions_option(*, help: str | None = None, exists: bool = False) -> Callable[[F], F]:
    """``--sessions DIR``: the sessions folder (default: the project's ``sessions/``).

    The value is ``None`` when not given; resolve it once, at the command's edge, with
    ``study.paths.sessions_folder(value)`` and pass the path down.
    """
    return click.option(
        "--sessions", "sessions", type=FolderPath(file_okay=False, exists=exists), default=None,
        metavar="DIR", help=help or "The sessions folder [default: sessions/ of the project].")


def out_option(*, help: str | None = None) -> Callable[[F], F]:
    """``--out DIR``: the folder a command writes its output files into."""
    return click.option(
        "--out", "out", type=FolderPath(file_okay=False), default=None, metavar="DIR",
        help=help or "Write the output files into DIR instead of printing them.")


def examples(*lines: str) -> str:
    """An ``Examples:`` block for a command's help: pass it as ``epilog=examples(...)``.

    Click rewraps help text; the ``\\b`` line keeps the examples verbatim, one per line.
    """
    body = "\n".join(f"  {line}" for line in lines)
    return f"\b\nExamples:\n{body}"
