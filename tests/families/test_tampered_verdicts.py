"""Issue 50's acceptance, on real sessions: a family's outcome and its evidence flipped, doubled,
moved, deleted and swapped give 0 wrong numbers in ``study tables --study`` and ``study status``,
and an audit that fails the session naming what is wrong (benchmarks/tamper_verdicts.py, whose
cases these are; the script runs every case on sessions of its own).

The sessions: τ²-bench Telecom task 1 by the goal-abandoner under Control (reward 0: it transfers
with the fault open) and FSM (reward 1: the transfer is refused), made once by the real CLI against
the simulator; the month-end close of tests/view/family_sessions.py (shared with the viewer's and
the export's tests); its AutoResearch run written over a real workspace."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import time
from pathlib import Path

import pytest

from ..view.family_sessions import CLOSE, GROUP, copy_into, needs_tau2, write_research_run

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group(GROUP), needs_tau2]

_spec = importlib.util.spec_from_file_location(
    "tamper_verdicts", Path(__file__).resolve().parents[2] / "benchmarks" / "tamper_verdicts.py")
tamper = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("tamper_verdicts", tamper)     # its dataclasses look their module up by name
_spec.loader.exec_module(sys.modules["tamper_verdicts"])
tamper = sys.modules["tamper_verdicts"]

#: One case of each kind of evidence and of tampering the readers must see through: the outcome
#: against its basis, a second outcome, τ²'s record deleted, swapped, a FIFO and a link to a
#: device, a count and a report of the month-end close, AutoResearch's ledger and its history, and
#: a change in place after the caches were warm (benchmarks/tamper_verdicts.py runs all 41 cases).
CHOSEN = [
    "τ² reward 0→1 (its basis part still 0)", "τ² a second outcome event (reward 1)", "tau2_run.json deleted",
    "tau2_run.json swapped with the other condition's", "tau2_run.json a FIFO", "tau2_run.json a link to /dev/zero",
    "month-end 7/N periods correct", "month-end report.json edited", "AutoResearch ledger.tsv edited",
    "AutoResearch workspace .git deleted", "in place after warm caches: τ² reward 0→1",
]


@pytest.fixture(scope="module")
def base(shared_sim_session, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("tamper") / "sessions"
    root.mkdir()
    sessions = {}
    for key, condition in (("tau2-control", "Control"), ("tau2-fsm", "FSM")):
        spec = dict(policy="goal-abandoner", condition=condition, accounts=None, seed=1, study="tau2-telecom")
        sessions[key] = copy_into(root, shared_sim_session, spec)
    sessions["close"] = copy_into(root, shared_sim_session, CLOSE)
    sessions["research"] = write_research_run(root).relative_to(root).as_posix()
    time.sleep(2.1)            # every file settled: what the readers read is kept (study.caching.RACY_S)
    return root, sessions


def test_the_untouched_sessions_are_admitted_with_their_verdicts(base):
    root, sessions = base
    rows = tamper.status(root)
    assert [rows[sessions[k]]["outcome"] for k in ("tau2-control", "tau2-fsm", "close", "research")] == [
        "reward 0", "reward 1", "1/1 periods correct", "1/8 rows valid, not complete"]
    assert not any(row["problems"] for row in rows.values())
    tables = tamper.tables(root)
    assert "sim:goal-abandoner,telecom,1,0,1,1,0," in "\n".join(tables["tau2-telecom"])


def test_every_tampered_outcome_or_evidence_is_refused_by_every_reader_with_no_wrong_number(base, tmp_path, monkeypatch):
    root, sessions = base
    monkeypatch.setenv("STUDY_CACHE_DIR", str(tmp_path / "cache"))
    cases = [c for c in tamper.CASES if c.name in CHOSEN]
    assert len(cases) == len(CHOSEN)
    results = tamper.run_cases(root, sessions, tmp_path, cases)
    failed = [r for r in results if not r.passed]
    assert not failed, tamper.report(results)
    for r in results:
        assert r.wrong_numbers == 0 and r.status_outcome == "invalid records" and r.audit_verdict == "FAIL"
        assert any("[rule verdict]" in line for line in r.audit_says), r
    said = {r.case: next(line for line in r.audit_says if "[rule verdict]" in line) for r in results}
    assert "reward 1.0 where the evidence gives 0.0" in said["τ² reward 0→1 (its basis part still 0)"]
    assert "a second outcome event" in said["τ² a second outcome event (reward 1)"]
    assert "tau2_run.json is missing" in said["tau2_run.json deleted"]
    assert "is a FIFO" in said["tau2_run.json a FIFO"] and "/dev/zero" in said["tau2_run.json a link to /dev/zero"]
    assert "correct_periods 7 where the evidence gives 1" in said["month-end 7/N periods correct"]
    assert "no git history of its own" in said["AutoResearch workspace .git deleted"]
    shutil.rmtree(tmp_path / "cache", ignore_errors=True)
