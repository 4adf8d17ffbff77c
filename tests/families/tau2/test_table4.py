"""Table 4 (τ²-bench, Analysis 2) from session logs alone: pairing by task, passes, discordant
tasks with the exact McNemar p, transfers with faults open, the controller's share of the agent's
turns, tasks not judged, and what is left out, each against values worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.study_sessions import load_study_sessions
from study.families.tau2.events import CONVERSATION_END, CUSTOMER_MESSAGE
from study.families.tau2.tables import mcnemar_exact, table4
from study.session_io.events import SCHEMA_VERSION
from study.session_io.vocabulary import EventKind, SessionStatus
from study.session_io.writer import EventLog

#: The logs here are written by hand, without the evidence a real session keeps: each outcome is
#: taken as written (tests/verdict_helpers.py); the rule itself: tests/session_io/test_verdicts.py.
pytestmark = pytest.mark.usefixtures("outcomes_as_written")

STUDY = "tau2-telecom"


def write_tau2(folder: Path, *, condition: str, task: str, reward: float | None, transferred: bool = False,
               judged: bool = True, agent_turns: int = 10, scripted: int = 1, model: str = "sim:oracle",
               runtime: str = "claude-code", voided: bool = False, outcome: bool = True) -> Path:
    """One τ²-bench session's log and meta.json, as the runner writes them."""
    folder.mkdir(parents=True)
    log = EventLog(folder / "events.jsonl")
    log.emit(EventKind.SESSION_START, schema=SCHEMA_VERSION, condition=condition, seed=1, model=model,
             simulated=True, manifest_sha256="0" * 64, code_version="test", runtime=runtime, cli_version="none",
             order=[task], limits={}, family="tau2", study=STUDY, domain="telecom")
    log.emit(CUSTOMER_MESSAGE, text="My phone has no service.")
    log.emit(EventKind.TOOL_CALL, server="tau2", tool="get_customer_by_phone", args={"phone_number": "555"},
             account=None, allowed=True, ok=True, state=None, result="{}")
    if transferred:
        log.emit(EventKind.TOOL_CALL, server="tau2", tool="transfer_to_human_agents", args={"summary": "x"},
                 account=None, allowed=True, ok=True, state=None, result="Transfer successful")
    log.emit(CONVERSATION_END, reason="user_stop")
    if outcome:
        log.emit(EventKind.OUTCOME, family="tau2", reward=reward, judged=judged, task_id=task, domain="telecom",
                 parts={}, agent_turns=agent_turns, scripted_turns=scripted, controller_turns=scripted - 1)
    status = SessionStatus.INFRASTRUCTURE_FAILURE if voided else SessionStatus.COMPLETED
    log.emit(EventKind.SESSION_END, status=status, cost_usd=0.01, turns=0, duration_s=1.0, decisions=1,
             accounts_left=0)
    log.close()
    (folder / "meta.json").write_text(json.dumps({
        "model": model, "condition": condition, "seed": 1, "simulated": True, "exploratory": False, "accounts": 1,
        "voided": voided, "void_reason": "infrastructure failure" if voided else None, "cost_usd": 0.01,
        "study": STUDY, "family": "tau2", "runtime": runtime}), encoding="utf-8")
    return folder


def test_the_exact_mcnemar_p_is_the_papers():
    # the paper's published values: 17/0 discordant p = 1.5e-5 (2 * 0.5**17), 7/0 p = 0.0156
    assert mcnemar_exact(17, 0) == pytest.approx(2 * 0.5 ** 17) == pytest.approx(1.526e-5, rel=1e-3)
    assert mcnemar_exact(7, 0) == pytest.approx(0.015625)
    assert mcnemar_exact(5, 4) == pytest.approx(1.0)
    assert mcnemar_exact(0, 0) is None


