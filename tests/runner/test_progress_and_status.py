"""The live progress display and the status table, from session folders alone."""

from __future__ import annotations

import io

from study.session_io.meta import runner_identity, write_meta
from study.runner.progress import ProgressDisplay
from study.runner.status import LogProgress, format_table, scan
from study.session_io.writer import EventLog


def _session(root, name, *, decided, cost, status="running", ended=False):
    folder = root / name
    folder.mkdir(parents=True)
    write_meta(folder, {"status": status, "runner": runner_identity(), "model": "sim:oracle", "condition": name,
                        "seed": 2, "accounts": 4, "cost_usd": cost, "decisions": len(decided), "duration_s": 60.0,
                        "voided": status == "infrastructure_failure", "simulated": True, "exploratory": True})
    with EventLog(folder / "events.jsonl") as log:
        log.emit("session_start", schema=1, condition=name, seed=2, model="sim:oracle", simulated=True,
                 manifest_sha256="unchecked", code_version="x", cli_version="2.1.332", order=["A", "B", "C", "D"],
                 limits={})
        for account in decided:
            log.emit("tool_call", server="sopbench", tool="submit_decision", args={}, account=account,
                     allowed=True, ok=True, state=None, result="{}")
        log.emit("tool_call", server="sopbench", tool="submit_decision", args={}, account="Z",
                 allowed=False, ok=False, state="S_investigate", error="refused")
        log.emit("call_end", n=0, cost_usd=cost, session_cost_usd=cost)
        if ended:
            log.emit("session_end", status=status, cost_usd=cost, turns=3, duration_s=60.0)
    return folder


def test_progress_shows_sessions_done_decisions_of_each_running_session_and_cost(tmp_path):
    running = _session(tmp_path, "FSM", decided=["A", "B"], cost=0.5)
    done = _session(tmp_path, "Plain", decided=["A", "B", "C", "D"], cost=0.25, status="completed", ended=True)
    queued = tmp_path / "Sys"  # not started yet
    out = io.StringIO()
    display = ProgressDisplay([running, done, queued], tmp_path, stream=out)
    display.finished(done, "completed")
    display.refresh(force=True)
    text = out.getvalue()
    assert "sessions: 1/3 done, 1 running, 1 queued; cost so far $0.75" in text
    assert "FSM: 2/4 decided, $0.50" in text and "Plain:" not in text
    # the log is read incrementally: a new decision shows at the next refresh
    with EventLog(running / "events.jsonl") as log:
        log.emit("tool_call", server="sopbench", tool="submit_decision", args={}, account="C",
                 allowed=True, ok=True, state=None, result="{}")
    assert "FSM: 3/4 decided" in display.render()


def test_log_progress_ignores_a_torn_last_line(tmp_path):
    folder = _session(tmp_path, "Remind", decided=["A"], cost=0.1)
    with open(folder / "events.jsonl", "a") as fh:
        fh.write('{"seq": 99, "kind": "tool_call", "tool": "submit_de')  # a crash mid-write
    progress = LogProgress(folder).update()
    assert progress.decisions == 1


def test_status_lists_every_session_with_voided_and_unfinished_ones_marked(tmp_path):
    _session(tmp_path, "Plain", decided=["A", "B", "C", "D"], cost=0.25, status="completed", ended=True)
    _session(tmp_path, "Sys", decided=["A"], cost=0.1, status="infrastructure_failure", ended=True)
    dead = _session(tmp_path, "FSM", decided=["A", "B"], cost=0.5)
    write_meta(dead, {"status": "running", "runner": {**runner_identity(), "pid_start": "1"}, "model": "sim:oracle",
                      "condition": "FSM", "seed": 2, "accounts": 4})
    (tmp_path / "FSM" / "attempt-1").mkdir()
    (tmp_path / "FSM" / "attempt-1" / "meta.json").write_text('{"status": "infrastructure_failure"}')
    rows = {r.condition: r for r in scan(tmp_path)}
    assert set(rows) == {"Plain", "Sys", "FSM"}  # the attempt copy is not a session of its own
    assert (rows["FSM"].status, rows["FSM"].decisions, rows["FSM"].attempts) == ("unfinished", 2, 1)
    assert rows["Sys"].voided and rows["Plain"].status == "completed"
    table = format_table(list(rows.values()))
    assert "VOIDED" in table and "runner gone" in table and "1 earlier attempt(s) kept" in table
    assert "3 session(s): 1 completed, 1 infrastructure_failure, 1 unfinished" in table


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_block_is_redrawn_in_place(tmp_path):
    running = _session(tmp_path, "FSM", decided=["A"], cost=0.5)
    term = _Terminal()
    display = ProgressDisplay([running], tmp_path, stream=term)
    display.refresh()
    display.refresh()
    first, second = term.getvalue().split("\x1b[2F\x1b[J")  # up two lines (head + 1 running), clear
    assert first == second and "FSM: 1/4 decided" in first
