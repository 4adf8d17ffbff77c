"""Fixtures for the task families' tests. Shared helpers are in this folder's *_helpers.py (the
folder is put on sys.path so the test modules can import them under pytest's importlib mode)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
