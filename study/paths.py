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


def sessions_folder(given: Path | str | None) -> Path:
    """The sessions folder a command uses: the one given (``--sessions DIR``), else the project's
    ``sessions/``. Each command resolves it once, at its edge, and passes the path down."""
    return Path(given) if given is not None else sessions_dir()


def figures_dir() -> Path:
    return project_root() / "figures"
