"""Where the project's directories are.

The package is installed editable (``pip install -e .``), so the project root is the parent of
this package. ``STUDY_ROOT`` overrides it (tests use this to work on a copy of the tree). It moves
the preregistration, the sessions and the figures, not the code: Python still imports the
installed package, and the run check (``study.prereg.check_before_run``) compares that imported
code with the manifest in effect under ``STUDY_ROOT``. A project made by ``study new`` is found from
inside it by its marker file, or named with ``study --project DIR`` (which sets ``STUDY_ROOT``).
"""

from __future__ import annotations

import os
from pathlib import Path

#: The file ``study new`` writes at the top of a project it makes: a command run inside that folder
#: (or below it) uses it as its project, without ``STUDY_ROOT``.
PROJECT_MARKER = ".study-project"


def project_root() -> Path:
    """The checkout: the folder that holds ``preregistration/``, ``sessions/`` and ``figures/``:
    ``STUDY_ROOT`` if set, else the nearest folder at or above the working directory holding a
    ``.study-project`` marker (a project made by ``study new``), else the package's checkout."""
    env = os.environ.get("STUDY_ROOT")
    if env:
        return Path(env).resolve()
    try:
        here = Path.cwd().resolve()
    except OSError:
        here = None
    for folder in ([here, *here.parents] if here is not None else []):
        if (folder / PROJECT_MARKER).is_file():
            return folder
    return checkout_root()


def checkout_root() -> Path:
    """The folder the package itself lies in (the checkout, for an editable install): where the
    lock files and the pinned runtimes belong. ``STUDY_ROOT`` does not move it: they belong to the
    code, not to a study tree."""
    return Path(__file__).resolve().parent.parent


def prereg_dir() -> Path:
    return project_root() / "preregistration"


#: The sessions folder's name under the project root.
SESSIONS = "sessions"


def sessions_dir() -> Path:
    """The project's default sessions folder (``sessions/`` of the project root)."""
    return project_root() / SESSIONS


def given_path(value: Path | str, base: Path | None = None) -> Path:
    """A path a user typed, as the folder or file it names: ``~`` expanded, made absolute against
    ``base`` (default: the working directory) and resolved (``..`` and symbolic links followed), so
    that ``x``, ``./x``, ``../x``, a path through a linked folder and an absolute path name the same
    place, and a path holding spaces or non-ASCII characters stays one path. Every path option of
    every command is resolved by this, once, at the command's edge (the types of
    ``study.cli.vocabulary``), and passed down absolute: a relative path handed to a process that
    runs in another folder (the agent CLI runs in the session's ``work/``) would name another place.
    """
    path = Path(value).expanduser()
    path = (Path(base) if base is not None else Path.cwd()) / path
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):     # not there (yet), a file in the way, a link to nothing, a loop
        pass
    # the part that exists, resolved; the rest as typed, its ``..`` taken lexically (nothing below
    # a folder that does not exist can be a link). A link to nothing stays a link, so the command's
    # own checks name it ("a link to nothing") instead of writing where it pointed.
    existing, rest = path, []
    while not os.path.lexists(existing) and existing.parent != existing:
        rest.insert(0, existing.name)
        existing = existing.parent
    if os.path.islink(existing) and not os.path.exists(existing):
        head = existing.parent.resolve() / existing.name
    else:
        head = existing.resolve()
    return Path(os.path.normpath(head.joinpath(*rest))) if rest else head


def shell_word(path: Path | str) -> str:
    """``path`` as a user would type it in a printed command: relative to the working directory when
    it lies below it, else absolute, and quoted for the shell when it holds a space, a quote or any
    other character the shell reads (``study score 'my sessions/…'``), so a printed command runs as
    printed."""
    import shlex

    text = str(path)
    try:
        here = Path.cwd().resolve()
        resolved = Path(path).resolve()
        if resolved == here or here in resolved.parents:
            text = os.path.relpath(resolved, here)
    except (OSError, ValueError):
        pass
    return shlex.quote(text)


def sessions_folder(given: Path | str | None) -> Path:
    """The sessions folder a command uses: the one given (``--sessions DIR``), else the project's
    ``sessions/``; absolute and resolved (``given_path``). Each command resolves it once, at its
    edge, and passes the path down."""
    return given_path(given) if given is not None else sessions_dir()


def figures_dir() -> Path:
    return project_root() / "figures"
