"""Issue 11: the runtime is part of the freeze.

A different Claude Code CLI, claude-agent-sdk or lock file is simulated through the sources the
check itself reads: ``study.runtimes.claude_code.pin.bundled_cli_version``/``sdk_version`` (monkeypatched in
process) and the lock file (``STUDY_LOCK_FILE``, package D's documented override). ``study run``,
``run-all`` and ``demo`` refuse naming both versions; an amendment that records the runtime change
lets runs proceed and is listed under the tables; ``study audit`` checks each session's CLI and
SDK against the runtime in effect when it started (an older runtime read back from git).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import PreregViolation, amend, check_before_run, verify
from study.prereg.audit import audit_sessions
from study.prereg.runtime import current_runtime, write_runtime

RUNTIME = "preregistration/runtime.json"
INSTALLED = current_runtime()
NEW_CLI = "2.9.0-test"

RUNS = [
    ["run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle"],
    ["run-all", "--models", "sim:oracle", "--conditions", "FSM,Plain", "--seeds", "2-3"],
    ["demo", "--seeds", "2", "--conditions", "FSM"],
]


@pytest.fixture
def other_cli(monkeypatch):
    """The installed CLI reports another version (the source the runtime check reads)."""
    monkeypatch.setattr("study.runtimes.claude_code.pin.bundled_cli_version", lambda: NEW_CLI)


def runs_refused(root: Path, *expected: str) -> None:
    runner = CliRunner()
    out = root.parent / "sessions"
    for command in RUNS:
        result = runner.invoke(main, [*command, "--out", str(out)])
        assert result.exit_code == 1, (command, result.output)
        assert "the preregistration check failed, nothing was started" in result.output
        for text in expected:
            assert text in result.output, (command, result.output)
        assert not out.exists()


def test_another_cli_version_refuses_every_run_naming_both(frozen, study_root, other_cli):
    study_root(frozen)
    expected = f"runtime: Claude Code CLI differs: expected {INSTALLED['cli_version']} ({RUNTIME}), found {NEW_CLI}"
    with pytest.raises(PreregViolation, match="Claude Code CLI differs"):
        check_before_run(frozen)
    runs_refused(frozen, expected)
    verified = CliRunner().invoke(main, ["prereg", "verify"])
    assert verified.exit_code == 1
    assert f"runtime  cli_version: expected {INSTALLED['cli_version']}, found {NEW_CLI}: DIFFERS" in verified.output
    assert f"runtime  sdk_version: expected {INSTALLED['sdk_version']}, found {INSTALLED['sdk_version']}: ok" in verified.output


def test_another_sdk_version_refuses_naming_both(frozen, study_root, monkeypatch):
    monkeypatch.setattr("study.runtimes.claude_code.pin.sdk_version", lambda: "0.0.1-test")
    study_root(frozen)
    runs_refused(frozen, f"claude-agent-sdk differs: expected {INSTALLED['sdk_version']} ({RUNTIME}), found 0.0.1-test")


def test_another_lock_refuses_naming_both_hashes(frozen, study_root, monkeypatch, tmp_path):
    from study.runtimes.lock import LOCK_ENV, lock_sha256

    other = tmp_path / "requirements.lock"
    other.write_text("claude-agent-sdk==0.0.1\n", encoding="utf-8")
    monkeypatch.setenv(LOCK_ENV, str(other))
    study_root(frozen)
    runs_refused(frozen, f"lock file sha256 differs: expected {INSTALLED['lock_sha256']} ({RUNTIME}), "
                         f"found {lock_sha256(other)}")


def test_another_python_minor_is_reported_not_refused(frozen):
    runtime = json.loads((frozen / RUNTIME).read_text(encoding="utf-8"))
    (frozen / RUNTIME).write_text(json.dumps({**runtime, "python": "3.99"}), encoding="utf-8")
    entry = amend([RUNTIME], "record Python 3.99", root=frozen)
    assert check_before_run(frozen) == entry["sha256"]
    assert any("Python" in note and "3.99" in note for note in verify(frozen).notes)


def test_a_runtime_without_a_record_is_refused(tree, freeze_tree):
    (tree / RUNTIME).unlink()
    with pytest.raises(Exception, match="runtime.json is missing"):
        freeze_tree(tree)


def test_an_amendment_recording_the_runtime_lets_runs_proceed_and_is_listed(frozen, study_root, other_cli, git):
    from study.prereg import read_amendments

    study_root(frozen)
    with pytest.raises(PreregViolation):
        check_before_run(frozen)
    runner = CliRunner()
    wrote = runner.invoke(main, ["prereg", "runtime", "--write"])
    assert wrote.exit_code == 0 and f'"cli_version": "{NEW_CLI}"' in wrote.output
    with pytest.raises(PreregViolation, match=f"changed: {RUNTIME}"):  # not in effect until amended
        check_before_run(frozen)
    amended = runner.invoke(main, ["prereg", "amend", "--reason", f"Claude Code CLI {NEW_CLI}", RUNTIME])
    assert amended.exit_code == 0, amended.output
    [entry] = [json.loads(line) for line in (frozen / "preregistration/amendments.jsonl").read_text().splitlines()]
    assert check_before_run(frozen) == entry["sha256"]
    assert [amendment.summary() for amendment in read_amendments(frozen)] == [
        f"Amendment 1 ({entry['time']}): Claude Code CLI {NEW_CLI} [{RUNTIME}]"
    ]
    shown = runner.invoke(main, ["prereg", "runtime"])
    assert "differs" not in shown.output


def test_audit_checks_each_session_against_the_runtime_in_effect_when_it_started(frozen, git, sessions, tmp_path,
                                                                                  monkeypatch):
    old_cli = INSTALLED["cli_version"]
    freeze_commit = git(frozen, "rev-parse", "HEAD").strip()
    freeze_record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    monkeypatch.setattr("study.runtimes.claude_code.pin.bundled_cli_version", lambda: NEW_CLI)
    write_runtime(frozen)
    entry = amend([RUNTIME], f"Claude Code CLI {NEW_CLI}", root=frozen)
    git(frozen, "commit", "-qam", "runtime amendment")
    amend_commit = git(frozen, "rev-parse", "HEAD").strip()
    gap = (datetime.fromisoformat(entry["time"]) - datetime.fromisoformat(freeze_record["frozen_at"])).total_seconds()
    before = sessions.later(freeze_record["frozen_at"], gap / 2)
    after = sessions.later(entry["time"], 5)
    old, new = freeze_record["sha256"], entry["sha256"]
    out = tmp_path / "sessions"
    sessions.write(out / "m/FSM/seed-2", started=before, manifest=old, code_version=freeze_commit, cli_version=old_cli)
    sessions.write(out / "m/FSM/seed-3", started=after, manifest=new, code_version=amend_commit, cli_version=NEW_CLI)
    sessions.write(out / "m/FSM/seed-4", started=after, manifest=new, code_version=amend_commit, cli_version=old_cli)
    sessions.write(out / "m/FSM/seed-5", started=after, manifest=new, code_version=amend_commit, cli_version=NEW_CLI,
                   sdk_version="0.0.1-test")
    sessions.write(out / "m/FSM/seed-6", started=after, manifest=new, code_version=amend_commit, cli_version=NEW_CLI,
                   sdk_version=None, lock_sha256=None)
    sessions.write(out / "m/FSM/seed-7", started=after, manifest=new, code_version=amend_commit, cli_version=NEW_CLI,
                   lock_sha256="0" * 64)
    (frozen / RUNTIME).write_text("{}", encoding="utf-8")  # the file on disk no longer helps: git has both

    results = {r.path.name: r for r in audit_sessions(out, verify(frozen))}
    assert {name: r.verdict for name, r in results.items()} == {
        "seed-2": "ok", "seed-3": "ok", "seed-4": "FAIL", "seed-5": "FAIL", "seed-6": "ok", "seed-7": "FAIL",
    }
    assert results["seed-4"].problems == [
        f"ran on Claude Code CLI {old_cli}, but the runtime in effect when it started (amendment 1) is {NEW_CLI}"
    ]
    assert results["seed-5"].problems == [
        f"ran on claude-agent-sdk 0.0.1-test, but the runtime in effect when it started (amendment 1) is "
        f"{INSTALLED['sdk_version']}"
    ]
    assert results["seed-6"].notes == [
        "no sdk_version recorded (a log from before it was recorded): the claude-agent-sdk version is not checked",
        "no lock_sha256 recorded (a log from before it was recorded): the lock file sha256 is not checked",
    ]
    assert results["seed-7"].problems == [
        f"ran with the lock file sha256 {'0' * 64}, but the runtime in effect when it started (amendment 1) is "
        f"{INSTALLED['lock_sha256']}"
    ]


def test_audit_flags_code_versions_that_do_not_hold_the_manifest_in_effect(frozen, git, sessions, tmp_path,
                                                                           study_root):
    freeze_record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    freeze_commit = git(frozen, "rev-parse", "HEAD").strip()
    (frozen / "study/fsm/guards.py").write_text("def decided(history, account):\n    return False\n", encoding="utf-8")
    git(frozen, "commit", "-qam", "an unamended change to frozen code")
    changed_commit = git(frozen, "rev-parse", "HEAD").strip()
    (frozen / "study/fsm/guards.py").write_text("def decided(history, account):\n    return True\n", encoding="utf-8")
    git(frozen, "commit", "-qam", "undo it")
    started = sessions.later(freeze_record["frozen_at"], 5)
    out = tmp_path / "sessions"
    manifest = freeze_record["sha256"]
    sessions.write(out / "m/FSM/seed-2", started=started, manifest=manifest, code_version=freeze_commit)
    sessions.write(out / "m/FSM/seed-3", started=started, manifest=manifest, code_version=freeze_record["git_commit"])
    sessions.write(out / "m/FSM/seed-4", started=started, manifest=manifest, code_version=changed_commit)
    sessions.write(out / "m/FSM/seed-5", started=started, manifest=manifest, code_version=freeze_commit + "+dirty")
    sessions.write(out / "m/FSM/seed-6", started=started, manifest=manifest, code_version="f" * 40)
    results = {r.path.name: r for r in audit_sessions(out, verify(frozen))}
    assert {name: r.verdict for name, r in results.items()} == {
        "seed-2": "ok", "seed-3": "ok", "seed-4": "FAIL", "seed-5": "FAIL", "seed-6": "FAIL",
    }
    assert results["seed-4"].problems == [
        f"code_version {changed_commit[:12]}: its frozen files differ from the manifest in effect when it started "
        "(the freeze): study/fsm/guards.py"
    ]
    assert "git cannot confirm the code it ran" in results["seed-5"].problems[0]
    assert "is not a commit of the repository" in results["seed-6"].problems[0]

    study_root(frozen)
    listed = CliRunner().invoke(main, ["audit", str(out)])
    assert listed.exit_code == 1
    assert "FAIL         m/FSM/seed-4  completed [simulated]" in listed.output
