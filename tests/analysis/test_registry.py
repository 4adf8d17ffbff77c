"""One registry each: the escape routes (study/procedure/escape_routes.py) and the conditions (conditions.yaml).

Every consumer of a route reads it from the registry (the scorer's detectors, the simulator's
truth, the corpus frame, Table 8, the heatmap, the generator, the contracts page); a route added
to the registry, with its detector, shows up in Table 8 and the heatmap with nothing else edited;
the condition order of the tables, the runner and the generator is that of conditions.yaml.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import analysis
import study
from analysis import figures, scoring
from analysis.corpus import PROFILES, corpus_conditions, generate_corpus, write_session
from analysis.loading import load_corpus
from study.protocol.plan import load_plan
from analysis.render import render
from analysis.tables import Analysis, condition_order, load_analysis, table1, table8
from study.cli import main
from study.procedure.escape_routes import (ESCAPE_ROUTES, ROUTE_KEYS, TURN_ENDS_HEADER, Measure, RegistryError, TruthLine, _validate,
                                 check_detectors, contract_table, counted_routes, empty_counts, route)
from study.paths import prereg_dir, project_root
from study.protocol.conditions import condition_names, load_conditions
from study.sim import truth

from .conftest import HAIKU

#: The paper's Table 8 columns, in order (the registry must keep them).
PAPER_TABLE8 = ("ends_turn", "without_looking", "partial_data", "interleaved", "another_account",
                "first_token_remark")


def csv_rows(table) -> list[dict[str, str]]:
    text = render(table, "csv")
    return list(csv.DictReader(line for line in io.StringIO(text) if not line.startswith("#")))


def heatmap_labels(a: Analysis, out: Path, monkeypatch) -> list[str]:
    """The x labels of the heatmap's first panel, as drawn."""
    drawn: list[list[str]] = []

    def keep(fig, _out, _name):
        drawn.append([t.get_text() for t in fig.axes[0].get_xticklabels()])
        figures.plt.close(fig)
        return []

    monkeypatch.setattr(figures, "_save", keep)
    figures.routes_heatmap(a, out)
    return drawn[0]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """Two conditions, two seeds, 20 accounts: every route taken somewhere."""
    root = tmp_path_factory.mktemp("small") / "sessions"
    generate_corpus(root, models={HAIKU: ["Remind-loop", "Gates-only", "Plain"]}, seeds=[2, 3], accounts=20)
    return Analysis.build(load_corpus(root), load_plan(), tmp_path_factory.mktemp("prereg"))


# --- the registry itself ---------------------------------------------------------------------

def test_the_registry_keeps_the_papers_table8_columns_and_is_well_formed():
    assert ROUTE_KEYS == PAPER_TABLE8
    assert [r.key for r in counted_routes()] == list(PAPER_TABLE8[:-1])
    assert route("first_token_remark").measure is Measure.DECIDED_AT_FIRST
    assert empty_counts() == {**{k: 0 for k in PAPER_TABLE8[:-1]}, "first_token_remark": None}
    with pytest.raises(RegistryError, match="unknown escape route 'blind'.*ends_turn"):
        route("blind")


@pytest.mark.parametrize("broken,says", [
    (lambda rs: rs + (rs[0],), "share a key"),
    (lambda rs: rs + (replace(rs[1], key="other", header="Other", label="Other", truth_name="without_looking"),),
     r"share a truth_key: \['without_looking'\]"),
    (lambda rs: rs + (replace(rs[1], key="other", label="Other"),), r"share a header: \['Decides without looking'\]"),
    (lambda rs: (replace(rs[0], label=None),) + rs[1:], "needs a heatmap label"),
    (lambda rs: rs[:-1] + (replace(rs[-1], label="First\nremark"),), "only a count route has one"),
    (lambda rs: (replace(rs[0], truth=TruthLine.REMARK),) + rs[1:], "records a decided_at_first"),
    (lambda rs: (replace(rs[0], key="Ends turn"),) + rs[1:], "snake_case"),
    (lambda rs: rs + (replace(rs[0], key="stops", header="Stops", label="Stops"),),
     r"routes \['ends_turn', 'stops'\] all read the truth line 'stop'"),
])
def test_an_inconsistent_registry_is_refused(broken, says):
    with pytest.raises(RegistryError, match=says):
        _validate(broken(ESCAPE_ROUTES))


