"""The notebooks run top to bottom on a generated corpus and regenerate every table and figure."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_on_a_generated_corpus(path, corpus_dir, tmp_path, monkeypatch):
    root, _ = corpus_dir
    monkeypatch.setenv("STUDY_SESSIONS", str(root))
    monkeypatch.setenv("STUDY_FIGURES_OUT", str(tmp_path / "figures"))
    nb = nbformat.read(path, as_version=4)
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), \
        "commit notebooks without outputs"
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "\n".join(o.get("text", "") + str(o.get("data", {}).get("text/markdown", ""))
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    for n in (1, 2, 6, 7, 8):
        assert f"**Table {n}: SIMULATED" in text
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == sorted(
        f"{n}.{e}" for n in ("figure1", "fc_windows", "routes_heatmap") for e in ("png", "pdf"))
