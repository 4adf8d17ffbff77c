"""The FSM-bound livelock (issue 23, item 8): a model that keeps making a call the tool gate
refuses (``sim:wrong-account`` submits for another account than the one it recorded) used to go
on until the spending cap ($25, thousands of refused submits). The exploratory conditions have a
limit of their own, ``exploratory_gate_refusals_without_decision`` in limits.yaml: that many
refused calls without a new decision end the session as ``limit:gate_refusals``. The nine
preregistered conditions never have it. Real CLI against the simulator, through ``study run-all``."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from study.cli import main
from study.runner.session import SessionSpec, prepare
from study.session_io.reader import log_events

CHECKED = "c0ffee" * 10 + "c0ff"


def test_only_the_exploratory_conditions_have_the_gate_refusals_limit(tmp_path):
    def limits(condition: str) -> dict:
        return prepare(SessionSpec(condition=condition, seed=2, model="sim:oracle", accounts=2,
                                   out_root=tmp_path)).limits.as_dict()

    assert limits("FSM-bound")["gate_refusals"] == 50
    for condition in ("FSM", "Gates-only", "Plain"):   # preregistered: recorded limits as before
        assert "gate_refusals" not in limits(condition)
    assert sorted(limits("FSM")) == ["no_decision_s", "resumes", "resumes_without_decision", "spending_usd",
                                     "stop_blocks", "turns", "wall_time_s"]


@pytest.mark.e2e
def test_run_all_ends_an_fsm_bound_livelock_at_the_gate_refusals_limit(tmp_path, monkeypatch):
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: CHECKED)
    result = CliRunner().invoke(main, ["run-all", "--models", "sim:wrong-account", "--conditions", "FSM-bound",
                                       "--seeds", "2", "--accounts", "10", "--sessions", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = prepare(SessionSpec(condition="FSM-bound", seed=2, model="sim:wrong-account", accounts=10,
                                 out_root=tmp_path)).session_dir
    meta = json.loads((folder / "meta.json").read_text())
    assert (meta["status"], meta["voided"], meta["decisions"]) == ("limit:gate_refusals", False, 0)
    assert meta["cost_usd"] < 1.0
    events = log_events(folder / "events.jsonl")
    assert events[0]["limits"]["gate_refusals"] == 50
    refused = [e for e in events if e["kind"] == "tool_call" and e["allowed"] is False]
    assert len(refused) == 50 and all(e["tool"] == "submit_decision" for e in refused)
    assert events[-1]["kind"] == "session_end" and events[-1]["status"] == "limit:gate_refusals"
    # the live display (plain lines: the output is not a terminal) warns before, and says how it ended
    assert re.search(r"the gate refused \d+ call\(s\) without a new decision \(limit 50: then limit:gate_refusals\)",
                     result.output), result.output
    assert "ended limit:gate_refusals: 0/10 decided" in result.output
