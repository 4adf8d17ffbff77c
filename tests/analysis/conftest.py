"""Fixtures for the analysis tests: session logs written through the real EventLog."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.corpus import SessionWriter
from sopbench_tools.dataset import gold_labels
from sopbench_tools.orders import order_for_seed


@pytest.fixture
def gold() -> dict[str, str]:
    return gold_labels()


@pytest.fixture
def new_session(tmp_path: Path):
    """Factory: a SessionWriter over the first ``accounts`` ids of seed 2's order."""
    count = iter(range(1000))

    def make(accounts: int = 3, *, model: str = "m", condition: str = "FSM", seed: int = 2,
             simulated: bool = True) -> SessionWriter:
        session_dir = tmp_path / f"s{next(count)}" / model / condition / f"seed-{seed}"
        return SessionWriter(session_dir, model=model, condition=condition, seed=seed,
                             order=order_for_seed(seed)[:accounts], simulated=simulated)

    return make
