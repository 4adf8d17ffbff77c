"""run, run-all and status speak the shared vocabulary: --sessions (old spellings hidden, with a
note), examples in every help, help on every option, exit code 2 for every usage error (nothing
created), 1 for a failed session, 3 for an interruption."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from study.cli import main
from study.runner import cli as runner_cli
from study.runner.matrix import MatrixInterrupted, MatrixResult

CHECKED = "c0ffee" * 10 + "c0ff"


@pytest.fixture
def frozen(monkeypatch):
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: CHECKED)


@pytest.fixture
def matrix_calls(monkeypatch):
    """run-all's matrix is not run: the call is recorded, and ``matrix_calls.outcome`` (a
    MatrixResult or an exception) is what it returns or raises."""
    class Calls(list):
        outcome: object = MatrixResult()

    calls = Calls()

    def fake(specs, **kwargs):
        calls.append((specs, kwargs))
        if isinstance(calls.outcome, BaseException):
            raise calls.outcome
        return calls.outcome

    monkeypatch.setattr(runner_cli, "run_matrix", fake)
    return calls


SIM = ["--model", "sim:oracle", "--accounts", "2"]


@pytest.mark.parametrize("command", ["run", "run-all", "status"])
def test_help_has_examples_and_every_option_has_help_and_old_spellings_are_hidden(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert f"Examples:\n    study {command}" in result.output
    assert "--sessions DIR" in result.output and "--out" not in result.output and "FOLDER" not in result.output
    cmd = main.get_command(None, command)
    options = [p for p in cmd.params if isinstance(p, click.Option) and not p.hidden]
    assert options and all(p.help for p in options), [p.name for p in options if not p.help]


@pytest.mark.parametrize("args, says", [
    (["run-all", "--conditions", "Nope", "--seeds", "2", *SIM], "unknown condition 'Nope'"),
    (["run", "--condition", "Nope", "--seed", "2", *SIM], "unknown condition 'Nope'"),
    (["run-all", "--conditions", "Plain", "--seeds", "3-2", *SIM], "--seeds"),
    (["run-all", "--conditions", "Plain", "--seeds", "2", "--shard", "0/2", *SIM], "K must be between 1 and N"),
    (["run-all", "--conditions", "Plain", "--seeds", "2", "--shard", "3/2", *SIM], "K must be between 1 and N"),
    (["run-all", "--conditions", "Plain", "--seeds", "2", "--shard", "two", *SIM], "is not K/N"),
    (["run-all", "--conditions", ",", "--seeds", "2", *SIM], "names nothing"),
    (["run-all", "--conditions", "Plain", "--seeds", "2", "--model", "sim:nope", "--accounts", "2"],
     "unknown simulator policy 'nope'"),
    (["run", "--condition", "Plain", "--seed", "2", "--model", "sim:oracle", "--accounts", "0"], "between 1 and 200"),
    (["run", "--condition", "Plain", "--seed", "2", *SIM, "--limit", "hours=2"], "no_decision_s"),
])
def test_every_usage_error_exits_2_with_one_line_and_creates_nothing(tmp_path, frozen, matrix_calls, args, says):
    target = tmp_path / "s"
    result = CliRunner().invoke(main, [*args, "--sessions", str(target)])
    assert result.exit_code == 2, result.output
    assert says in result.output and "Traceback" not in result.output
    assert not target.exists() and matrix_calls == []


def test_status_of_a_missing_folder_or_two_folders_is_a_usage_error(tmp_path):
    assert CliRunner().invoke(main, ["status", "--sessions", str(tmp_path / "none")]).exit_code == 2
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    both = CliRunner().invoke(main, ["status", "--sessions", str(tmp_path / "a"), str(tmp_path / "b")])
    assert both.exit_code == 2 and "give it once, as --sessions DIR" in both.output
    old = CliRunner().invoke(main, ["run-all", "--seeds", "2", "--sessions", str(tmp_path / "a"), "--out", str(tmp_path / "b")])
    assert old.exit_code == 2 and "given twice, as --sessions" in old.output and "give it once, as --sessions DIR" in old.output


def test_the_old_spellings_still_work_with_a_note_on_stderr(tmp_path, frozen, matrix_calls):
    old = CliRunner().invoke(main, ["run-all", "--conditions", "Plain", "--seeds", "2", *SIM, "--out", str(tmp_path)])
    assert old.exit_code == 0, old.output
    assert old.stderr.strip() == "note: --out is now --sessions for this command"
    assert matrix_calls[0][1]["root"] == tmp_path
    listed = CliRunner().invoke(main, ["status", str(tmp_path)])
    assert listed.exit_code == 0 and listed.stderr.strip() == "note: the folder is now --sessions DIR for this command"
    assert listed.stdout.splitlines()[0] == "no session started yet"


def test_run_all_exits_3_when_interrupted_and_1_when_a_session_was_voided(tmp_path, frozen, matrix_calls):
    args = ["run-all", "--conditions", "Plain", "--seeds", "2", *SIM, "--sessions", str(tmp_path)]
    matrix_calls.outcome = MatrixInterrupted(MatrixResult(), "SIGINT")
    stopped = CliRunner().invoke(main, args)
    assert stopped.exit_code == 3 and "interrupted by SIGINT" in stopped.stderr and "--rerun-voided" in stopped.stderr
    matrix_calls.outcome = MatrixResult(ran=[(tmp_path / "x", "infrastructure_failure")])
    assert CliRunner().invoke(main, args).exit_code == 1
    matrix_calls.outcome = MatrixResult(ran=[(tmp_path / "x", "limit:spending")])
    assert CliRunner().invoke(main, args).exit_code == 0     # a limit is a model outcome, not a failure


def test_a_shard_runs_its_part_of_the_matrix_only(tmp_path, frozen, matrix_calls):
    args = ["run-all", "--conditions", "Plain,FSM", "--seeds", "2-4", *SIM, "--sessions", str(tmp_path)]
    ran = []
    for k in (1, 2, 3, 4):
        result = CliRunner().invoke(main, [*args, "--shard", f"{k}/4"])
        assert result.exit_code == 0, result.output
        assert result.output.startswith(f"shard {k}/4: {2 if k < 3 else 1} of the matrix's 6 sessions")
        ran += [(s.condition, s.seed) for s in matrix_calls[-1][0]]
    assert sorted(ran) == sorted((c, s) for c in ("Plain", "FSM") for s in (2, 3, 4))
    empty = CliRunner().invoke(main, [*args, "--shard", "7/7"])
    assert empty.exit_code == 0 and "this shard holds no session" in empty.output and len(matrix_calls) == 4
    # every shard recorded the same matrix, once: status shows the sessions no shard has started
    [plan] = (tmp_path / ".matrix").glob("plan-*.json")
    status = CliRunner().invoke(main, ["status", "--sessions", str(tmp_path)])
    assert status.exit_code == 0
    assert status.stdout.splitlines() == [
        "no session started yet", "",
        f"6 session(s) planned by run-all (.matrix/{plan.name}) not started yet:",
        *(f"  exploratory/sim-oracle/{c}/seed-{s}-first-2" for c in ("FSM", "Plain") for s in (2, 3, 4))]


def test_run_all_help_names_the_sessions_folder_as_the_default():
    result = CliRunner().invoke(main, ["run-all", "--help"])
    assert "[default: sessions/ of the project]" in " ".join(result.output.split())
