"""The limits are external: through the real CLI against the simulator, the model is never told
about a spending cap or a turn limit (it does get Claude Code's default token reminder), and the
runner's running price of the stream is the CLI's own cost figure."""

from __future__ import annotations

import json
import re

import pytest

from study.runner.session import SessionSpec, run_session
from study.session_io.reader import log_events

pytestmark = pytest.mark.e2e


def test_the_model_never_sees_a_budget_or_turn_limit_and_the_stream_is_priced_as_the_cli_prices_it(tmp_path):
    requests = tmp_path / "requests.jsonl"
    folder = run_session(SessionSpec(condition="Remind-loop", seed=2, model="sim:oracle", accounts=2,
                                     out_root=tmp_path / "sessions", sim_options={"request_log": requests}))
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["status"] == "completed" and meta["token_reminder"] == "default"
    seen = requests.read_text() + (folder / "transcript.jsonl").read_text()
    assert len(requests.read_text().splitlines()) > 10
    assert "USD budget" not in seen
    assert not re.search(r"(?i)turns? (left|remaining|used)|max[_ ]turns", seen)
    assert "tokens left</total_tokens>" in seen  # Claude Code's default token reminder is kept
    (call,) = [e for e in log_events(folder / "events.jsonl") if e["kind"] == "call_end"]
    # both are rounded to 6 decimals, each from its own sum: they may differ by that last unit (the
    # usage, and so the rounding, depends on the session's paths, e.g. a pytest-xdist worker's folder)
    assert call["cost_usd"] > 0 and call["priced_usd"] == pytest.approx(call["cost_usd"], rel=1e-6, abs=1.5e-6)
    assert meta["cost_complete"] is True and meta["cost_estimated_usd"] == 0


def test_a_tiny_spending_cap_ends_a_simulated_session(tmp_path):
    folder = run_session(SessionSpec(condition="FSM", seed=2, model="sim:oracle", accounts=2,
                                     out_root=tmp_path, limit_overrides={"spending_usd": 0.01}))
    meta = json.loads((folder / "meta.json").read_text())
    assert meta["status"] == "limit:spending" and meta["decisions"] < 2 and meta["voided"] is False
    assert 0.01 <= meta["cost_usd"] < 0.02