def test_a_consumer_whose_detectors_do_not_match_the_registry_is_refused_naming_the_routes():
    with pytest.raises(RegistryError, match=r"x.py.*missing \['first_token_remark'\].*not in the registry \['blind'\]"
                                            r".*defined twice \['ends_turn'\]"):
        check_detectors("x.py", [*PAPER_TABLE8[:-1], "ends_turn", "blind"])


# --- every consumer uses every route ---------------------------------------------------------

def test_scorer_and_simulator_have_one_detector_per_route_and_report_every_route(tmp_path):
    assert sorted([*scoring.DECISION_ROUTES, *scoring.EVENT_ROUTES]) == sorted(ROUTE_KEYS)
    assert sorted(truth.DECISION_TESTS) == sorted(r.key for r in ESCAPE_ROUTES if r.truth is TruthLine.DECISION)
    exp = write_session(tmp_path / "s", model=HAIKU, condition="FSM", seed=2, episodes=["fc"] * 3, accounts=3)
    assert list(scoring.score_session_dir(tmp_path / "s").routes) == list(ROUTE_KEYS) == list(exp.routes)
    (tmp_path / "sim_truth.jsonl").write_text("")
    assert list(truth.route_counts(tmp_path / "sim_truth.jsonl")) == list(ROUTE_KEYS)


def test_the_simulators_truth_file_records_each_route_by_its_truth_line(tmp_path):
    path = tmp_path / "sim_truth.jsonl"
    lines = [{"kind": "stop", "accounts_left": 2, "decided": 0}, {"kind": "remark", "decided": 0, "text": "tokens"}]
    lines += [{"kind": "decision", "routes": [r.truth_key]} for r in ESCAPE_ROUTES if r.truth is TruthLine.DECISION]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert truth.route_counts(path) == {**{r.key: 1 for r in counted_routes()}, "first_token_remark": 0}
    path.write_text(json.dumps({"kind": "decision", "routes": ["blind"]}) + "\n")
    with pytest.raises(ValueError, match="names the route 'blind', which study/procedure/escape_routes.py does not define"):
        truth.route_counts(path)


def test_corpus_frame_table8_and_heatmap_have_one_column_per_route(small, tmp_path, monkeypatch):
    assert set(ROUTE_KEYS) <= set(small.corpus.sessions.columns)
    t = table8(small)
    # the real turn ends follow the attempts to end the turn (route ends_turn), in both
    beside = {"ends_turn": [TURN_ENDS_HEADER]}
    assert [c.header for c in t.columns[1:]] == [
        h for r in ESCAPE_ROUTES
        for h in [r.header if r.measure is Measure.COUNT else f"{r.header} (median decided)"] + beside.get(r.key, [])]
    header = next(csv.reader(line for line in io.StringIO(render(t, "csv")) if not line.startswith("#")))
    assert [h.split(" ")[0] for h in header[2:]] == [
        k for r in ESCAPE_ROUTES for key in [r.key] + (["turn_ends"] if r.key == "ends_turn" else [])
        for k in [key] * (3 if r.measure is Measure.COUNT else 1)]
    assert heatmap_labels(small, tmp_path, monkeypatch) == [
        x for r in counted_routes() for x in [r.label] + (["Turn ends,\naccounts left"] if r.key == "ends_turn" else [])]


