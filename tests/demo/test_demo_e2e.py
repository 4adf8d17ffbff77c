"""`study demo`, the README's offline main job, end to end on a frozen copy of the project:
real Claude Code sessions against the simulator, then tables and figures from their logs, every
one titled SIMULATED; a second run skips the finished sessions. The demo lives apart from the
study (``demo/`` at the project root): the study's analysis and audit never see it, a run with
other ``--accounts`` adds its own sessions and tabulates only those, and the notebook runs on its
output.

The first run (``first_demo``) and the run with another batch size after it (``bigger_demo``) are
made once per module and only read by the tests; a test that runs the demo again does it in a
copy. The tests share an xdist_group, so that they run on one worker and the runs are made once.
The first run is the ``study`` command as a user types it (a process); the later commands run in
this process (``CliRunner`` on the same ``study`` group, from the project's folder), which spares
each an interpreter start and the analysis' imports."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

NOTEBOOK_TESTS = Path(__file__).resolve().parents[1] / "analysis" / "test_notebooks.py"

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group("demo-e2e")]


def study(root: Path, *args: str) -> subprocess.CompletedProcess:
    # the frozen copy's snapshot of the packages first, as the frozen_project fixture does
    env = {**os.environ, "STUDY_ROOT": str(root),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(["study", *args], env=env, cwd=root, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)


def study_in_process(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``study ARGS`` in this process, from ``root`` with ``STUDY_ROOT=root`` (restored after), as
    ``study`` above runs it: the copy's checkout is where Codex CLI would be installed (it is not)."""
    from click.testing import CliRunner

    from study.cli import main
    from study.runtimes.codex import pin

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("STUDY_ROOT", str(root))
        patch.setenv(pin.DIR_ENV, str(root / ".runtimes" / "codex"))
        done = CliRunner().invoke(main, list(args), prog_name="study")
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return subprocess.CompletedProcess(args, done.exit_code, done.stdout, done.stderr)


def demo_args(accounts: int = 2, conditions: str = "Plain,FSM") -> list[str]:
    return ["demo", "--conditions", conditions, "--seeds", "2", "--accounts", str(accounts), "--jobs", "2"]


def study_demo(root: Path, accounts: int = 2, conditions: str = "Plain,FSM") -> subprocess.CompletedProcess:
    return study(root, *demo_args(accounts, conditions))


