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


HAIKU, SONNET = "haiku-4.5", "sonnet-4.6"
MAIN_SEEDS = list(range(2, 10))


def run(*args, env=None):
    """``study <args>`` through click's test runner (each argument as a string)."""
    from click.testing import CliRunner

    from study.cli import main

    return CliRunner().invoke(main, [str(a) for a in args], env=env)


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory):
    """A generated corpus in the study's layout, with what each session was built with.

    Claude Haiku 4.5: all nine conditions on seeds 2-9 (one Remind session voided), FSM also on
    Sonnet's seeds 13-15; Claude Sonnet 4.6: Plain, Remind-loop, FSM on 13-15; plus a
    development-seed session and an exploratory one, which must be left out.
    """
    from analysis.corpus import corpus_conditions, generate_corpus, write_session

    root = tmp_path_factory.mktemp("corpus") / "sessions"
    expected = generate_corpus(root, models={HAIKU: list(corpus_conditions())}, seeds=MAIN_SEEDS,
                               voided={(HAIKU, "Remind", 5)})
    expected += generate_corpus(root, models={SONNET: ["Plain", "Remind-loop", "FSM"],
                                              HAIKU: ["FSM"]}, seeds=[13, 14, 15], rng_seed=1)
    write_session(root / HAIKU / "FSM" / "seed-1", model=HAIKU, condition="FSM", seed=1,
                  episodes=["fc"] * 200)
    write_session(root / "exploratory" / HAIKU / "FSM" / "seed-2", model=HAIKU, condition="FSM",
                  seed=2, episodes=["fc"] * 20, accounts=20, exploratory=True)
    return root, expected
