"""docs/tau2.md's steps for the paper's Telecom evaluation run as written (issue 49, item 4): each
command line of its block, in a frozen copy of this checkout, as a researcher about to spend a key
runs them. What cannot run here is said and checked otherwise: the install line (the extra is
installed: this module is skipped without it), the doctor's two probe sessions (test_doctor's; the
doctor line runs in process with them passed), the real segments (a key and money; they are the
dry run's matrix with other seeds)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from study.families.tau2 import tau2_problem
from study.runtimes.codex import pin as codex_pin

PROBLEM = tau2_problem() or codex_pin.problem()
pytestmark = [pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or ""), pytest.mark.e2e]
ROOT = Path(__file__).resolve().parents[3]
STUDY = [sys.executable, "-m", "study.cli"]


def documented_steps() -> list[str]:
    """The command lines of docs/tau2.md's section "Running the paper's Telecom evaluation with a
    real key", comments left out."""
    page = (ROOT / "docs" / "tau2.md").read_text(encoding="utf-8")
    section = page.split("## Running the paper's Telecom evaluation with a real key", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL).group(1)
    return [" ".join(shlex.split(line, comments=True)) for line in block.splitlines() if line.strip()]


def test_the_documented_steps_run_as_written(shared_frozen_project, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from study import doctor
    from study.cli import main

    steps = documented_steps()
    env = {**os.environ, "STUDY_ROOT": str(shared_frozen_project), "STUDY_CACHE_DIR": str(tmp_path / "cache"),
           codex_pin.DIR_ENV: str(codex_pin.install_dir())}    # the Codex CLI this checkout installed
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        env.pop(name, None)
    ran = []
    for step in steps:
        words = shlex.split(step)
        if words[:2] == ["pip", "install"]:     # the extra this module needs: installed from the named lock
            assert (ROOT / words[-1]).is_file() and words[-1] == "requirements-tau2.lock"
            continue
        if words[0] == "export":
            name, _value = words[1].split("=", 1)
            env[name] = "sk-test-not-a-real-key"
            continue
        if words[:2] == ["study", "doctor"]:
            monkeypatch.setenv("STUDY_ROOT", str(shared_frozen_project))
            for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
                monkeypatch.delenv(name, raising=False)
            monkeypatch.setattr(doctor, "runtime_checks", lambda face, required: (
                [doctor.Check(face.label, True, "probe session not run here (test_doctor's)")], None))
            done = CliRunner().invoke(main, words[1:])
            assert done.exit_code == 0, done.output
            assert done.output.strip().splitlines()[-1].startswith(
                "Ready for simulated sessions; a confirmatory run still needs: OPENAI_API_KEY is not set: "
                "gpt-5.4-mini: the agent; gpt-5.4-mini: tau2-telecom's customer"), done.output
            ran.append(step)
            continue
        if words[:2] == ["study", "run-all"] and "--dry-run" not in words:
            dry = next(s for s in steps if "--dry-run" in s)   # a real segment: the dry run's matrix, other seeds
            assert re.sub(r"--seeds \S+", "", step) == re.sub(r"--seeds \S+", "", dry.replace(" --dry-run", ""))
            continue
        done = subprocess.run([*STUDY, *words[1:]], capture_output=True, text=True, env=env, timeout=600,
                              cwd=shared_frozen_project, stdin=subprocess.DEVNULL)
        output = done.stdout + done.stderr
        if words[:2] == ["study", "tables"]:    # before the first segment there is nothing to tabulate
            assert (done.returncode, "sessions: no such folder" in output) == (2, True) or (
                done.returncode, "no analysable session of tau2-telecom" in output) == (4, True), output
        else:
            assert done.returncode == 0, f"`{step}` exited {done.returncode}:\n{output}"
        if words[:3] == ["study", "prereg", "freeze"]:
            assert output.startswith("Nothing to freeze: the preregistration is frozen"), output
        if "--dry-run" in words:
            assert "24 session(s) to run, 0 to skip" in output, output
        ran.append(step)
    assert [s.split()[1] for s in ran] == ["doctor", "tau2", "prereg", "run-all", "tables"]