def test_study_score_prints_every_route(tmp_path):
    write_session(tmp_path / "s", model=HAIKU, condition="FSM", seed=2, episodes=["fc"] * 3, accounts=3)
    lines = CliRunner().invoke(main, ["score", str(tmp_path / "s")]).output.splitlines()
    line = next(x for x in lines if x.startswith("  escape routes:"))
    assert line.split()[2:] == [f"{k}={0 if k != 'first_token_remark' else '-'}" for k in ROUTE_KEYS]


def test_the_contracts_page_holds_the_registrys_table():
    page = (Path(__file__).resolve().parents[2] / "docs" / "contracts.md").read_text(encoding="utf-8")
    assert contract_table() in page


# --- a new route needs the registry and its detectors, nothing else ---------------------------

NEW_ROUTE = '''    EscapeRoute("odd_position", "Decides an odd account", "Decides an\\nodd account",
                "decisions of accounts at odd positions of the batch (a test route)", TruthLine.DECISION),
'''
NEW_DETECTOR = '''    "odd_position": lambda d, _record: d.position % 2 == 1,
'''
SCRIPT = '''
import json, sys
from pathlib import Path
from analysis import figures
from analysis.corpus import generate_corpus
from analysis.loading import load_corpus
from study.protocol.plan import load_plan
from analysis.render import render
from analysis.tables import Analysis, table8

root = Path(sys.argv[1])
generate_corpus(root / "sessions", models={"m": ["Plain", "FSM"]}, seeds=[2, 3, 4], accounts=12)
a = Analysis.build(load_corpus(root / "sessions"), load_plan(), root)
labels = []
def keep(fig, out, name):
    labels.append([t.get_text() for t in fig.axes[0].get_xticklabels()])
    return []
figures._save = keep
figures.routes_heatmap(a, root)
odd = {f"{s.condition}/{s.seed}": sum(d.position % 2 for d in s.decisions) for s in a.corpus.scores}
print(json.dumps({"csv": render(table8(a), "csv"), "md": render(table8(a), "md"), "labels": labels[0], "odd": odd}))
'''


def _tree_with_new_route(tmp_path: Path, *, detector: bool) -> Path:
    """A copy of the study and analysis packages with one more route in the registry."""
    src = tmp_path / ("src-detector" if detector else "src")
    for package in (study, analysis):
        shutil.copytree(Path(package.__file__).parent, src / package.__name__,
                        ignore=shutil.ignore_patterns("__pycache__"))
    registry = src / "study" / "procedure" / "escape_routes.py"
    text = registry.read_text()
    anchor = '    EscapeRoute("first_token_remark"'
    assert text.count(anchor) == 1
    registry.write_text(text.replace(anchor, NEW_ROUTE + anchor))
    if detector:
        scorer = src / "analysis" / "scoring.py"
        text = scorer.read_text()
        anchor = '    "without_looking": lambda d, _record:'
        assert text.count(anchor) == 1
        scorer.write_text(text.replace(anchor, NEW_DETECTOR + anchor))
    return src


def _python(src: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(src), "STUDY_ROOT": str(project_root())}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=src, timeout=300)


def test_a_route_without_a_detector_stops_the_scorer_and_the_simulator_from_importing(tmp_path):
    src = _tree_with_new_route(tmp_path, detector=False)
    for module in ("analysis.scoring", "study.sim.truth"):
        result = _python(src, "-c", f"import {module}")
        assert result.returncode != 0
        assert "RegistryError" in result.stderr and "missing ['odd_position']" in result.stderr, result.stderr


