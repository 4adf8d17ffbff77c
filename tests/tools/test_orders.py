"""Seeded account orders: the golden order, permutations, distinct seeds, the CLI."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from click.testing import CliRunner

from sopbench_tools.dataset import load_task
from sopbench_tools.orders import STUDY_SEEDS, order_for_seed, read_order_file
from study.cli import main

GOLDEN = Path(__file__).parent / "golden"
REPO = Path(__file__).resolve().parents[2]


def test_seed_2_matches_the_golden_file():
    # golden/order-seed-2.txt was made without Python, by this shell pipeline from the repo root:
    #   tail -n +2 sopbench_tools/data/referral_abuse_detection_v2/test_set_without_outputs.csv | cut -d, -f1 |
    #   while read id; do printf '%s %s\n' "$(printf '2:%s' "$id" | sha256sum | cut -d' ' -f1)" "$id"; done |
    #   LC_ALL=C sort | cut -d' ' -f2 > tests/tools/golden/order-seed-2.txt
    assert order_for_seed(2) == read_order_file(GOLDEN / "order-seed-2.txt")


def test_study_orders_prints_the_order_one_id_a_line():
    result = CliRunner().invoke(main, ["orders", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert result.output == (GOLDEN / "order-seed-2.txt").read_text()


def test_every_order_is_a_permutation_of_the_200_ids_and_seeds_differ():
    ids = sorted(load_task().account_ids)
    assert len(ids) == 200
    seeds = STUDY_SEEDS + (10, 11, 12, 100)
    orders = {seed: order_for_seed(seed) for seed in seeds}
    for order in orders.values():
        assert sorted(order) == ids
    for a, b in combinations(seeds, 2):
        assert orders[a] != orders[b], (a, b)


def test_committed_preregistration_orders_are_the_seeds_orders():
    for seed in STUDY_SEEDS:
        assert read_order_file(REPO / "preregistration" / "orders" / f"seed-{seed}.txt") == order_for_seed(seed)


def test_study_orders_write_writes_every_study_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDY_ROOT", str(tmp_path))
    result = CliRunner().invoke(main, ["orders", "--write"])
    assert result.exit_code == 0, result.output
    written = sorted(p.name for p in (tmp_path / "preregistration" / "orders").iterdir())
    assert written == sorted(f"seed-{s}.txt" for s in STUDY_SEEDS)
    for seed in STUDY_SEEDS:
        assert read_order_file(tmp_path / "preregistration" / "orders" / f"seed-{seed}.txt") == order_for_seed(seed)


def test_study_orders_without_options_says_what_to_give():
    result = CliRunner().invoke(main, ["orders"])
    assert result.exit_code != 0
    assert "--seed N" in result.output and "--write" in result.output
