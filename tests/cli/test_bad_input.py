"""Bad input to run, run-all and status: one line (no traceback), exit code 2 (4 for nothing to
show), and nothing created (issue 23, item 13)."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from study.cli import main
from study.runner import cli as runner_cli
from study.runner.matrix import MatrixResult
from study.runner.preflight import PreflightError, check_seeds
from study.runner.shard import ShardError, parse_shard

CHECKED = "c0ffee" * 10 + "c0ff"
SIM = ["--model", "sim:oracle", "--accounts", "2"]


@pytest.fixture
def frozen(monkeypatch):
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: CHECKED)


@pytest.fixture
def matrix_calls(monkeypatch):
    calls = []
    monkeypatch.setattr(runner_cli, "run_matrix", lambda specs, **kw: calls.append(specs) or MatrixResult())
    monkeypatch.setattr(runner_cli, "run_prepared", lambda prepared: calls.append(prepared))
    return calls


def refused(result, says: str, code: int = 2) -> None:
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert says in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    return tmp_path


@pytest.mark.parametrize("command", [["run", "--condition", "Plain", "--seed", "2"],
                                     ["run-all", "--conditions", "Plain", "--seeds", "2"]])
def test_a_malformed_ipv6_base_url(in_tmp, frozen, matrix_calls, command):
    result = invoke(*command, "--model", "haiku-4.5", "--accounts", "1", "--base-url", "http://[::1",
                    "--sessions", str(in_tmp / "s"))
    refused(result, "base URL 'http://[::1' is not a URL (Invalid IPv6 URL)")
    assert not (in_tmp / "s").exists() and matrix_calls == []


def test_a_sessions_folder_where_none_can_be_made(in_tmp, frozen, matrix_calls):
    result = invoke("run", "--condition", "Plain", "--seed", "2", *SIM, "--sessions", "/proc/x")
    refused(result, "--sessions /proc/x: no folder can be made in /proc")
    assert not os.path.exists("/proc/x") and matrix_calls == []


@pytest.mark.parametrize("command", [["run", "--condition", "Plain", "--seed", "2", *SIM],
                                     ["run-all", "--conditions", "Plain", "--seeds", "2", *SIM], ["status"]])
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_sessions_folder_name(in_tmp, frozen, matrix_calls, command, value):
    result = invoke(*command, "--sessions", value)
    assert result.exit_code == 2 and "is empty: give a folder" in result.output, result.output
    assert list(in_tmp.iterdir()) == [] and matrix_calls == []


def test_a_sessions_folder_inside_the_preregistration(in_tmp, frozen, matrix_calls):
    from study.paths import prereg_dir

    inside = prereg_dir() / "sess"
    result = invoke("run-all", "--conditions", "Plain", "--seeds", "2", *SIM, "--sessions", str(inside))
    refused(result, "lies inside the preregistration")
    assert not inside.exists() and matrix_calls == []


@pytest.mark.parametrize("folder", ["study", "analysis", "sopbench_tools"])
@pytest.mark.parametrize("command", [["run", "--condition", "Plain", "--seed", "2", *SIM],
                                     ["run-all", "--conditions", "Plain", "--seeds", "2", *SIM]])
def test_a_sessions_folder_inside_the_packages_source_is_refused(in_tmp, frozen, matrix_calls, command, folder,
                                                                monkeypatch):
    """Sessions written into the package's own source folders would turn the checkout dirty."""
    from study.paths import project_root

    source = project_root() / folder
    inside = source / "x"
    result = invoke(*command, "--sessions", str(inside))
    refused(result, f"--sessions {inside} lies inside the package's source folder {source.resolve()}; give a "
                    "folder outside study/, analysis/, sopbench_tools/, preregistration/ with --sessions")
    assert not inside.exists() and matrix_calls == []
    # as a relative path from the checkout, as a user types it
    monkeypatch.chdir(project_root())
    result = invoke(*command, "--sessions", f"{folder}/x")
    refused(result, "lies inside the package's source folder")
    assert not inside.exists() and matrix_calls == []


def test_too_many_seeds_are_refused_at_once(in_tmp, frozen, matrix_calls):
    result = invoke("run-all", "--conditions", "Plain", "--seeds", "2-40000", *SIM, "--sessions", str(in_tmp / "s"))
    assert result.exit_code == 2 and "at most 1000 seeds" in result.output, result.output
    assert not (in_tmp / "s").exists() and matrix_calls == []
    with pytest.raises(PreflightError, match="at most 1000 seeds"):
        check_seeds("1-999999999999999")          # refused before the range is expanded


@pytest.mark.parametrize(("text", "says"), [
    ("٣", "is not a seed or a range"),                    # Arabic-Indic digits
    ("2-٩", "is not a seed or a range"),
    ("2--3", "is not a seed or a range"),
    ("-3", "is not a seed or a range"),
    ("9-2", "write the lower seed first (2-9)"),
])
def test_seeds_are_ascii_whole_numbers(text, says):
    with pytest.raises(PreflightError) as error:
        check_seeds(text)
    assert says in str(error.value)
    assert "(-3-2)" not in str(error.value)


def test_a_limit_given_twice(in_tmp, frozen, matrix_calls):
    result = invoke("run", "--condition", "Plain", "--seed", "2", *SIM, "--limit", "turns=5", "--limit", "turns=6",
                    "--sessions", str(in_tmp / "s"))
    assert result.exit_code == 2 and "turns is given more than once" in result.output, result.output
    assert not (in_tmp / "s").exists() and matrix_calls == []


def test_status_of_an_empty_folder_is_nothing_to_show_and_of_a_missing_legacy_folder_a_usage_error(in_tmp):
    (in_tmp / "empty").mkdir()
    refused(invoke("status", "--sessions", str(in_tmp / "empty")), "no session under", code=4)
    legacy = invoke("status", str(in_tmp / "none"))
    assert legacy.exit_code == 2 and "is not a folder" in legacy.output, legacy.output
    assert not (in_tmp / "none").exists()


@pytest.mark.parametrize("text", ["٣/٤", "3/4\n", "3/4\t", "\n3/4", "３/４"])
def test_a_shard_is_ascii_digits_without_other_whitespace(text):
    with pytest.raises(ShardError, match="is not K/N"):
        parse_shard(text)
    assert str(parse_shard(" 3 / 4 ")) == "3/4"


def test_a_shard_in_other_digits_is_refused_by_run_all(in_tmp, frozen, matrix_calls):
    result = invoke("run-all", "--conditions", "Plain", "--seeds", "2", *SIM, "--shard", "٣/٤",
                    "--sessions", str(in_tmp / "s"))
    assert result.exit_code == 2 and "is not K/N" in result.output, result.output
    assert not (in_tmp / "s").exists() and matrix_calls == []
