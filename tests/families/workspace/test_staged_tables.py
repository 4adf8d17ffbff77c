"""Tables 5 and 10 (Analysis 3, the staged protocols) from session logs alone, against values
worked out by hand: valid rows, complete protocols and best accuracy per AutoResearch campaign,
correct periods per month-end turn cap and seed, a period not started, smaller runs apart."""

from __future__ import annotations

import pytest

import json
from pathlib import Path

from analysis.render import render
from study.families.workspace.tables import table5, table10
from analysis.study_sessions import load_study_sessions
from study.session_io.events import SCHEMA_VERSION
from study.session_io.vocabulary import EventKind, SessionStatus
from study.session_io.writer import EventLog

#: The logs here are written by hand, without the evidence a real session keeps: each outcome is
#: taken as written (tests/verdict_helpers.py); the rule itself: tests/session_io/test_verdicts.py.
pytestmark = pytest.mark.usefixtures("outcomes_as_written")


def write_run(folder: Path, *, study: str, condition: str, seed: int, outcome: dict, turns: int = 40,
              cost: float = 1.0, size: int | None = None) -> Path:
    folder.mkdir(parents=True)
    log = EventLog(folder / "events.jsonl")
    log.emit(EventKind.SESSION_START, schema=SCHEMA_VERSION, condition=condition, seed=seed, model="sim:oracle",
             simulated=True, manifest_sha256="0" * 64, code_version="test", runtime="claude-code", cli_version="none",
             order=["c1"], limits={"turns": turns}, family="workspace", study=study,
             protocol=outcome["protocol"], size=size)
    log.emit(EventKind.CONTEXT_START, n=1, unit="c1")
    log.emit(EventKind.CONTEXT_END, n=1, ended="completed", unit="c1")
    log.emit(EventKind.OUTCOME, family="workspace", **outcome)
    log.emit(EventKind.SESSION_END, status=SessionStatus.COMPLETED, cost_usd=cost, turns=0, duration_s=1.0,
             decisions=1, accounts_left=0)
    log.close()
    (folder / "meta.json").write_text(json.dumps({
        "model": "sim:oracle", "condition": condition, "seed": seed, "simulated": True, "exploratory": False,
        "accounts": 1, "voided": False, "cost_usd": cost, "study": study, "family": "workspace"}), encoding="utf-8")
    return folder


def research(valid: int, complete: bool, best: float | None, required: int = 25) -> dict:
    return {"protocol": "autoresearch", "valid_rows": valid, "invalid_rows": required - valid,
            "required_rows": required, "complete": complete, "best_accuracy": best, "rows": []}


def close(marks: str) -> dict:
    """A month-end outcome from marks like "1 1 0 -" (correct, wrong, not started)."""
    periods = [{"period": f"2025-0{i + 1}", "started": m != "-", "correct": m == "1", "fraction": 1.0 if m == "1" else 0.0}
               for i, m in enumerate(marks.split())]
    return {"protocol": "month-end-close", "periods": periods, "correct_periods": sum(m == "1" for m in marks.split())}


def test_tables_5_and_10_count_what_the_paper_counts(tmp_path):
    root = tmp_path / "sessions"
    ar = root / "autoresearch" / "sim-oracle"
    # campaigns 1 and 2: Plain 7 and 25 valid rows (one complete), FSM 25 and 25 (both complete)
    write_run(ar / "Plain/seed-1", study="autoresearch", condition="Plain", seed=1, outcome=research(7, False, 0.9933))
    write_run(ar / "Plain/seed-2", study="autoresearch", condition="Plain", seed=2, outcome=research(25, True, 0.9911))
    write_run(ar / "FSM/seed-1", study="autoresearch", condition="FSM", seed=1, outcome=research(25, True, 0.9933))
    write_run(ar / "FSM/seed-2", study="autoresearch", condition="FSM", seed=2, outcome=research(25, True, 0.9933))
    mc = root / "month-end-close" / "sim-oracle"
    write_run(mc / "Plain/seed-1", study="month-end-close", condition="Plain", seed=1, outcome=close("1 1 1 0 0 0"),
              cost=1.81)
    write_run(mc / "FSM/seed-1", study="month-end-close", condition="FSM", seed=1, outcome=close("1 1 1 1 1 -"),
              cost=8.64)
    m24 = root / "month-end-close-24" / "sim-oracle"
    write_run(m24 / "Plain/seed-1", study="month-end-close-24", condition="Plain", seed=1, turns=24,
              outcome=close("1 1 1 0 0 0"))
    write_run(m24 / "FSM/seed-1", study="month-end-close-24", condition="FSM", seed=1, turns=24,
              outcome=close("1 0 0 0 0 0"))
    # a smaller AutoResearch run (1 trial per stage) is a row of its own
    write_run(ar / "FSM/seed-3-first-1", study="autoresearch", condition="FSM", seed=3, outcome=research(8, True, 0.96, 8),
              size=1)
    found = load_study_sessions(root, ["autoresearch", "month-end-close", "month-end-close-24"], allow_simulated=True)

    t5 = table5(found)
    rows = [(m, [c.text for c in cells]) for m, cells in t5.rows]
    assert rows == [
        ("sim:oracle", ["AutoResearch (2 campaigns)", "valid ledger rows", "32/50", "50/50"]),
        ("sim:oracle", ["AutoResearch (2 campaigns)", "complete protocols", "1/2", "2/2"]),
        ("sim:oracle", ["AutoResearch (2 campaigns)", "best accuracy (%)", "99.33", "99.33"]),
        ("sim:oracle, 1 trial(s) per stage", ["AutoResearch (1 campaign)", "valid ledger rows", "-", "8/8"]),
        ("sim:oracle, 1 trial(s) per stage", ["AutoResearch (1 campaign)", "complete protocols", "-", "1/1"]),
        ("sim:oracle, 1 trial(s) per stage", ["AutoResearch (1 campaign)", "best accuracy (%)", "-", "96.00"]),
        ("sim:oracle", ["Month-end close (1 seed of six periods)", "correct periods, 40 turns", "3/6", "5/6"]),
        ("sim:oracle", ["Month-end close (1 seed of six periods)", "correct periods, 24 turns", "3/6", "1/6"]),
    ]
    a, b = table10(found)
    assert (a.name, b.name) == ("table10a", "table10b")
    assert [[c.text for c in cells] for _, cells in a.rows][:2] == [
        ["1", "7/25 / 25/25", "no / yes", "99.33 / 99.33"], ["2", "25/25 / 25/25", "yes / yes", "99.11 / 99.33"]]
    assert [[c.text for c in cells] for _, cells in b.rows] == [
        ["40", "1", "1 1 1 0 0 0", "1 1 1 1 1 -", "0.50 / 0.83", "1.81 / 8.64"],
        ["24", "1", "1 1 1 0 0 0", "1 0 0 0 0 0", "0.50 / 0.17", "1.00 / 1.00"]]
    for table in (t5, a, b):
        assert table.title.startswith("SIMULATED")
        assert any(note.startswith("Columns: Model:") for note in table.notes)
        for fmt in ("md", "csv", "tex"):
            assert render(table, fmt)
