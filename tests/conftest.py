"""Fixtures shared by the test folders."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def run_git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=test@example.org", "-c", "user.name=test", *args],
        capture_output=True, text=True, check=True,
    )
    return done.stdout


@pytest.fixture
def frozen_project():
    """``frozen_project(dest)``: this checkout's preregistration/ and analysis/ copied into a new git
    checkout at ``dest`` and frozen there (the freeze committed). Point the ``study`` command at it
    with ``STUDY_ROOT=dest``; the real tree's freeze is never touched."""
    from study.paths import project_root
    from study.prereg import freeze
    from study.prereg.files import RECORD_FILES

    def make(dest: Path) -> Path:
        source = project_root()
        records = {Path(rel).name for rel in RECORD_FILES}
        for top in ("preregistration", "analysis"):
            shutil.copytree(source / top, dest / top, ignore=shutil.ignore_patterns("__pycache__", *records))
        run_git(dest, "init", "-q")
        run_git(dest, "add", ".")
        run_git(dest, "commit", "-q", "-m", "plan")
        freeze(dest)
        run_git(dest, "add", "preregistration")
        run_git(dest, "commit", "-q", "-m", "freeze")
        return dest

    return make
