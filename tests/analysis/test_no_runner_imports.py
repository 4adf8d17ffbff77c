"""The analysis reads the preregistration through ``study.protocol``: importing every analysis
module (power included) loads nothing of the session runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import analysis

PROBE = """
import importlib, pkgutil, sys
import analysis
for info in pkgutil.walk_packages(analysis.__path__, "analysis."):
    importlib.import_module(info.name)
loaded = sorted(name for name in sys.modules if name == "study.runner" or name.startswith("study.runner."))
print(" ".join(loaded))
"""


def test_the_analysis_imports_nothing_of_the_runner():
    root = Path(analysis.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=root,
                          timeout=120, check=True)
    assert done.stdout.strip() == ""
