"""`study demo`, the README's offline main job, end to end on a frozen copy of the project:
real Claude Code sessions against the simulator, then tables and figures from their logs, every
one titled SIMULATED; a second run skips the finished sessions."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def study_demo(root: Path, out: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "STUDY_ROOT": str(root)}
    return subprocess.run(
        ["study", "demo", "--sessions", str(out), "--conditions", "Plain,FSM", "--seeds", "2",
         "--accounts", "2", "--jobs", "2"],
        env=env, cwd=root, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.e2e
def test_demo_runs_offline_and_titles_everything_simulated(tmp_path, frozen_project):
    root = frozen_project(tmp_path / "project")
    out = tmp_path / "demo"

    done = study_demo(root, out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ran 2 session(s): 2 completed" in done.stdout
    # Table 1 as printed: both conditions, the oracle-like start of a drifting run decides both accounts.
    table1 = (out / "tables" / "table1.md").read_text(encoding="utf-8")
    assert table1.startswith("**Table 1: SIMULATED")
    assert "| sim:drifting (1 seeds) | Plain |" in table1 or "| sim:drifting (1 seed) | Plain |" in table1
    assert "| FSM |" in table1
    for name in ("table1", "table2", "table6", "table7", "table8"):
        for fmt in ("md", "csv", "tex"):
            text = (out / "tables" / f"{name}.{fmt}").read_text(encoding="utf-8")
            assert "SIMULATED" in text, f"{name}.{fmt} is not titled SIMULATED"
    assert {p.name for p in (out / "figures").iterdir()} == {
        f"{n}.{ext}" for n in ("figure1", "fc_windows", "routes_heatmap") for ext in ("png", "pdf")}
    # The sessions really ran through the CLI and say they were simulated.
    metas = sorted(out.rglob("meta.json"))
    assert len(metas) == 2
    assert all('"simulated": true' in m.read_text(encoding="utf-8") for m in metas)

    again = study_demo(root, out)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "skipped 2 session(s)" in again.stdout
    assert (out / "tables" / "table1.md").read_text(encoding="utf-8") == table1
