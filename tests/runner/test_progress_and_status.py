"""The progress read from a growing log, and the status table (size on disk, simulated cost
wording), from session folders alone. The live display has its own tests (test_display.py)."""

from __future__ import annotations

import json

from study.session_io.meta import runner_identity, write_meta
from study.runner.progress import LogProgress
from study.runner.status import format_table, human_size, scan
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


def test_status_shows_each_sessions_size_on_disk_and_prices_simulated_costs_as_the_model_stood_in_for(tmp_path):
    folder = _session(tmp_path, "Plain", decided=["A", "B", "C", "D"], cost=0.25, status="completed", ended=True)
    (folder / "transcript.jsonl").write_bytes(b"x" * 1_500_000)
    (folder / "home").mkdir()
    (folder / "home" / "link.jsonl").symlink_to("../transcript.jsonl")   # the CLI's path: counted once
    write_meta(folder, {**json.loads((folder / "meta.json").read_text()), "model_id": "claude-haiku-4-5"})
    on_disk = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
    [row] = scan(tmp_path)
    assert row.size_bytes == on_disk and 1_500_000 < on_disk < 1_510_000
    table = format_table([row])
    line = next(x for x in table.splitlines() if x.startswith("Plain"))
    assert "  1.5 MB  " in line and "simulated, priced as claude-haiku-4-5" in line
    assert "on disk: 1.5 MB; cost of simulated sessions $0.25 (simulated, priced as claude-haiku-4-5)" in table
    assert [human_size(n) for n in (0, 999, 1000, 17_250_000, 3_000_000_000)] == ["0 B", "999 B", "1.0 kB", "17.2 MB",
                                                                                    "3.0 GB"]


def test_status_groups_sessions_of_several_tasks_in_a_task_column_and_counts_each(tmp_path):
    _session(tmp_path, "Plain", decided=["A", "B", "C", "D"], cost=0.25, status="completed", ended=True)
    other = _session(tmp_path / "tasks" / "dangerous_goods", "FSM", decided=["A"], cost=0.1, status="completed",
                     ended=True)
    write_meta(other, {**json.loads((other / "meta.json").read_text()), "task": "dangerous_goods"})
    _session(tmp_path, "Sys", decided=["A"], cost=0.1, status="completed", ended=True)
    rows = scan(tmp_path)
    assert [(r.path, r.task) for r in rows] == [("Plain", "referral_abuse_detection_v2"),
                                                ("Sys", "referral_abuse_detection_v2"),
                                                ("tasks/dangerous_goods/FSM", "dangerous_goods")]
    table = format_table([rows[2], rows[0], rows[1]]).splitlines()
    assert table[0].split() == ["session", "task", "status", "decided", "cost", "$", "time", "size", "notes"]
    assert [line.split()[:2] for line in table[1:4]] == [["Plain", "referral_abuse_detection_v2"],
                                                          ["Sys", "referral_abuse_detection_v2"],
                                                          ["tasks/dangerous_goods/FSM", "dangerous_goods"]]
    assert "by task: referral_abuse_detection_v2 2, dangerous_goods 1" in table
    one_task = format_table(rows[:2]).splitlines()
    assert one_task[0].split()[:2] == ["session", "status"] and not any("task" in line for line in one_task)
    assert "task: dangerous_goods" in format_table(rows[2:]).splitlines()
