"""The notebook runs top to bottom with its parameters injected, as papermill would: on a generated
corpus, on real simulator sessions (the demo's layout, all exploratory) with and without
INCLUDE_EXPLORATORY, and says so when there is nothing to show instead of failing."""

from __future__ import annotations

import tarfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "reproduce.ipynb"
SIM_LOGS = Path(__file__).resolve().parents[1] / "golden" / "sim_logs.tgz"
FIGURES = sorted(f"{n}.{e}" for n in ("figure1", "fc_windows", "routes_heatmap") for e in ("png", "pdf"))


def run_notebook(path: Path, **parameters) -> str:
    """Execute ``path`` with ``parameters`` injected and return the text of all its outputs.

    Papermill's injection by hand (papermill is not a dependency): a cell tagged
    ``injected-parameters`` right after the cell tagged ``parameters``, assigning each value."""
    nb = nbformat.read(path, as_version=4)
    tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged `parameters`"
    injected = new_code_cell("\n".join(f"{k} = {v!r}" for k, v in parameters.items()))
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(tagged[0] + 1, injected)
    NotebookClient(nb, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return "\n".join(o.get("text", "") + str(o.get("data", {}).get("text/markdown", ""))
                     + str(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_the_committed_notebook_has_a_parameters_cell_and_no_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit notebooks without outputs"
    (params,) = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    names = {line.split("=")[0].strip() for line in params.source.splitlines()
             if "=" in line and not line.startswith("#")}
    assert names == {"SESSIONS", "INCLUDE_EXPLORATORY", "ALLOW_SIMULATED", "FIGURES_OUT"}


def test_notebook_runs_on_a_generated_corpus(corpus_dir, tmp_path, monkeypatch):
    for variable in ("STUDY_SESSIONS", "STUDY_FIGURES_OUT", "STUDY_INCLUDE_EXPLORATORY", "STUDY_ALLOW_SIMULATED"):
        monkeypatch.delenv(variable, raising=False)
    root, _ = corpus_dir
    text = run_notebook(NOTEBOOK, SESSIONS=str(root), FIGURES_OUT=str(tmp_path / "figures"))
    for n in (1, 2, 6, 7, 8):
        assert f"**Table {n}: SIMULATED" in text
    # the exploratory session and the development seed's are listed once each, not analysed
    assert text.count("  exploratory/haiku-4.5/FSM/seed-2: exploratory") == 1
    assert text.count("  haiku-4.5/FSM/seed-1: development seed 1") == 1
    assert "Nothing to show" not in text
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == FIGURES


@pytest.fixture
def demo_sessions(tmp_path) -> Path:
    """Real simulator sessions in the demo's layout: sim:drifting, five conditions, seeds 2 and 3,
    the first 8 accounts (exploratory/sim-drifting/<condition>/seed-<n>-first-8)."""
    with tarfile.open(SIM_LOGS) as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "simlogs"


def test_notebook_after_the_demo_says_there_is_nothing_to_show_and_how_to_include_it(demo_sessions, tmp_path):
    text = run_notebook(NOTEBOOK, SESSIONS=str(demo_sessions), FIGURES_OUT=str(tmp_path / "figures"))
    assert "0 sessions, 0 decisions" in text
    assert "Excluded 10 sessions:\n" in text
    assert text.count(": exploratory (pass --include-exploratory to add it)") == 10
    assert f"Nothing to show: no analysable session under {demo_sessions.resolve()} (10 excluded" in text
    assert "Set INCLUDE_EXPLORATORY = True to add exploratory sessions" in text
    assert "**Table" not in text and not (tmp_path / "figures").exists()


def test_notebook_includes_the_demos_real_simulator_sessions_when_asked_and_its_figures_go_beside_them(
        demo_sessions, tmp_path, monkeypatch):
    """With INCLUDE_EXPLORATORY the demo's sessions are analysed; and as the README's papermill
    command runs it (SESSIONS=demo, no FIGURES_OUT), nothing lands in the project's tracked
    figures/: the figures go to demo/figures/, where `study demo` puts its own. (FIGURES_OUT, when
    given, is where they go: test_notebook_runs_on_a_generated_corpus.)"""
    project = tmp_path / "project"
    (project / "figures").mkdir(parents=True)
    (project / "preregistration").symlink_to(Path(__file__).resolve().parents[2] / "preregistration")
    for variable in ("STUDY_FIGURES_OUT", "STUDY_SESSIONS", "STUDY_INCLUDE_EXPLORATORY", "STUDY_ALLOW_SIMULATED"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("STUDY_ROOT", str(project))
    text = run_notebook(NOTEBOOK, SESSIONS=str(demo_sessions), INCLUDE_EXPLORATORY=True)
    assert "10 sessions, " in text and "(SIMULATED)" in text and "Excluded" not in text
    for n in (1, 2, 6, 7, 8):
        assert f"**Table {n}: SIMULATED" in text
    assert "sim:drifting" in text and "| FSM |" in text
    assert list((project / "figures").iterdir()) == []
    assert sorted(p.name for p in (demo_sessions / "figures").iterdir()) == FIGURES
    assert f"figures written to {demo_sessions.resolve() / 'figures'}" in text
