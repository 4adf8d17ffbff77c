"""Where the project's directories are.

The package is installed editable (``pip install -e .``), so the project root is the parent of
this package. ``STUDY_ROOT`` overrides it (tests use this to work on a copy of the tree).
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
