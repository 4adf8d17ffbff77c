"""End to end: `study run` on a frozen copy of the real preregistration, through the real
Claude Code CLI against the simulator. A change refuses the run; an amendment recorded before
the run lets it proceed, and the session records the manifest hash then in effect.

The commands run in this process (``CliRunner`` on the ``study`` group, from the copy's folder
with ``STUDY_ROOT`` naming it), which spares each an interpreter start; the code they import is
the code the copy froze (``frozen_project`` copied it from this tree)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from study.prereg import amend


def study(root: Path, *args: str) -> subprocess.CompletedProcess:
    """``study ARGS`` in this process, from ``root`` with ``STUDY_ROOT=root`` (restored after)."""
    from click.testing import CliRunner

    from study.cli import main

    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("STUDY_ROOT", str(root))
        done = CliRunner().invoke(main, list(args), prog_name="study")
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    return subprocess.CompletedProcess(args, done.exit_code, done.stdout, done.stderr)


def study_run(root: Path, out: Path) -> subprocess.CompletedProcess:
    return study(root, "run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle", "--accounts", "2",
                 "--out", str(out))


@pytest.mark.e2e
def test_run_refuses_a_change_and_proceeds_once_it_is_amended(tmp_path, frozen_project):
    root = frozen_project(tmp_path / "project")
    out = tmp_path / "sessions"
    plan = root / "preregistration/plan.md"
    plan.write_text(plan.read_text(encoding="utf-8") + "\nA clarification written after the freeze.\n",
                    encoding="utf-8")

    refused = study_run(root, out)
    assert refused.returncode == 1
    assert "changed: preregistration/plan.md" in refused.stderr
    assert not out.exists()

    entry = amend([plan], "clarify the plan", root=root)
    ran = study_run(root, out)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    [session] = [p.parent for p in out.rglob("meta.json")]
    meta = json.loads((session / "meta.json").read_text(encoding="utf-8"))
    start = json.loads((session / "events.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert start["kind"] == "session_start"
    assert meta["manifest_sha256"] == start["manifest_sha256"] == entry["sha256"]
    assert meta["code_version"] and meta["status"] == "completed"


@pytest.mark.e2e
def test_run_refuses_another_runtime_and_proceeds_once_an_amendment_records_it(tmp_path, frozen_project, monkeypatch):
    """The freeze was made on another Claude Code CLI (simulated at the version source the check
    reads while the copy is frozen); the real install then differs: `study run` refuses naming
    both versions, an amendment recording the installed runtime lets it run, and the tables
    list that amendment."""
    from study.prereg.runtime import current_runtime, write_runtime

    installed = current_runtime()["cli_version"]
    with monkeypatch.context() as patched:
        patched.setattr("study.runtimes.claude_code.pin.bundled_cli_version", lambda: "2.0.0-frozen")
        root = frozen_project(tmp_path / "project")
    out = tmp_path / "sessions"

    refused = study_run(root, out)
    assert refused.returncode == 1
    assert (f"runtime: Claude Code CLI differs: expected 2.0.0-frozen (preregistration/runtime.json), "
            f"found {installed}") in refused.stderr
    assert not out.exists()

    write_runtime(root)
    entry = amend([root / "preregistration/runtime.json"], f"Claude Code CLI {installed}", root=root)
    ran = study_run(root, out)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    [session] = [p.parent for p in out.rglob("meta.json")]
    meta = json.loads((session / "meta.json").read_text(encoding="utf-8"))
    assert meta["manifest_sha256"] == entry["sha256"] and meta["cli_version"] == installed

    tables = study(root, "tables", "--sessions", str(out), "--allow-simulated", "--include-exploratory")
    assert tables.returncode == 0, tables.stdout + tables.stderr
    assert f"Amendment 1 ({entry['time']}): Claude Code CLI {installed} [preregistration/runtime.json]" in tables.stdout
