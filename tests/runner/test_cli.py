"""``study run``, ``study run-all`` and ``study status`` as a user types them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from study.cli import main

CHECKED = "c0ffee" * 10 + "c0ff"  # what a passing preregistration check returns (a manifest hash)


@pytest.fixture
def frozen(monkeypatch):
    """The preregistration check passes and returns CHECKED (the check has its own tests)."""
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: CHECKED)


def test_run_refuses_before_anything_starts_when_the_preregistration_check_fails(tmp_path, monkeypatch):
    root = tmp_path / "checkout"
    (root / "preregistration").mkdir(parents=True)  # never frozen: no manifest
    monkeypatch.setenv("STUDY_ROOT", str(root))
    out = tmp_path / "sessions"
    for args in (["run", "--condition", "Plain", "--seed", "2", "--model", "sim:oracle"],
                 ["run-all", "--models", "sim:oracle", "--seeds", "2"]):
        result = CliRunner().invoke(main, [*args, "--sessions", str(out)])
        assert result.exit_code == 1
        assert "preregistration check failed, nothing was started" in result.output
        assert "freeze" in result.output
    assert not out.exists()


def test_run_without_an_api_key_says_what_to_set_and_how_to_run_offline(tmp_path, frozen, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    result = CliRunner().invoke(main, ["run", "--condition", "FSM", "--seed", "2", "--sessions", str(tmp_path / "s")])
    assert result.exit_code == 2  # a bad input (preflight.py)
    assert "ANTHROPIC_API_KEY" in result.output and "--model sim:oracle" in result.output
    assert not (tmp_path / "s").exists()


def test_run_refuses_an_unknown_condition_naming_the_valid_ones(tmp_path, frozen):
    result = CliRunner().invoke(main, ["run", "--condition", "fsm", "--seed", "2", "--model", "sim:oracle",
                                       "--sessions", str(tmp_path)])
    assert result.exit_code == 2 and "unknown condition 'fsm'" in result.output and "Stop-only" in result.output


def test_a_bad_limit_override_is_refused(tmp_path, frozen):
    result = CliRunner().invoke(main, ["run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle",
                                       "--limit", "minutes=3", "--sessions", str(tmp_path)])
    assert result.exit_code == 2 and "no_decision_s" in result.output


@pytest.mark.e2e
def test_run_records_the_checked_manifest_and_a_prefix_is_exploratory(tmp_path, frozen):
    result = CliRunner().invoke(main, ["run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle",
                                       "--accounts", "2", "--sessions", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "completed: 2/2 decided, $" in result.output and "(simulated, priced as claude-haiku-4-5)" in result.output
    # the display, off a terminal: one line per event of the session
    label = "exploratory/sim-oracle/FSM/seed-2-first-2"
    assert f"] {label}: started, 2 accounts, cap $25.00" in result.output
    assert f"] {label}: ended completed: 2/2 decided" in result.output
    meta = json.loads((tmp_path / "exploratory" / "sim-oracle" / "FSM" / "seed-2-first-2" / "meta.json").read_text())
    assert (meta["manifest_sha256"], meta["exploratory"], meta["simulated"]) == (CHECKED, True, True)


@pytest.mark.e2e
def test_run_all_then_status(tmp_path, frozen):
    # a matrix of two sessions (a range of seeds: test_dry_run.py), run at once
    result = CliRunner().invoke(main, ["run-all", "--models", "sim:oracle", "--conditions", "Plain,Stop-only",
                                       "--seeds", "2", "--accounts", "1", "--jobs", "2", "--sessions", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "ran 2 session(s): 2 completed" in result.output
    status = CliRunner().invoke(main, ["status", "--sessions", str(tmp_path)])
    assert status.exit_code == 0
    assert "2 session(s): 2 completed" in status.output
    for name in ("Plain/seed-2-first-1", "Stop-only/seed-2-first-1"):
        assert name in status.output
    rows = [json.loads(line) for line in CliRunner().invoke(main, ["status", "--sessions", str(tmp_path), "--json"]).output.splitlines()]
    assert sorted((r["condition"], r["seed"], r["status"], r["decisions"]) for r in rows) == [
        ("Plain", 2, "completed", 1), ("Stop-only", 2, "completed", 1)]
    again = CliRunner().invoke(main, ["run-all", "--models", "sim:oracle", "--conditions", "Plain,Stop-only",
                                      "--seeds", "2", "--accounts", "1", "--sessions", str(tmp_path)])
    assert "skipped 2 session(s) this run did not start (the reason follows each):" in again.output
    assert again.output.count(": completed\n") == 2          # each skipped session says why: it is complete


def test_a_bad_account_count_is_refused_before_anything_starts(tmp_path, frozen):
    result = CliRunner().invoke(main, ["run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle",
                                       "--accounts", "201", "--sessions", str(tmp_path / "s")])
    assert result.exit_code == 2 and "between 1 and 200" in result.output
    assert not (tmp_path / "s").exists()


def test_an_unknown_simulator_policy_is_refused_naming_the_policies(tmp_path, frozen):
    result = CliRunner().invoke(main, ["run", "--condition", "FSM", "--seed", "2", "--model", "sim:orcale",
                                       "--sessions", str(tmp_path / "s")])
    assert result.exit_code == 2 and "unknown simulator policy 'orcale'" in result.output and "oracle" in result.output
    assert not (tmp_path / "s").exists()


@pytest.mark.e2e
def test_run_fsm_bound_refuses_the_decision_for_another_account_that_fsm_admits(tmp_path, frozen):
    """sim:wrong-account records two accounts, then decides the first while the last record is the
    second's: FSM admits it (the route the paper left open), the exploratory FSM-bound refuses it.
    (The policy then keeps retrying the same refused decision, so a small spending cap ends it.)"""
    from analysis.scoring import score_session_dir
    from study.session_io.reader import log_events

    def run(condition: str, *limit: str) -> tuple[dict, list[dict], dict]:
        result = CliRunner().invoke(main, ["run", "--condition", condition, "--seed", "2", "--model", "sim:wrong-account",
                                           "--accounts", "2", "--sessions", str(tmp_path), *limit])
        assert result.exit_code == 0, result.output
        folder = tmp_path / "exploratory" / "sim-wrong-account" / condition / "seed-2-first-2"
        meta = json.loads((folder / "meta.json").read_text())
        return meta, log_events(folder / "events.jsonl"), score_session_dir(folder).routes

    meta, events, routes = run("FSM")
    decisions = [e for e in events if e["kind"] == "tool_call" and e["tool"] == "submit_decision"]
    assert meta["status"] == "completed" and routes["another_account"] >= 1 and all(d["allowed"] for d in decisions)

    meta, events, routes = run("FSM-bound", "--limit", "spending_usd=0.15")
    assert (meta["condition"], meta["exploratory"], events[0]["exploratory"]) == ("FSM-bound", True, True)
    assert events[0]["factors"]["workflow"] == "exploratory/fsm_bound.yaml"
    refused = [e for e in events if e["kind"] == "tool_call" and e["tool"] == "submit_decision" and not e["allowed"]]
    last_record = [e["account"] for e in events if e["kind"] == "tool_call" and e["tool"] == "record_analysis" and e["ok"]
                   and e["seq"] < refused[0]["seq"]][-1]
    assert refused[0]["state"] == "S_decide" and refused[0]["account"] != last_record
    assert "must be" in refused[0]["error"] and last_record in refused[0]["error"]
    assert routes["another_account"] == 0 and meta["decisions"] == 0 and meta["status"] == "limit:spending"
