"""The month-end company and its true close: a hand-worked two-period case (every policy event),
determinism per seed, and the balance identity of the generated books."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from study.families.workspace.month_end_close.books import REPORT_FIELDS, close_books
from study.families.workspace.month_end_close.workspace import master_files, opening_json, period_files
from study.families.workspace.month_end_close.world import CURRENCIES, WAREHOUSES, generate
from study.families.workspace.month_end_close.sim import CLOSE_TOOL

from month_end_helpers import HAND_REPORTS, hand_company


def test_the_hand_worked_close():
    closes = close_books(hand_company())
    assert [c.report for c in closes] == list(HAND_REPORTS)
    # what period 2 opens from: equity 1690 + 19; cash 1000 + 1000 x 1.20 - 50
    assert (round(closes[0].equity, 2), round(closes[0].cash, 2)) == (1709.0, 2150.0)
    assert {i.document: i.carrying_rate for i in closes[0].open_items} == {"INV-1": 1.25, "PO-0": 1.25, "PO-1": 1.0}


def test_the_oracles_close_script_agrees_with_the_hand_worked_close(tmp_path):
    """The oracle's script (its own reading of CLOSE_PROCEDURE.md) on the hand company's files."""
    company = hand_company()
    (tmp_path / "master").mkdir()
    for name, text in master_files(company).items():
        (tmp_path / "master" / name).write_text(text)
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "close.py").write_text(CLOSE_TOOL)
    for index, period in enumerate(company.periods, 1):
        inputs = tmp_path / "periods" / period.name / "inputs"
        inputs.mkdir(parents=True)
        for name, text in period_files(company, index).items():
            (inputs / name).write_text(text)
        subprocess.run([sys.executable, "tools/close.py", "all"], cwd=tmp_path, check=True, capture_output=True)
        report = json.loads((inputs.parent / "close" / "report.json").read_text())
        assert report == HAND_REPORTS[index - 1]
    assert opening_json(company)["equity"] == 1690.0


def test_the_company_is_the_same_for_a_seed_and_has_the_papers_shape():
    company = generate(7)
    assert company == generate(7) and company != generate(8)
    assert len(company.skus) == 40 and len(company.periods) == 6
    assert {s.currency for s in company.skus} == set(CURRENCIES)
    kinds = [e.kind for p in company.periods for e in p.events]
    assert sorted(kinds) == ["closure", "fx_rule", "price_change", "writedown"]
    closed = next(i for i, p in enumerate(company.periods) if any(e.kind == "closure" for e in p.events))
    later = company.periods[closed + 1:]
    assert all(line.warehouse == "WH-A" for p in later for line in (*p.purchases, *p.sales, *p.returns))
    assert not any(p.transfers for p in later)
    assert WAREHOUSES == ("WH-A", "WH-B")


def test_the_books_balance_in_every_period_of_several_seeds():
    for seed in (1, 2, 3, 11):
        for close in close_books(generate(seed)):
            r = close.report
            assert list(r) == list(REPORT_FIELDS)
            net_assets = close.cash + r["inventory_value"] + r["accounts_receivable"] - r["accounts_payable"]
            assert abs(net_assets - close.equity) < 0.05, (seed, close.period)
            assert r["units_wh_a"] + r["units_wh_b"] == sum(sum(u.values()) for u in close.qty.values())
            assert abs(r["gross_margin"] - (r["revenue"] - r["cogs"])) <= 0.011
