"""Fixtures for the task families' tests, one folder per family (``tau2/``, ``workspace/``) as the
code has one (``study/families/<family>/``). Shared helpers are in the family folders'
*_helpers.py (each folder is put on sys.path so the test modules can import them under pytest's
importlib mode)."""

from __future__ import annotations

import sys
from pathlib import Path

for _folder in sorted(p for p in Path(__file__).resolve().parent.iterdir() if p.is_dir() and p.name != "__pycache__"):
    sys.path.insert(0, str(_folder))
