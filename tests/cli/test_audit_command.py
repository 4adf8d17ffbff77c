"""``study audit`` in the shared vocabulary: ``--sessions DIR`` (the old positional folder still
works, with a note), and an audit with nothing to check says so and exits 4 instead of passing
with "0 ok, 0 failed"."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from analysis.corpus import write_session
from study.cli import main


@pytest.fixture
def project(tmp_path, frozen_project, monkeypatch):
    root = frozen_project(tmp_path / "project")
    monkeypatch.setenv("STUDY_ROOT", str(root))
    return root


def audit(*args: str):
    return CliRunner().invoke(main, ["audit", *args])


def test_only_exploratory_sessions_is_nothing_to_audit(project, tmp_path):
    demo = tmp_path / "demo"
    for seed in (2, 3):
        write_session(demo / "exploratory/sim-drifting/FSM" / f"seed-{seed}-first-4", model="sim:drifting",
                      condition="FSM", seed=seed, episodes=["fc"] * 4, accounts=4, exploratory=True)
    result = audit("--sessions", str(demo))
    assert result.exit_code == 4, result.output
    assert ("exploratory  exploratory/sim-drifting/FSM/seed-2-first-4  completed [simulated] "
            "(not a preregistered run; excluded)") in result.output
    assert "2 sessions, none analysed; excluded from the analysis: 0 voided, 0 incomplete, 2 exploratory." \
        in result.output
    assert f"Error: nothing to audit: none of the 2 sessions under {demo} is analysed (2 exploratory)" \
        in result.output
    assert "0 ok, 0 failed" not in result.output


def test_no_sessions_is_nothing_to_audit_and_a_missing_folder_is_a_usage_error(project, tmp_path):
    (tmp_path / "empty").mkdir()
    empty = audit("--sessions", str(tmp_path / "empty"))
    assert empty.exit_code == 4
    assert f"Error: nothing to audit: no sessions under {tmp_path / 'empty'}" in empty.output

    missing = audit("--sessions", str(tmp_path / "missing"))
    assert missing.exit_code == 2 and not (tmp_path / "missing").exists()
    assert f"Error: {tmp_path / 'missing'} is not a folder; pass the sessions folder with --sessions DIR" \
        in missing.output

    # the project's own sessions/ not made yet: no bad input, just nothing to audit
    default = audit()
    assert default.exit_code == 4
    assert f"nothing to audit: {project / 'sessions'} does not exist yet" in default.output


def test_the_old_positional_folder_works_with_a_note(project, tmp_path):
    (tmp_path / "empty").mkdir()
    old = audit(str(tmp_path / "empty"))
    assert old.exit_code == 4
    assert old.stderr.startswith("note: the folder is now --sessions DIR for this command\n")
    same = audit(str(tmp_path / "empty"), "--sessions", str(tmp_path / "empty"))   # one folder, twice: as run's --out
    assert same.exit_code == 4
    (tmp_path / "other").mkdir()
    both = audit(str(tmp_path / "empty"), "--sessions", str(tmp_path / "other"))
    assert both.exit_code == 2 and "give it once, as --sessions DIR" in both.output
    assert "[DIRECTORY]" not in audit("--help").output and "--sessions DIR" in audit("--help").output
