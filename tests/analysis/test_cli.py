"""The commands as users run them: same bytes every run, clear refusals, SIMULATED titles."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from analysis.corpus import write_session
from study.protocol.plan import load_plan
from analysis.render import Cell, Column, Table, render

from .conftest import HAIKU, run


def test_tables_twice_give_identical_bytes(corpus_dir, tmp_path):
    root, _ = corpus_dir
    outs = []
    for name in ("a", "b"):
        result = run("tables", "--sessions", root, "--format", "md", "--format", "csv",
                     "--format", "tex", "--out", tmp_path / name)
        assert result.exit_code == 0, result.output
        outs.append({p.name: p.read_bytes() for p in sorted((tmp_path / name).iterdir())})
    assert outs[0] == outs[1]
    assert sorted(outs[0]) == sorted([f"table{n}.{f}" for n in (1, 2, 6, 7, 8) for f in ("md", "csv", "tex")]
                                     + ["exclusions.csv", "exclusions.md"])
    assert outs[0]["table1.md"].startswith(b"**Table 1: SIMULATED")
    assert b"\\textbf{" in outs[0]["table1.tex"] and b"\\underline{" in outs[0]["table1.tex"]


def test_simulated_and_real_sessions_are_not_mixed_unless_allowed(tmp_path):
    root = tmp_path / "sessions"
    write_session(root / HAIKU / "FSM" / "seed-2", model=HAIKU, condition="FSM", seed=2,
                  episodes=["fc"] * 10, accounts=10)
    real = root / HAIKU / "Plain" / "seed-2"
    write_session(real, model=HAIKU, condition="Plain", seed=2, episodes=["blind"] * 10, accounts=10)
    for name in ("events.jsonl", "meta.json"):   # a log a CLI wrote (a generated one is simulated by what it is)
        path = real / name
        path.write_text(path.read_text().replace('"simulated": true', '"simulated": false')
                        .replace('"cli_version": "none"', '"cli_version": "2.1.332"'))
    refused = run("tables", "--sessions", root)
    assert refused.exit_code == 2
    assert "1 simulated and 1 real sessions" in refused.output and "--allow-simulated" in refused.output
    allowed = run("tables", "--sessions", root, "--allow-simulated")
    assert allowed.exit_code == 0, allowed.output
    titles = [line for line in allowed.output.splitlines() if line.startswith("**Table")]
    assert len(titles) == 5 and all("SIMULATED" in t for t in titles)
    (root / HAIKU / "FSM").rename(tmp_path / "elsewhere")
    real_only = run("tables", "--sessions", root)
    assert real_only.exit_code == 0 and "SIMULATED" not in real_only.output


def test_two_sessions_for_one_cell_are_refused(tmp_path):
    root = tmp_path / "sessions"
    for name in ("seed-2", "seed-2-rerun"):
        write_session(root / HAIKU / "FSM" / name, model=HAIKU, condition="FSM", seed=2,
                      episodes=["fc"] * 5, accounts=5)
    result = run("tables", "--sessions", root)
    assert result.exit_code == 1 and "two analysable sessions for model haiku-4.5, condition FSM, seed 2" in result.output
    missing = run("tables", "--sessions", tmp_path / "nowhere")
    assert missing.exit_code == 2 and "nowhere: no such folder. Pass the sessions folder with --sessions" in missing.output


def test_amendments_are_listed_under_the_tables(tmp_path):
    root = tmp_path / "project"
    write_session(root / "sessions" / HAIKU / "FSM" / "seed-2", model=HAIKU, condition="FSM",
                  seed=2, episodes=["fc"] * 5, accounts=5)
    (root / "preregistration").mkdir()
    shutil.copy(load_plan().path, root / "preregistration" / "predictions.yaml")
    shutil.copy(load_plan().path.with_name("conditions.yaml"), root / "preregistration")  # the row order
    (root / "preregistration" / "amendments.jsonl").write_text(json.dumps(
        {"n": 1, "time": "2026-01-02T03:04:05Z", "reason": "count decisions for another account",
         "files": [{"path": "analysis/scoring.py", "old_sha256": "a", "new_sha256": "b"}]}) + "\n")
    result = run("tables", env={"STUDY_ROOT": str(root)})
    assert result.exit_code == 0, result.output
    line = ("- Amendment 1 (2026-01-02T03:04:05Z): count decisions for another account "
            "[analysis/scoring.py]")
    assert result.output.count(line) == 5


def test_score_prints_one_sessions_metrics(tmp_path):
    d = tmp_path / "s"
    exp = write_session(d, model=HAIKU, condition="Remind-loop", seed=3,
                        episodes=["fc", "blind", "batch", "fc", "wrong"], accounts=5,
                        stops_at={1: 2}, remark_at=2, cost_usd=2.5)
    data = json.loads(run("score", d, "--json").output)
    assert (data["fc"], data["decided"], data["correct"], data["cost_usd"]) == (exp.fc, 5, exp.correct, 2.5)
    assert data["routes"] == exp.routes and data["routes"]["ends_turn"] == 2
    text = run("score", d).output
    assert text.startswith("SIMULATED session haiku-4.5 / Remind-loop / seed 3: status completed")
    assert "ends_turn=2" in text and "turns that did end: 2" in text
    assert "cost $2.50 (simulated, priced as claude-haiku-4-5)" in text     # models.yaml's simulator model
    assert "  FC per window: 1-5: " in text


def test_score_names_a_folder_without_a_log(tmp_path):
    result = run("score", tmp_path)
    assert result.exit_code == 2 and "no session log here" in result.output


def test_predictions_and_figures_commands(corpus_dir, tmp_path):
    root, _ = corpus_dir
    result = run("predictions", "--sessions", root, "--format", "csv")
    assert result.exit_code == 0, result.output
    title, header = result.stdout.splitlines()[:2]
    assert title.startswith("# Table 6: SIMULATED") and header == "Section,Prediction,Observed,Verdict"
    result = run("figures", "--sessions", root, "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{n}.{e}" for n in ("figure1", "fc_windows", "routes_heatmap") for e in ("png", "pdf"))
    bad = run("figures", "--sessions", root, "--out", tmp_path, "--model", "nobody")
    assert bad.exit_code == 4 and "model 'nobody' has no analysable sessions; choose one of haiku-4.5, sonnet-4.6" in bad.output
    bad = run("figures", "--sessions", root, "--out", tmp_path, "--model", "sonnet-4.6", "--seed", "2")
    assert bad.exit_code == 4 and "no analysable session of sonnet-4.6 on seed 2; it has seeds 13, 14, 15" in bad.output


def test_latex_marks_best_bold_and_second_underlined_per_model():
    t = Table(9, "t", "Model", [Column("Condition"), Column("FC", emphasis=True)])
    for group, cond, fc in (("A", "x", 1.0), ("A", "y", 3.0), ("A", "z", 2.0), ("B", "x", 5.0), ("B", "y", 4.0)):
        t.rows.append((group, [Cell(cond), Cell(f"{fc:.1f}", (fc,), fc)]))
    tex = render(t, "tex")
    body = tex.split("\\midrule\n", 1)[1].split("\\bottomrule")[0]
    heading = "\\multicolumn{2}{@{}>{\\raggedright\\arraybackslash}p{\\linewidth}@{}}{\\textit{%s}} \\\\"
    assert body.splitlines() == [heading % "A", "x & 1.0 \\\\", "y & \\textbf{3.0} \\\\",
                                 "z & \\underline{2.0} \\\\", "\\midrule",
                                 heading % "B", "x & \\textbf{5.0} \\\\", "y & \\underline{4.0} \\\\"]
    assert "Best value per model in bold, second best underlined.\\par" in tex
    md = render(t, "md")
    assert "| A | y | **3.0** |" in md and "| A | z | <u>2.0</u> |" in md
    assert "- Best value per model in bold, second best underlined." in md


def test_figures_of_simulated_sessions_default_to_their_folder_not_the_projects_figures(tmp_path, monkeypatch):
    project = tmp_path / "project"
    (project / "figures").mkdir(parents=True)
    (project / "preregistration").symlink_to(Path(__file__).resolve().parents[2] / "preregistration")
    monkeypatch.setenv("STUDY_ROOT", str(project))
    root = tmp_path / "demo"
    for condition in ("FSM", "Remind-loop"):
        write_session(root / HAIKU / condition / "seed-2", model=HAIKU, condition=condition, seed=2,
                      episodes=["fc"] * 10, accounts=10)
    from analysis.figures import default_out
    from analysis.tables import load_analysis
    assert default_out(load_analysis(root)) == root / "figures"
    result = run("figures", "--sessions", root)
    assert result.exit_code == 0, result.output
    assert list((project / "figures").iterdir()) == []
    assert len(list((root / "figures").glob("*.png"))) == 3