@pytest.fixture
def sessions(tmp_path):
    root = tmp_path / "sessions"
    base = root / STUDY / "sim-oracle"
    # five tasks, both conditions. Passes: Control t1, t2; FSM t1, t3, t4, t5 -> discordant 3 / 1
    plan = {
        "t1": ((1.0, False), (1.0, False)),
        "t2": ((1.0, False), (0.0, False)),
        "t3": ((0.0, True), (1.0, False)),     # Control abandoned the customer: a transfer with the fault open
        "t4": ((0.0, True), (1.0, False)),
        "t5": ((0.0, False), (1.0, False)),
    }
    for k, (task, ((rc, tc), (rf, tf))) in enumerate(plan.items(), start=1):
        write_tau2(base / "Control" / f"task-{k:02d}", condition="Control", task=task, reward=rc, transferred=tc,
                   agent_turns=10, scripted=1)
        write_tau2(base / "FSM" / f"task-{k:02d}", condition="FSM", task=task, reward=rf, transferred=tf,
                   agent_turns=10, scripted=6)
    # t6: FSM only (unpaired); t7: not judged under Control; t8: a voided FSM session
    write_tau2(base / "FSM" / "task-06", condition="FSM", task="t6", reward=1.0)
    write_tau2(base / "Control" / "task-07", condition="Control", task="t7", reward=None, judged=False)
    write_tau2(base / "FSM" / "task-07", condition="FSM", task="t7", reward=1.0)
    write_tau2(base / "Control" / "task-08", condition="Control", task="t8", reward=0.0)
    write_tau2(base / "FSM" / "task-08", condition="FSM", task="t8", reward=1.0, voided=True)
    return root


def test_table4_pairs_the_tasks_and_counts_what_the_paper_counts(sessions):
    found = load_study_sessions(sessions, [STUDY], allow_simulated=True)
    table = table4(found)
    assert table.title.startswith("SIMULATED")
    [(model, cells)] = table.rows
    values = [c.text for c in cells]
    # tasks t1-t5 paired and judged; Control 2 passed, FSM 4; FSM only t3, t4, t5 / Control only t2
    assert model == "sim:oracle"
    assert values[:5] == ["Telecom", "5", "2", "4", "3 / 1"]
    assert values[5] == "0.625"                     # exact McNemar on 3 / 1: 2 * P(X <= 1 | n=4) = 10/16
    assert values[6] == "2 / 0"                     # Control's two transfers with the fault open
    assert values[7] == "10% / 60%"                 # scripted turns over agent turns: 5/50 and 30/50
    notes = " ".join(table.notes)
    # t6 ran under FSM only, t7's Control verdict is not judged, t8's FSM session is voided
    assert "Not judged: 1 session" in notes and "Unpaired: 3 task(s)" in notes
    assert "Excluded: 1 session" in notes
    assert [p for p, _ in found.excluded] == [f"{STUDY}/sim-oracle/FSM/task-08"]


def test_each_runtime_is_a_row_of_its_own_and_csv_keeps_the_numbers(tmp_path):
    from analysis.render import render

    root = tmp_path / "sessions"
    for runtime in ("claude-code", "codex"):
        base = root / STUDY / f"sim-oracle-{runtime}"
        write_tau2(base / "Control/task-01", condition="Control", task="t1", reward=0.0, runtime=runtime)
        write_tau2(base / "FSM/task-01", condition="FSM", task="t1", reward=1.0, runtime=runtime)
    table = table4(load_study_sessions(root, [STUDY]))
    assert [m for m, _ in table.rows] == ["sim:oracle", "sim:oracle on Codex CLI"]
    text = render(table, "csv")
    header, first = [line for line in text.splitlines() if not line.startswith("#")][:2]
    assert "FSM only" in header and "McNemar p" in header
    assert first.split(",")[:7] == ["sim:oracle", "telecom", "1", "0", "1", "1", "0"]


def test_the_main_studys_sessions_are_left_out_and_listed(tmp_path):
    from analysis.corpus import write_session

    root = tmp_path / "sessions"
    write_session(root / "m" / "Plain" / "seed-2", model="m", condition="Plain", seed=2, episodes=["fc"] * 4,
                  accounts=4)
    write_tau2(root / STUDY / "m" / "Control" / "task-01", condition="Control", task="t1", reward=1.0)
    found = load_study_sessions(root, [STUDY])
    assert len(found.sessions) == 1
    assert [(p, str(why.kind)) for p, why in found.excluded] == [("m/Plain/seed-2", "other-study")]
