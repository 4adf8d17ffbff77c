"""Empty results said clearly: notes under empty tables and rows, window headers that follow the
batch size, the exclusion list printed once, exit code 4 when nothing is analysable, and
sessions of different batch sizes kept apart (issue 13, issue 14)."""

from __future__ import annotations

import csv
import io

from analysis.corpus import write_session

from .conftest import HAIKU, run


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))


def test_only_exploratory_sessions_exit_4_saying_why_and_what_to_do(tmp_path):
    root = tmp_path / "sessions"
    for seed in (2, 3):
        write_session(root / "exploratory" / HAIKU / "FSM" / f"seed-{seed}-first-10", model=HAIKU,
                      condition="FSM", seed=seed, episodes=["fc"] * 10, accounts=10, exploratory=True)
    for command in ("tables", "predictions", "figures"):
        result = run(command, "--sessions", root, "--out", tmp_path / command)
        assert result.exit_code == 4, (command, result.output)
        lines = result.output.splitlines()
        # the exclusion list once, with its reasons, then one line saying why and what to do
        assert lines.count("Excluded 2 sessions:") == 1
        assert f"  exploratory/{HAIKU}/FSM/seed-2-first-10: exploratory (pass --include-exploratory to add it)" in lines
        assert lines[-1] == (f"Error: no analysable session under {root} (2 excluded, listed with their reasons); "
                             "2 are exploratory or on the development seed: pass --include-exploratory to add them.")
        assert not (tmp_path / command).exists()
    result = run("tables", "--sessions", root, "--include-exploratory", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert "Excluded" not in result.output


def test_empty_tables_and_rows_say_why_and_windows_follow_the_batch(tmp_path):
    root = tmp_path / "sessions"
    for condition in ("Remind-loop", "FSM"):
        for seed in (2, 3):
            write_session(root / "sim:drifting" / condition / f"seed-{seed}", model="sim:drifting",
                          condition=condition, seed=seed, episodes=["fc"] * 20, accounts=20)
    result = run("tables", "--sessions", root)
    assert result.exit_code == 0, result.output
    notes = result.stderr.splitlines()
    assert notes[:-1] == [
        "note: Table 2 is empty: no session of an ablation variant (Stop-only, Gates-only) of Claude Haiku 4.5 "
        "on the ablation's seeds (2-4), nor of a model the plan does not name."]
    assert notes[-1].startswith("note: these numbers are unaudited until `study audit --sessions ")   # no audit ran
    md = result.stdout
    assert "| Model | Condition | FC | FC 1-20 | Compliance |" in md          # not "FC 1-50"
    assert ("- No rows: no session of an ablation variant (Stop-only, Gates-only) of Claude Haiku 4.5 on the "
            "ablation's seeds (2-4), nor of a model the plan does not name.") in md
    assert ("- Not evaluable: a prediction whose sessions or seeds are missing (its Observed column says which). "
            "No analysable session of Claude Haiku 4.5, Claude Sonnet 4.6, Qwen3.8-flash; the plan's predictions "
            "are not about sim:drifting.") in md
    # one model-label convention: the label alone, the seeds in the Seeds column and the note
    assert "| sim:drifting | FSM |" in md and "(2 seeds)" not in md and "(seeds 2, 3)" not in md
    assert md.count("- Seeds: sim:drifting 2-3.") == 3                        # Tables 1, 7, 8


def test_sessions_of_different_batch_sizes_are_different_sessions(tmp_path):
    """The demo's seed-2-first-10 and seed-2-first-20 are two sessions, not duplicates."""
    root = tmp_path / "demo"
    for accounts, episodes in ((10, ["fc"] * 10), (20, ["blind"] * 20)):
        for condition in ("Remind-loop", "FSM"):
            write_session(root / "exploratory" / "sim-drifting" / condition / f"seed-2-first-{accounts}",
                          model="sim:drifting", condition=condition, seed=2, episodes=episodes,
                          accounts=accounts, exploratory=True)
    result = run("tables", "--sessions", root, "--include-exploratory", "--format", "csv")
    assert result.exit_code == 0, result.output
    table1 = csv_rows(result.stdout.split("# Table 2")[0])
    assert [(r["Model"], r["Condition"], r["FC"], r["Seeds"]) for r in table1] == [
        ("sim:drifting", "Remind-loop", "0", "1"), ("sim:drifting", "FSM", "0", "1"),
        ("sim:drifting, first 10 accounts", "Remind-loop", "10", "1"),
        ("sim:drifting, first 10 accounts", "FSM", "10", "1")]
    assert list(table1[0])[4:6] == ["FC 1-20", "Compliance"]


def test_a_row_without_a_cost_says_why(tmp_path):
    root = tmp_path / "sessions"
    write_session(root / "qwen3.8-flash" / "FSM" / "seed-2", model="qwen3.8-flash", condition="FSM", seed=2,
                  episodes=["fc"] * 5, accounts=5, cost_usd=None)
    result = run("tables", "--sessions", root)
    assert result.exit_code == 0, result.output
    table1 = result.stdout.split("**Table 2")[0]
    assert "| Qwen3.8-flash | FSM | 5.0 | 5.0 | 100.0% | 5.0 | 5.0 | 5.0 | - | 1 |" in table1
    assert "- Cost -: no cost recorded for a session of the row (a model without list prices" in table1
