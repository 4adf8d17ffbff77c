"""``study run-all --dry-run``: the plan and the expected spend, before any money is spent.

It creates nothing and needs no key; each model and condition is estimated from the user's own
finished sessions when there are any (scaled per account), else from the paper's published
per-session costs (Table 1), else "unknown"; the worst case is the spending cap times the
sessions. The numbers below are worked out by hand from those sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main

KEYLESS = {"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "ANTHROPIC_BASE_URL": "", "OPENAI_BASE_URL": ""}


def _invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, ["run-all", *args, "--dry-run"], env={**KEYLESS, **(env or {})})


def _meta(folder: Path, **fields) -> None:
    folder.mkdir(parents=True)
    meta = {"model": "haiku-4.5", "condition": "FSM", "seed": 2, "status": "completed", "voided": False,
            "accounts": 200, "cost_usd": 8.0, "duration_s": 3000.0, **fields}
    (folder / "meta.json").write_text(json.dumps(meta))


def test_the_preregistered_matrix_is_estimated_from_the_paper_and_nothing_is_created(tmp_path):
    sessions = tmp_path / "sessions"
    result = _invoke("--models", "haiku-4.5,sonnet-4.6", "--conditions", "Plain,FSM", "--seeds", "2-9",
                     "--sessions", str(sessions))
    assert result.exit_code == 0, result.output
    assert not sessions.exists()                                  # nothing was created
    out = result.output
    assert "32 session(s) to run, 0 to skip" in out
    # Table 1's means: Haiku FSM $10.64, Plain $0.96; Sonnet FSM $53.26, Plain $20.94 a session, 8 seeds each
    assert "haiku-4.5   FSM            8 x 200 accounts  spend $85.12 [$85.12-$110.96]" in out   # up to $13.87 a session
    assert "haiku-4.5   Plain          8 x 200 accounts  spend $7.68" in out
    assert "sonnet-4.6  FSM            8 x 200 accounts  spend $426.08 [$426.08-$426.08]" in out
    # 85.12 + 7.68 + 426.08 + 167.52; the Haiku groups up to 8 x $13.87 each
    assert "Total spend: $686.40 expected [$686.40-$815.52]" in out
    # the worst case: every session at its cap, $25 for Haiku and $150 for Sonnet (limits.yaml)
    assert "Worst case, every session at its spending cap (limits.yaml): $2,800.00 (16 x $25.00 + 16 x $150.00)" in out


def test_your_finished_sessions_are_the_basis_and_skipped(tmp_path):
    sessions = tmp_path / "sessions"
    _meta(sessions / "haiku-4.5" / "FSM" / "seed-2", cost_usd=8.0, duration_s=3000.0)
    _meta(sessions / "haiku-4.5" / "FSM" / "seed-3", cost_usd=12.0, duration_s=6000.0, seed=3)
    _meta(sessions / "haiku-4.5" / "FSM" / "seed-4", cost_usd=99.0, seed=4, voided=True, status="infrastructure_failure")
    result = _invoke("--models", "haiku-4.5", "--conditions", "FSM", "--seeds", "2-6", "--sessions", str(sessions))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "skip   haiku-4.5/FSM/seed-2 (completed: finished)" in out
    assert "skip   haiku-4.5/FSM/seed-4 (infrastructure_failure: voided, rerun with --rerun-voided)" in out
    assert "2 session(s) to run, 3 to skip" in out
    # two finished sessions ($8 and $12; 50 and 100 min) for the two to run: mean $10, range $8-$12 each
    assert "haiku-4.5  FSM            2 x 200 accounts  spend $20.00 [$16.00-$24.00]  wall 2.5 h [1.7 h-3.3 h]" in out
    assert "basis: your 2 finished session(s) of haiku-4.5 / FSM" in out
    assert json.loads((sessions / "haiku-4.5" / "FSM" / "seed-2" / "meta.json").read_text())["cost_usd"] == 8.0


def test_a_model_without_list_prices_or_a_basis_is_unknown(tmp_path):
    result = _invoke("--models", "qwen3.8-flash", "--conditions", "FSM", "--seeds", "2", "--base-url",
                     "http://127.0.0.1:9", "--sessions", str(tmp_path / "s"))
    assert result.exit_code == 0, result.output
    assert "spend unknown" in result.output and "has no list prices" in result.output
    assert "Total spend: unknown" in result.output


def test_a_bad_input_is_still_refused(tmp_path):
    result = _invoke("--models", "haiku-4.5", "--conditions", "NoSuchCondition", "--seeds", "2",
                     "--sessions", str(tmp_path / "s"))
    assert result.exit_code == 2 and "NoSuchCondition" in result.output


def test_the_models_beside_the_agent_are_named_with_their_prices_and_in_the_cap(tmp_path):
    """A τ²-bench study's customer and judge are priced, in each session's cost and its cap, and
    the dry run says so (issue 49, item 2): the finished sessions' costs it scales include them."""
    sessions = tmp_path / "sessions"
    _meta(sessions / "tau2-retail" / "gpt-5.4-mini" / "Control" / "task-01", model="gpt-5.4-mini", condition="Control",
          seed=1, accounts=1, cost_usd=0.30, duration_s=120.0, runtime="codex", study="tau2-retail", family="tau2")
    result = _invoke("--study", "tau2-retail", "--models", "gpt-5.4-mini", "--conditions", "Control", "--seeds", "1-3",
                     "--sessions", str(sessions))
    assert result.exit_code == 0, result.output
    out = result.output
    assert "gpt-5.4-mini on Codex CLI  Control        2 x   1 task      spend $0.60 [$0.60-$0.60]" in out
    assert ("beside the agent: customer gpt-5.4-mini ($0.75 in / $4.5 out per Mtok); judge gpt-5.4-mini "
            "($0.75 in / $4.5 out per Mtok): in each session's cost and cap") in out
    assert ("Worst case, every session at its spending cap (limits.yaml): $6.00 (2 x $3.00); the cap counts every "
            "model a session calls, and a judge asked below it may pass it by its one call") in out
    simulated = _invoke("--study", "tau2-telecom", "--models", "sim:oracle", "--conditions", "FSM", "--seeds", "1",
                        "--sessions", str(sessions))
    assert "beside the agent: customer the simulator ($1 in / $5 out per Mtok)" in simulated.output   # no judge