def test_a_route_added_to_the_registry_with_its_detector_shows_up_in_table8_and_the_heatmap(tmp_path):
    src = _tree_with_new_route(tmp_path, detector=True)
    result = _python(src, "-c", SCRIPT, str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["labels"] == [x for r in counted_routes() for x in [r.label] + (
        ["Turn ends,\naccounts left"] if r.key == "ends_turn" else [])] + ["Decides an\nodd account"]
    assert "| Decides an odd account |" in out["md"]
    rows = list(csv.DictReader(line for line in io.StringIO(out["csv"]) if not line.startswith("#")))
    assert len(rows) == 2
    for row in rows:   # one cell per condition over seeds 2-4: sessions with it / sessions, mean
        odd = [out["odd"][f"{row['Condition']}/{seed}"] for seed in (2, 3, 4)]
        assert (int(row["odd_position sessions"]), int(row["odd_position of"])) == (sum(v > 0 for v in odd), 3)
        assert float(row["odd_position mean"]) == pytest.approx(sum(odd) / 3, abs=1e-6)
    # the new column sits where the registry puts it: after the counts, before the remark
    header = next(csv.reader(line for line in io.StringIO(out["csv"]) if not line.startswith("#")))
    assert header.index("odd_position sessions") == header.index("another_account mean") + 1
    assert header[-1] == "first_token_remark median"


# --- conditions: conditions.yaml is the only list ---------------------------------------------

def test_every_condition_list_is_conditions_yamls():
    raw = yaml.safe_load((prereg_dir() / "conditions.yaml").read_text(encoding="utf-8"))
    assert condition_names() == tuple(raw["conditions"]) == corpus_conditions()
    assert condition_order() == (*raw["conditions"], *raw["exploratory_conditions"])
    assert set(PROFILES) == set(raw["conditions"])


def _project(tmp_path: Path, mutate) -> Path:
    """A project folder with the frozen plan and a changed copy of conditions.yaml."""
    root = tmp_path / "project"
    (root / "preregistration").mkdir(parents=True)
    shutil.copy(prereg_dir() / "predictions.yaml", root / "preregistration")
    raw = yaml.safe_load((prereg_dir() / "conditions.yaml").read_text(encoding="utf-8"))
    mutate(raw)
    (root / "preregistration" / "conditions.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    return root


def test_the_tables_follow_the_order_of_the_projects_conditions_yaml(small, tmp_path, monkeypatch):
    rows = [r["Condition"] for r in csv_rows(table8(small))]
    assert rows == ["Plain", "Remind-loop", "Gates-only"]      # the frozen file's order
    frozen = condition_names()
    reversed_order = lambda raw: raw.update(conditions=dict(reversed(list(raw["conditions"].items()))))
    root = _project(tmp_path, reversed_order)
    monkeypatch.setenv("STUDY_ROOT", str(root))
    a = load_analysis(Path(small.corpus.root))
    assert a.conditions == (*reversed(frozen), "FSM-bound", "FSM-lean", "FSM-lean-bound", "FSM-propose")
    assert [r["Condition"] for r in csv_rows(table8(a))] == ["Gates-only", "Remind-loop", "Plain"]
    assert [r["Condition"] for r in csv_rows(table1(a))] == ["Remind-loop", "Plain"]  # ablations go to Table 2


def test_the_analysis_without_a_conditions_yaml_says_so_in_one_line(small, tmp_path, monkeypatch):
    root = _project(tmp_path, lambda raw: None)
    (root / "preregistration" / "conditions.yaml").unlink()
    monkeypatch.setenv("STUDY_ROOT", str(root))
    result = CliRunner().invoke(main, ["tables", "--sessions", str(small.corpus.root)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)   # no traceback
    assert result.output.startswith("Error: ") and "conditions.yaml is missing" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_generator_refuses_a_condition_without_a_profile(tmp_path):
    root = _project(tmp_path, lambda raw: raw["conditions"].update(Extra=raw["conditions"]["Plain"]))
    with pytest.raises(ValueError, match=r"conditions.yaml has \[.*'Extra'\]; give each condition"):
        corpus_conditions(root / "preregistration" / "conditions.yaml")
    with pytest.raises(ValueError, match="no corpus profile for condition 'FSM-bound'"):
        generate_corpus(tmp_path / "s", models={HAIKU: ["FSM-bound"]}, seeds=[2], accounts=2)
    assert load_conditions(root / "preregistration" / "conditions.yaml").conditions["Extra"].name == "Extra"
