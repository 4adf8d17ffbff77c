"""The matrix against the built-in simulator through the real CLI: parallel sessions share
nothing, finished sessions are skipped, a killed runner's session shows as unfinished and is
rerun by --rerun-voided with the earlier attempt kept, a forced compaction is survived, and every
condition runs with a well-formed log.

(The simulator's forced faults void a session as an infrastructure failure through the same
runner and CLI in tests/sim/test_acceptance_e2e.py; the void reason names the HTTP status in
test_limits_and_errors_e2e.py; a voided session is VOIDED in ``study status``'s table in
test_progress_and_status.py.)"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime
from pathlib import Path

import pytest

from study.runner.matrix import run_matrix
from study.runner.summary import format_summary
from study.runner.session import SessionSpec, run_session
from study.runner.status import format_table, scan
from study.session_io.reader import log_events

from ..agent_paths import assert_the_model_saw_no_session_name

pytestmark = pytest.mark.e2e


def _t(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_two_parallel_sessions_share_no_home_state_or_server_and_finished_ones_are_skipped(tmp_path):
    logs = [tmp_path / "requests-1.jsonl", tmp_path / "requests-2.jsonl"]
    specs = [SessionSpec(condition="FSM", seed=2, model="sim:oracle", accounts=2, out_root=tmp_path,
                         sim_options={"request_log": str(logs[0])}),
             SessionSpec(condition="Remind-loop", seed=3, model="sim:oracle", accounts=2, out_root=tmp_path,
                         sim_options={"request_log": str(logs[1])})]
    out = io.StringIO()
    result = run_matrix(specs, jobs=2, stream=out, refresh_s=0.2)
    assert sorted(s for _, s in result.ran) == ["completed", "completed"] and not result.errors
    dirs = [d for d, _ in result.ran]
    metas = [json.loads((d / "meta.json").read_text()) for d in dirs]
    starts = [log_events(d / "events.jsonl")[0] for d in dirs]
    # they ran at the same time, in different processes, against different simulators
    (s1, e1), (s2, e2) = [(_t(m["started"]), _t(m["ended"])) for m in metas]
    assert s1 < e2 and s2 < e1
    assert metas[0]["runner"]["pid"] != metas[1]["runner"]["pid"]
    assert starts[0]["base_url"] != starts[1]["base_url"]
    assert all(m["simulated"] for m in metas)
    # each CLI had its own HOME and working directory (its transcript names its own cwd), in a folder
    # of its own whose path names nothing of the session (the model sees it: issue 49, item 5), moved
    # into the session folder once the session ended
    shown = []
    for d in dirs:
        log = logs[0] if d.parent.name == "FSM" else logs[1]
        cwds = {json.loads(line).get("cwd") for line in (d / "transcript.jsonl").read_text().splitlines()} - {None}
        assert len(cwds) == 1 and Path(next(iter(cwds))).parent.parent == tmp_path / ".agents"
        seen = assert_the_model_saw_no_session_name(log.read_text(encoding="utf-8"), tmp_path, d)
        assert next(iter(cwds)) in seen and (d / "work").is_dir() and not (d / "work").is_symlink()
        shown.append(cwds)
    assert shown[0] != shown[1] and not (tmp_path / ".agents").exists()
    # each session's tool state holds its own batch only
    for d, start in zip(dirs, starts):
        decided = [json.loads(line)["account_id"] for line in (d / "tools" / "decisions.jsonl").read_text().splitlines()]
        assert sorted(decided) == sorted(start["order"])
    # the display printed plain lines (not a terminal): each session ended, and the totals
    shown = out.getvalue()
    assert "\x1b" not in shown and "matrix: 2/2 done, 0 running, 0 queued; decided 4/4; spend $" in shown
    assert all(f"{d.relative_to(tmp_path)}: ended completed: 2/2 decided" in shown for d in dirs)
    assert "ran 2 session(s): 2 completed" in format_summary(result)
    # running the same matrix again skips the finished sessions
    again = run_matrix(specs, jobs=2, stream=io.StringIO())
    assert not again.ran and [w for _, w in again.skipped] == ["completed", "completed"]


def _start_killable_session(out_root: Path, accounts: int) -> subprocess.Popen:
    code = textwrap.dedent(f"""
        from pathlib import Path
        from study.runner.session import SessionSpec, run_session
        run_session(SessionSpec(condition="Remind", seed=4, model="sim:oracle", accounts={accounts},
                                out_root=Path({str(out_root)!r})))
    """)
    with open(out_root / "runner-stderr.txt", "wb") as stderr:
        return subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=stderr)


def _wait_for_first_decision(runner: subprocess.Popen, events: Path, stderr_file: Path) -> None:
    """Wait until the session's log holds a submit_decision call (read line by line as it grows).
    Fails at once if the runner exits first; the deadline only bounds a hung runner."""
    deadline = time.monotonic() + 600
    offset, partial = 0, b""
    while True:
        if events.exists():
            with open(events, "rb") as fh:
                fh.seek(offset)
                chunk = fh.read()
            offset += len(chunk)
            *lines, partial = (partial + chunk).split(b"\n")
            if any(json.loads(line).get("tool") == "submit_decision" for line in lines if line.strip()):
                return
        if runner.poll() is not None:
            stderr = stderr_file.read_text(errors="replace")[-2000:]
            pytest.fail(f"the runner exited (code {runner.returncode}) before its log ({events}) held a "
                        f"submit_decision call; its stderr ends:\n{stderr}")
        if time.monotonic() > deadline:
            pytest.fail(f"no submit_decision call in {events} after 600 s: the runner or its CLI hangs")
        time.sleep(0.05)


def test_a_killed_runner_leaves_an_unfinished_session_that_rerun_voided_redoes(tmp_path):
    accounts = 3
    runner = _start_killable_session(tmp_path, accounts)
    session = tmp_path / "exploratory" / "sim-oracle" / "Remind" / f"seed-4-first-{accounts}"
    try:
        _wait_for_first_decision(runner, session / "events.jsonl", tmp_path / "runner-stderr.txt")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(runner.pid, signal.SIGKILL)  # the runner and the CLI it started, mid-session
    runner.wait()
    [row] = scan(tmp_path)
    assert row.status == "unfinished" and 1 <= row.decisions < accounts
    assert "runner gone" in format_table([row])

    spec = SessionSpec(condition="Remind", seed=4, model="sim:oracle", accounts=accounts, out_root=tmp_path)
    skipped = run_matrix([spec], stream=io.StringIO())
    assert not skipped.ran and "unfinished" in skipped.skipped[0][1] and "--rerun-voided" in skipped.skipped[0][1]

    rerun = run_matrix([spec], rerun_voided=True, stream=io.StringIO())
    assert rerun.ran == [(session, "completed")]
    kept = session / "attempt-1"
    kept_meta = json.loads((kept / "meta.json").read_text())
    assert (kept / "events.jsonl").exists() and (kept_meta["status"], kept_meta["voided"]) == ("unfinished", True)
    [row] = scan(tmp_path)
    assert (row.status, row.decisions, row.attempts) == ("completed", accounts, 1)
    # the rerun started from scratch: its own log and tool state, not the killed attempt's
    events = log_events(session / "events.jsonl")
    assert events[0]["kind"] == "session_start" and [e["kind"] for e in events].count("session_start") == 1


@pytest.mark.parametrize("mode", ["usage"])
def test_a_compaction_is_logged_and_the_session_goes_on(tmp_path, mode):
    """A compaction forced by the simulator is logged and the session goes on; the usage mode needs
    the simulator's CLI environment (CLAUDE_CODE_AUTO_COMPACT_WINDOW), which is merged into the
    CLI's and recorded. (The default mode, an HTTP 400, through the same runner and CLI:
    tests/sim/test_acceptance_e2e.py's compaction in the middle of an FSM session; no session
    without a forced compaction has the window set: the every-condition test below.)"""
    session = run_session(SessionSpec(condition="FSM", seed=2, model="sim:oracle", accounts=3, out_root=tmp_path,
                                      sim_options={"compact_after": 1, "compact_mode": mode}))
    events = log_events(session / "events.jsonl")
    window = json.loads((session / "meta.json").read_text())["cli_settings"].get("CLAUDE_CODE_AUTO_COMPACT_WINDOW")
    assert window == ("200000" if mode == "usage" else None) and events[0]["cli_settings"].get("CLAUDE_CODE_AUTO_COMPACT_WINDOW") == window
    compactions = [e for e in events if e["kind"] == "compaction"]
    assert [c["trigger"] for c in compactions] == ["auto"]
    decisions_before = sum(1 for e in events[:compactions[0]["seq"]] if e["kind"] == "tool_call"
                           and e["tool"] == "submit_decision" and e["ok"])
    assert decisions_before >= 1
    assert json.loads((session / "meta.json").read_text())["status"] == "completed"


def _condition_names() -> tuple[str, ...]:
    from study.protocol.conditions import condition_names

    return condition_names()


def test_the_matrix_has_the_nine_conditions():
    assert len(_condition_names()) == 9


#: Each condition's oracle session is the one tests/sim/test_acceptance_e2e.py scores too
#: (``shared_sim_session("oracle", condition)``: 4 accounts of seed 1, made once per worker; the
#: tests reading it share its xdist_group).
@pytest.mark.parametrize("name", [pytest.param(c, marks=pytest.mark.xdist_group(f"sim-oracle-{c}-4-1"))
                                  for c in _condition_names()])
def test_every_condition_runs_on_the_simulator_with_a_well_formed_log(shared_sim_session, kit, name):
    from study.protocol.conditions import load_conditions

    condition = load_conditions().conditions[name]
    folder = shared_sim_session("oracle", name)
    events = log_events(folder / "events.jsonl")
    kit.check_well_formed(events)
    assert events[0]["condition"] == name
    # the simulator's CLI environment is merged only where a compaction mode needs it
    settings = json.loads((folder / "meta.json").read_text())["cli_settings"]
    assert "CLAUDE_CODE_AUTO_COMPACT_WINDOW" not in settings and "CLAUDE_CODE_AUTO_COMPACT_WINDOW" not in events[0]["cli_settings"]
    assert json.loads((folder / "meta.json").read_text())["status"] == "completed", folder
    calls = [e for e in events if e["kind"] == "tool_call" and e["server"] == "sopbench"]
    reminded = [e["account"] for e in calls if e.get("reminder_attached")]
    assert sorted(reminded) == (sorted(events[0]["order"]) if condition.reminder else []), folder
    assert any(e["kind"] == "transition" for e in events) == condition.uses_fsm
