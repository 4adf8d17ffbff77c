"""The end-of-run summary names every session that needs a look, with the command to inspect it."""

from __future__ import annotations

from study.runner.matrix import MatrixResult
from study.runner.summary import format_summary
from study.session_io.meta import write_meta


def _session(root, name, status, *, decisions, cost, simulated=True, **extra):
    folder = root / "sim-oracle" / name / "seed-2"
    folder.mkdir(parents=True)
    write_meta(folder, {"status": status, "decisions": decisions, "accounts": 20, "cost_usd": cost,
                        "simulated": simulated, "model_id": "claude-haiku-4-5", **extra})
    return folder


def test_the_summary_names_sessions_with_accounts_left_a_limit_or_voided_with_the_command_to_inspect_each(tmp_path):
    ok = _session(tmp_path, "Plain", "completed", decisions=20, cost=0.4)
    left = _session(tmp_path, "Sys", "ended_with_accounts_left", decisions=3, cost=0.1)
    limit = _session(tmp_path, "FSM", "limit:spending", decisions=8, cost=25.0)
    voided = _session(tmp_path, "Remind", "infrastructure_failure", decisions=5, cost=0.5, voided=True,
                      void_reason="API error 529: overloaded\nTraceback ...")
    result = MatrixResult(ran=[(ok, "completed"), (left, "ended_with_accounts_left"), (limit, "limit:spending"),
                               (voided, "infrastructure_failure")],
                          skipped=[(tmp_path / "sim-oracle" / "Gates-only" / "seed-2", "completed")],
                          errors=[(tmp_path / "sim-oracle" / "Stop-only" / "seed-2", "BrokenProcessPool: gone")])
    assert format_summary(result, tmp_path).splitlines() == [
        "ran 4 session(s): 1 completed, 1 ended_with_accounts_left, 1 infrastructure_failure, 1 limit:spending; "
        "cost $26.00 (simulated, priced as claude-haiku-4-5)",
        "1 ended with accounts left:",
        "  sim-oracle/Sys/seed-2  (ended_with_accounts_left, 3/20 decided)",
        f"      inspect: study score {left}",
        "1 hit a limit:",
        "  sim-oracle/FSM/seed-2  (limit:spending, 8/20 decided)",
        f"      inspect: study score {limit}",
        "1 voided (kept, never analysed; rerun with --rerun-voided):",
        "  sim-oracle/Remind/seed-2  (infrastructure_failure, 5/20 decided, API error 529: overloaded)",
        f"      inspect: study score {voided}",
        "1 worker error(s) (the sessions show as unfinished; rerun with --rerun-voided):",
        "  sim-oracle/Stop-only/seed-2: BrokenProcessPool: gone",
        f"      inspect: study score {tmp_path / 'sim-oracle' / 'Stop-only' / 'seed-2'}",
        "skipped 1 session(s) this run did not start (the reason follows each):",
        "  sim-oracle/Gates-only/seed-2: completed",
    ]


def test_real_and_simulated_costs_are_never_summed_into_one_figure(tmp_path):
    real = _session(tmp_path, "Plain", "completed", decisions=20, cost=2.5, simulated=False)
    sim = _session(tmp_path, "Sys", "completed", decisions=20, cost=0.4)
    head = format_summary(MatrixResult(ran=[(real, "completed"), (sim, "completed")]), tmp_path).splitlines()[0]
    assert head == "ran 2 session(s): 2 completed; cost $2.50; cost $0.40 (simulated, priced as claude-haiku-4-5)"
    alone = format_summary(MatrixResult(ran=[(real, "completed")]), tmp_path)
    assert alone == "ran 1 session(s): 1 completed; cost $2.50"


def test_the_summary_counts_sessions_per_task_when_they_are_of_more_than_one(tmp_path):
    referral = _session(tmp_path, "Plain", "completed", decisions=20, cost=0.4)
    goods = [_session(tmp_path / "tasks" / "dangerous_goods", c, "completed", decisions=20, cost=0.1,
                      task="dangerous_goods") for c in ("Plain", "FSM")]
    lines = format_summary(MatrixResult(ran=[(f, "completed") for f in (referral, *goods)]), tmp_path).splitlines()
    assert lines == ["ran 3 session(s): 3 completed; cost $0.60 (simulated, priced as claude-haiku-4-5)",
                     "by task: referral_abuse_detection_v2 1, dangerous_goods 2"]
    only = format_summary(MatrixResult(ran=[(goods[0], "completed")]), tmp_path).splitlines()
    assert only[1:] == ["task: dangerous_goods"]
