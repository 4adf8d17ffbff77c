"""``study doctor`` passes on this install (against a frozen copy of the plan) and fails clearly,
saying what to fix, when the CLI cannot start, the install differs from the lock, the runtime is
not frozen or the sessions folder is not writable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from study import doctor
from study.runtimes.claude_code.command import CLI_ENV
from study.runtimes.codex import pin as codex_pin
from study.runtimes.lock import LOCK_ENV

STUDY = [sys.executable, "-m", "study.cli"]


def _no_codex(tmp_path: Path) -> dict[str, str]:
    """For a test of the Claude Code checks: no Codex CLI in this (empty) folder, so its probe
    session (which test_doctor_passes_on_this_install runs) is a note instead."""
    (tmp_path / "no-codex").mkdir(exist_ok=True)
    return {codex_pin.DIR_ENV: str(tmp_path / "no-codex")}


def _doctor(env: dict[str, str]) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in (CLI_ENV, LOCK_ENV)}
    return subprocess.run([*STUDY, "doctor"], capture_output=True, text=True, timeout=600, env={**base, **env},
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def frozen_root(tmp_path, frozen_project):
    """A self-contained frozen checkout with the installed runtime (the real tree's freeze is never touched)."""
    return frozen_project(tmp_path / "study")


@pytest.mark.e2e
def test_doctor_passes_on_this_install(frozen_root):
    done = _doctor({"STUDY_ROOT": str(frozen_root), "ANTHROPIC_API_KEY": "sk-test-not-a-real-key"})
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = {line[6:22].strip(): line.split()[0] for line in done.stdout.splitlines() if line[:5].strip() in ("ok", "FAIL")}
    expected = {"lock": "ok", "frozen runtime": "ok", "CLI": "ok", "CLI session": "ok", "hooks": "ok", "MCP tools": "ok",
                "resume": "ok", "sandbox": "ok", "sessions folder": "ok"}
    # the pinned Codex CLI, where it is installed, is checked too (its own short session); else a note
    if codex_pin.problem() is None:
        expected |= {"Codex CLI": "ok", "Codex session": "ok", "Codex hooks": "ok", "Codex MCP tools": "ok",
                     "Codex resume": "ok", "Codex sandbox": "ok"}
    else:
        assert "Codex CLI:" in done.stdout
    assert verdicts == expected, done.stdout
    assert "ok    CLI session" in done.stdout and "Ready for a confirmatory run" in done.stdout
    assert "ok    sandbox          a command ran in the workspace in the sandbox; its write beside the workspace was " \
           "refused" in done.stdout
    assert "claude-agent-sdk" in done.stdout and "API key" in done.stdout and "_bundled/claude" in done.stdout


def test_a_cli_that_cannot_start_fails_the_probe_session_with_its_error(tmp_path, frozen_root, monkeypatch):
    """The probe is a session of the runner: a bundled CLI that dies at once ends it as the runner
    ends any session (an infrastructure failure, with the CLI's error), and the doctor says so."""
    from click.testing import CliRunner

    from study.cli import main
    from study.runtimes.claude_code import adapter

    broken = tmp_path / "broken-claude"  # executable, but dies at once
    broken.write_text("#!/bin/sh\necho 'claude: cannot load its runtime' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("STUDY_ROOT", str(frozen_root))
    monkeypatch.setenv(codex_pin.DIR_ENV, str(tmp_path / "no-codex"))
    monkeypatch.setattr(adapter, "bundled_cli_path", lambda: broken)
    done = CliRunner().invoke(main, ["doctor"])
    assert done.exit_code == 1 and done.exception is None or isinstance(done.exception, SystemExit), done.output
    lines = {line[6:22].strip(): line for line in done.output.splitlines() if line[:5].strip() in ("ok", "FAIL")}
    assert lines["CLI session"].startswith("FAIL  CLI session      Claude Code ")
    assert "infrastructure_failure, 0 of 4 accounts decided; Claude Code process failed" in lines["CLI session"]
    for name in ("hooks", "MCP tools", "resume"):
        assert lines[name] == f"FAIL  {name:<16} not tried: the session made no tool call"
    assert "fix: reinstall: pip install --force-reinstall" in done.output


def test_a_lock_mismatch_names_the_packages_and_the_install(tmp_path, monkeypatch):
    lock = tmp_path / "requirements.lock"
    lock.write_text("click==0.1 \\\n    --hash=sha256:00\nno-such-package==1.0 \\\n    --hash=sha256:00\n")
    monkeypatch.setenv(LOCK_ENV, str(lock))
    check = doctor.check_lock()
    assert not check.ok
    assert check.detail.startswith("2 of 2 packages differ from requirements.lock: click ")
    assert "no-such-package missing (locked 1.0)" in check.detail
    assert check.fix == doctor.INSTALL
    monkeypatch.setenv(LOCK_ENV, str(tmp_path / "absent.lock"))
    assert not doctor.check_lock().ok and "no lock file" in doctor.check_lock().detail


def test_an_unfrozen_runtime_and_an_unwritable_sessions_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDY_ROOT", str(tmp_path))
    check = doctor.check_frozen_runtime()
    assert not check.ok and check.detail.startswith("not frozen") and "study prereg runtime --write" in check.fix
    assert doctor.check_sessions_folder().ok  # sessions/ does not exist yet; its parent is writable
    monkeypatch.setenv("STUDY_ROOT", "/proc")  # not writable, even for root
    check = doctor.check_sessions_folder()
    assert not check.ok and "no folder can be made in /proc" in check.detail and check.fix
    # --sessions DIR: another folder (e.g. shared by a cluster's machines) is the one checked
    shared = tmp_path / "shared"
    shared.mkdir()
    check = doctor.check_sessions_folder(shared)
    assert check.ok and check.detail == f"{shared} is writable"
    check = doctor.check_sessions_folder(Path("/proc/sessions"))
    assert not check.ok and check.detail.startswith("sessions folder /proc/sessions: no folder can be made in /proc")
    # the check study run makes: a folder doctor passes is one run accepts, and the other way round
    from study.runner.preflight import PreflightError, check_out_root

    for folder in (shared, tmp_path / "new" / "sessions", Path("/proc/sessions"), Path("/proc/x/y")):
        try:
            check_out_root(folder)
            accepted = True
        except PreflightError:
            accepted = False
        assert doctor.check_sessions_folder(folder).ok == accepted, folder


def test_help_has_an_example():
    done = subprocess.run([*STUDY, "doctor", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "study doctor" in done.stdout.split("Examples:")[1]
    assert "--sessions DIR" in done.stdout


def test_a_runtime_other_than_the_frozen_one_names_both_and_the_amendment(tmp_path, frozen_root, monkeypatch):
    from study.runtimes.lock import lock_path

    other = tmp_path / "requirements.lock"
    other.write_bytes(lock_path().read_bytes() + b"# updated\n")  # the same pins, another file: another sha256
    monkeypatch.setenv("STUDY_ROOT", str(frozen_root))
    assert doctor.check_frozen_runtime().ok
    monkeypatch.setenv(LOCK_ENV, str(other))
    check = doctor.check_frozen_runtime()
    assert not check.ok and "lock file sha256 differs" in check.detail
    assert "study prereg amend" in check.fix


def test_ready_says_what_a_confirmatory_run_still_needs_without_an_api_key(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from study.cli import main

    ok = doctor.Check("x", True, "fine")
    for name in ("check_lock", "check_frozen_runtime", "check_sessions_folder"):
        monkeypatch.setattr(doctor, name, lambda *a, **k: ok)
    monkeypatch.setattr(doctor, "runtime_checks", lambda face, required: ([ok], None))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    without = CliRunner().invoke(main, ["doctor"])
    assert without.exit_code == 0, without.output
    last = without.output.strip().splitlines()[-1]
    assert "Ready for a confirmatory run" not in without.output
    assert last.startswith("Ready for simulated sessions; a confirmatory run still needs: ANTHROPIC_API_KEY is not set")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    with_key = CliRunner().invoke(main, ["doctor"])
    assert with_key.output.strip().splitlines()[-1].startswith("Ready for a confirmatory run")


def test_the_keys_named_are_those_the_chosen_studys_models_need(monkeypatch):
    """`study doctor --runtime codex` asked for ANTHROPIC_API_KEY while the τ²-bench studies need
    the OpenAI key (issue 49, item 3): the keys named are the agent's models' (those of the
    runtime asked for, or --models, else run-all's default) and the study's customer's and judge's."""
    from click.testing import CliRunner

    from study.cli import main

    ok = doctor.Check("x", True, "fine")
    for name in ("check_lock", "check_frozen_runtime", "check_sessions_folder"):
        monkeypatch.setattr(doctor, name, lambda *a, **k: ok)
    monkeypatch.setattr(doctor, "runtime_checks", lambda face, required: ([ok], None))
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)

    def last(*args):
        done = CliRunner().invoke(main, ["doctor", *args])
        assert done.exit_code == 0, done.output
        keys = next(line for line in done.output.splitlines() if line.strip().startswith("API keys"))
        return keys, done.output.strip().splitlines()[-1]

    keys, said = last("--runtime", "codex")
    assert said.startswith("Ready for simulated sessions; a confirmatory run still needs: OPENAI_API_KEY is not set: "
                           "gpt-5.4-mini: the agent") and "ANTHROPIC" not in said
    keys, said = last("--runtime", "codex", "--study", "tau2-telecom")
    assert "gpt-5.4-mini: the agent; gpt-5.4-mini: tau2-telecom's customer" in said and "ANTHROPIC" not in said
    assert "OPENAI_API_KEY not set (gpt-5.4-mini: the agent, gpt-5.4-mini: tau2-telecom's customer)" in keys
    keys, said = last("--study", "tau2-retail")            # run-all's default agent (haiku-4.5), its customer and judge
    assert "ANTHROPIC_API_KEY is not set: haiku-4.5: the agent" in said
    assert "OPENAI_API_KEY is not set: gpt-5.4-mini: tau2-retail's customer; gpt-5.4-mini: tau2-retail's judge" in said
    keys, said = last("--models", "sonnet-4.6,sim:oracle")
    assert "ANTHROPIC_API_KEY is not set: sonnet-4.6: the agent (" in said and "OPENAI" not in said
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    keys, said = last("--runtime", "codex", "--study", "tau2-telecom")
    assert said.startswith("Ready for a confirmatory run") and keys.split()[2:4] == ["OPENAI_API_KEY", "set"]
    unknown = CliRunner().invoke(main, ["doctor", "--study", "no-such-study"])
    assert unknown.exit_code == 2 and "no study 'no-such-study'" in unknown.output


@pytest.mark.e2e
def test_the_probe_plays_the_projects_own_task_on_the_bundled_cli_and_an_unstartable_cli_fails_clearly(
        tmp_path, freeze_tree):
    """One doctor run (one probe session) for two behaviours: in a project made by `study new`
    (another task, frozen), the probe session plays that project's task; and with a CLI override
    that cannot start, the CLI check fails saying what to fix while the probe runs what sessions
    run, the bundled CLI, whatever the override says."""
    project = tmp_path / "dg"
    made = subprocess.run([*STUDY, "new", "--task", "dangerous_goods", str(project)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, stdin=subprocess.DEVNULL)
    assert made.returncode == 0, made.stderr
    freeze_tree(project)   # so that the CLI check is the only one failing
    not_executable = tmp_path / "claude"
    not_executable.write_text("#!/bin/sh\nexit 0\n")
    done = _doctor({"STUDY_ROOT": str(project), CLI_ENV: str(not_executable), **_no_codex(tmp_path)})
    # the project's task
    assert "4 of 4 products decided" in done.stdout, done.stdout + done.stderr
    assert "MCP tools        " in done.stdout and "calls of the dangerous_goods tools answered" in done.stdout
    assert "ok    resume           call 2 resumed session " in done.stdout
    # the CLI that cannot start
    assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
    assert f"FAIL  CLI              the Claude Code CLI {not_executable} is not executable" in done.stdout
    assert f"fix: unset {CLI_ENV} to use the bundled CLI" in done.stdout
    # the probe runs what sessions run, the bundled CLI, whatever the override says
    assert "ok    CLI session      Claude Code " in done.stdout
    assert "check(s) failed (CLI)" in done.stdout


def test_the_runtime_lines_say_whether_the_tau2_extra_is_installed_and_which_version(monkeypatch):
    from importlib import metadata, util

    from study.families.tau2.availability import DISTRIBUTION, INSTALL_LINE, tau2_problem

    line = dict(doctor._runtime_lines())["τ²-bench"]
    if tau2_problem() is None:
        assert line.startswith(f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)} installed")
    real_version, real_spec = metadata.version, util.find_spec

    def version(name):
        if name == DISTRIBUTION:
            raise metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(metadata, "version", version)
    monkeypatch.setattr(util, "find_spec", lambda name, *a: None if name == "tau2" else real_spec(name, *a))
    line = dict(doctor._runtime_lines())["τ²-bench"]
    assert "not installed" in line and INSTALL_LINE in line and "optional" in line


def test_without_bubblewrap_the_doctors_workspace_command_says_what_to_install(monkeypatch):
    from study.doctor.sandbox_probe import run_sandbox_probe
    from study.runtimes import sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda tool, path=None: None if tool in ("bwrap", "socat") else "/bin/true")
    found = run_sandbox_probe("claude-code")
    assert (found.ok, found.fix) == (False, "apt-get install bubblewrap socat")
    assert found.detail == ("a workspace session would be refused: Claude Code's sandbox needs bubblewrap and socat, and "
                            "neither is installed here: apt-get install bubblewrap socat")
