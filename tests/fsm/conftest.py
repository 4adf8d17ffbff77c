"""Fixtures for the FSM tests. Shared helpers are in fsm_helpers.py (this folder is put on
sys.path so the test modules can import it under pytest's importlib mode)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fsm_helpers  # noqa: E402  (registers the test check)
from study.fsm import Workflow  # noqa: E402


@pytest.fixture
def main_wf() -> Workflow:
    return Workflow.load(fsm_helpers.MAIN)


@pytest.fixture
def bound_wf() -> Workflow:
    return Workflow.load(fsm_helpers.BOUND)


@pytest.fixture
def stop_only_wf() -> Workflow:
    return Workflow.load(fsm_helpers.STOP_ONLY)
