"""Where the project's directories are.

The package is installed editable (``pip install -e .``), so the project root is the parent of
this package. ``STUDY_ROOT`` overrides it (tests use this to work on a copy of the tree). It moves
the preregistration, the sessions and the figures, not the code: Python still imports the
installed package, and the run check (``study.prereg.check_before_run``) compares that imported
code with the manifest in effect under ``STUDY_ROOT``.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    """The checkout: the folder that holds ``preregistration/``, ``sessions/`` and ``figures/``."""
    env = os.environ.get("STUDY_ROOT")
    if env:
        return Path(env).resolve()
    return Path(__file__).resolve().parent.parent


def prereg_dir() -> Path:
    return project_root() / "preregistration"


def sessions_dir() -> Path:
    return project_root() / "sessions"


def figures_dir() -> Path:
    return project_root() / "figures"
