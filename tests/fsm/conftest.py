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


@pytest.fixture(scope="session")
def settings_session(tmp_path_factory):
    """``settings_session(policy, **params)``: the main workflow wired through
    ``.claude/settings.json`` (settings_project.run_settings_session) on the first two accounts of
    seed 2, played by the simulator's ``policy``; run once per worker and shared by the tests that
    ask for the same policy and parameters (test_claude_code_e2e.py, test_two_wirings_e2e.py: they
    share an ``xdist_group`` so that they run on one worker). Tests only read it."""
    from settings_project import run_settings_session
    from sopbench_tools.orders import order_for_seed

    made = {}

    def get(policy: str, **params):
        key = (policy, tuple(sorted(params.items())))
        if key not in made:
            root = tmp_path_factory.mktemp(f"settings-{policy}")
            made[key] = run_settings_session(root, list(order_for_seed(2)[:2]), policy, params, seed=2)
        return made[key]

    return get
