"""The month-end step check (what the FSM's guards run: the agent's own files, never an answer)
and the scorer (each period's eleven fields against the generator's answers), on exact cases."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from study.families.workspace.month_end_close.books import REPORT_FIELDS, close_books
from study.families.workspace.month_end_close.scorer import TOLERANCE, score
from study.families.workspace.month_end_close.workspace import build_run
from study.families.workspace.month_end_close.sim import CLOSE_TOOL


def _check(run, step: str) -> subprocess.CompletedProcess:
    return subprocess.run(["python3", "../checks/check_step.py", step], cwd=run.workspace, capture_output=True, text=True)


def _close(run, step: str = "all") -> None:
    subprocess.run([sys.executable, "tools/close.py", step], cwd=run.workspace, check=True, capture_output=True)


@pytest.fixture
def first_period(tmp_path):
    run = build_run(tmp_path, 3)
    (run.workspace / "tools").mkdir()
    (run.workspace / "tools" / "close.py").write_text(CLOSE_TOOL)
    run.release(1)
    return run


def test_each_step_is_refused_until_its_file_is_written_and_consistent(first_period):
    run = first_period
    for step in "123456":
        refused = _check(run, step)
        assert refused.returncode == 1 and "is missing" in refused.stdout, (step, refused.stdout)
        _close(run, step)
        passed = _check(run, step)
        assert (passed.returncode, passed.stdout.strip()) == (0, f"close step {step} of 2025-01: passed")


def _rewrite(path, change):
    rows = list(csv.reader(path.open()))
    change(rows)
    with path.open("w", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(rows)


def test_the_check_names_what_does_not_add_up(first_period):
    run = first_period
    _close(run)
    close = run.workspace / "periods" / "2025-01" / "close"
    # a movement that does not reconcile: one more unit sold than sales.csv holds
    _rewrite(close / "01_movements.csv", lambda rows: rows[1].__setitem__(4, str(int(rows[1][4]) + 1)))
    moved = _check(run, "1")
    assert moved.returncode == 1
    assert moved.stdout.splitlines()[:2] == [
        "- 01_movements.csv SKU-001 WH-A: closing_qty is not opening + purchased - sold + returned + transfer_in - transfer_out",
        f"- 01_movements.csv SKU-001 WH-A: sold {int(_row(close / '01_movements.csv', 1)[4])} does not reconcile with the inputs "
        f"({int(_row(close / '01_movements.csv', 1)[4]) - 1})",
    ]
    # a trial balance out of balance by 100 on Cash
    _rewrite(close / "05_trial_balance.csv", lambda rows: rows[1].__setitem__(1, f"{float(rows[1][1]) + 100:.2f}"))
    balance = _check(run, "5")
    assert balance.returncode == 1 and "- 05_trial_balance.csv: debits and credits differ by 100.00" in balance.stdout
    # a report field that does not follow from the agent's own trial balance
    report = json.loads((close / "report.json").read_text())
    report["revenue"] += 10
    (close / "report.json").write_text(json.dumps(report))
    assert "report.json revenue" in _check(run, "6").stdout
    # an event of the period without its adjustment row
    events = [{"id": "EV-X", "kind": "writedown", "text": "..."}]
    (run.workspace / "periods" / "2025-01" / "inputs" / "events.json").write_text(json.dumps(events))
    assert "04_adjustments.csv has no row for event EV-X (writedown), announced this period" in _check(run, "4").stdout


def _row(path, index):
    return list(csv.reader(path.open()))[index]


def test_the_next_period_opens_from_the_previous_close(first_period):
    run = first_period
    run.release(2)
    missing = _check(run, "1")
    assert missing.returncode == 1 and "the previous period's close must write its closing_balances.json" in missing.stdout
    with pytest.raises(ValueError, match="release them in order"):
        run.release(4)


def test_the_check_is_called_wrongly_with_exit_2(first_period):
    wrong = _check(first_period, "7")
    assert wrong.returncode == 2 and "STEP is 1, 2, 3, 4, 5 or 6" in wrong.stderr


def test_the_scorer_counts_the_fields_within_tolerance(tmp_path):
    run = build_run(tmp_path, 5)
    truth = close_books(run.company)
    run.release(1)
    run.release(2)
    run.release(3)
    close1 = run.workspace / "periods" / "2025-01" / "close"
    (close1 / "report.json").write_text(json.dumps(truth[0].report))
    off = dict(truth[1].report)
    off["revenue"] += 0.5            # at the tolerance: right
    off["cogs"] += 0.51              # beyond it: wrong
    off["units_wh_a"] += 1           # units are exact: wrong
    off["net_income"] = "n/a"        # not a number: wrong
    del off["fx_gain_loss"]          # missing: wrong
    (run.workspace / "periods" / "2025-02" / "close" / "report.json").write_text(json.dumps(off))
    scores = score(run.workspace, 5)
    assert [(s.period, s.started, s.right, s.correct, s.problem) for s in scores] == [
        ("2025-01", True, 11, True, ""), ("2025-02", True, 7, False, ""), ("2025-03", True, 0, False, "no report"),
        ("2025-04", False, 0, False, "not started"), ("2025-05", False, 0, False, "not started"), ("2025-06", False, 0, False, "not started")]
    assert scores[1].fraction == 7 / 11
    assert sorted(f.field for f in scores[1].fields if not f.ok) == ["cogs", "fx_gain_loss", "net_income", "units_wh_a"]
    assert TOLERANCE == {**{f: 0.5 for f in REPORT_FIELDS}, "units_wh_a": 0.0, "units_wh_b": 0.0}