def run_notebook(**parameters) -> str:
    """``run_notebook`` of tests/analysis/test_notebooks.py (one way to inject the parameters)."""
    spec = importlib.util.spec_from_file_location("notebook_tests", NOTEBOOK_TESTS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run_notebook(module.NOTEBOOK, **parameters)


def copy_project(root: Path, dest: Path) -> Path:
    """A copy of the frozen project ``root`` (its git history, freeze, packages and demo/) at ``dest``."""
    shutil.copytree(root, dest, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


@pytest.fixture(scope="module")
def first_demo(tmp_path_factory, make_frozen_copy) -> tuple[Path, subprocess.CompletedProcess]:
    """A frozen copy of the project with an empty sessions/, after `study demo` on two conditions
    (2 accounts): the project root and what the demo printed. Read only."""
    root = make_frozen_copy(tmp_path_factory.mktemp("demo") / "project")
    (root / "sessions").mkdir()
    return root, study_demo(root)


@pytest.fixture(scope="module")
def bigger_demo(first_demo, tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of ``first_demo``'s project after a second batch size (`study demo --accounts 3` on
    Plain): the project root and what that run printed. Read only."""
    root = copy_project(first_demo[0], tmp_path_factory.mktemp("demo-bigger") / "project")
    return root, study_in_process(root, *demo_args(accounts=3, conditions="Plain"))


def test_demo_runs_offline_apart_from_the_study_and_titles_everything_simulated(first_demo):
    root, done = first_demo
    out = root / "demo"
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ran 2 session(s): 2 completed" in done.stdout
    assert "-> demo/" in done.stdout and "study tables --sessions demo --include-exploratory" in done.stdout
    # The tables are printed as terminal tables, not Markdown source, and the run ends at the viewer.
    assert "<u>" not in done.stdout and "**Table" not in done.stdout and "| --- |" not in done.stdout
    assert "Table 1: SIMULATED" in done.stdout and "Table 8: SIMULATED" in done.stdout
    assert done.stdout.rstrip().splitlines()[-1] == ("See what the agent did, session by session: "
                                                     "study view --sessions demo")
    # Table 1 as printed: both conditions, the oracle-like start of a drifting run decides both accounts.
    table1 = (out / "tables" / "table1.md").read_text(encoding="utf-8")
    assert table1.startswith("**Table 1: SIMULATED")
    assert "sim:drifting" in table1 and "| Plain |" in table1 and "| FSM |" in table1
    for name in ("table1", "table2", "table6", "table7", "table8"):
        for fmt in ("md", "csv", "tex"):
            text = (out / "tables" / f"{name}.{fmt}").read_text(encoding="utf-8")
            assert "SIMULATED" in text, f"{name}.{fmt} is not titled SIMULATED"
    assert {p.name for p in (out / "figures").iterdir()} == {
        f"{n}.{ext}" for n in ("figure1", "fc_windows", "routes_heatmap") for ext in ("png", "pdf")}
    # The sessions really ran through the CLI, say they were simulated, and live in demo/, not sessions/.
    metas = sorted(out.rglob("meta.json"))
    assert [m.parent.relative_to(out).as_posix() for m in metas] == [
        "exploratory/sim-drifting/FSM/seed-2-first-2", "exploratory/sim-drifting/Plain/seed-2-first-2"]
    assert all('"simulated": true' in m.read_text(encoding="utf-8") for m in metas)
    assert list((root / "sessions").iterdir()) == []


def test_a_second_demo_run_skips_the_finished_sessions(first_demo, tmp_path):
    root = copy_project(first_demo[0], tmp_path / "project")
    table1 = (root / "demo" / "tables" / "table1.md").read_text(encoding="utf-8")
    again = study_in_process(root, *demo_args())
    assert again.returncode == 0, again.stdout + again.stderr
    assert "skipped 2 session(s)" in again.stdout
    assert (root / "demo" / "tables" / "table1.md").read_text(encoding="utf-8") == table1


def test_another_batch_size_adds_its_own_session_beside_the_others_and_tabulates_only_it(bigger_demo):
    root, bigger = bigger_demo
    out = root / "demo"
    assert bigger.returncode == 0, bigger.stdout + bigger.stderr
    assert (out / "exploratory/sim-drifting/Plain/seed-2-first-3/meta.json").is_file()
    table1 = (out / "tables" / "table1.md").read_text(encoding="utf-8")
    assert "| Plain |" in table1 and "| FSM |" not in table1


def test_the_studys_analysis_and_audit_never_see_the_demo(bigger_demo):
    root, bigger = bigger_demo
    assert bigger.returncode == 0, bigger.stdout + bigger.stderr
    audit = study_in_process(root, "audit")
    assert audit.returncode == 4 and "nothing to audit: no sessions under" in audit.stderr, audit.stdout + audit.stderr
    tables = study_in_process(root, "tables", "--include-exploratory")
    assert "sim:drifting" not in tables.stdout + tables.stderr
    # Pointed at the demo, the audit has nothing to check; the analysis takes both batch sizes.
    audit = study_in_process(root, "audit", "--sessions", "demo")
    assert audit.returncode == 4 and "none of the 3 sessions under demo is analysed (3 exploratory)" in audit.stderr
    tables = study_in_process(root, "tables", "--sessions", "demo", "--include-exploratory")
    assert tables.returncode == 0, tables.stdout + tables.stderr


def test_the_notebook_runs_on_the_demos_output(bigger_demo, tmp_path, monkeypatch):
    root, bigger = bigger_demo
    assert bigger.returncode == 0, bigger.stdout + bigger.stderr
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    text = run_notebook(SESSIONS=str(root / "demo"), INCLUDE_EXPLORATORY=True, FIGURES_OUT=str(tmp_path / "figures"))
    assert "3 sessions, " in text and "**Table 1: SIMULATED" in text
