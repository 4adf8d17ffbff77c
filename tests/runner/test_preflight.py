"""Bad input is refused before anything is created (issue 10, findings 7 and 8).

Each case is typed as a user types it (``study run``, ``study run-all``, ``study demo`` through
click's CliRunner; the read-only folder through a real subprocess): exit code 2, one line saying
what to do, no traceback, and no folder created. Before this check existed, each of these either
ran (an unplanned seed as a confirmatory session, ``nan`` as a spending cap), ran nothing and
exited 0 (``--seeds 9-2``), made a voided session (a blank key, ``--base-url notaurl``), waited
minutes (a dead endpoint) or printed a traceback (``--out`` a file).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main

CHECKED = "c0ffee" * 10 + "c0ff"  # what a passing preregistration check returns (a manifest hash)


@pytest.fixture(autouse=True)
def frozen(monkeypatch):
    """The preregistration check passes (it has its own tests); no endpoint or proxy from outside."""
    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: CHECKED)
    for name in ("ANTHROPIC_BASE_URL", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-key")


def refused(tmp_path: Path, *args: str, out: Path | None = None, command: str = "run"):
    """Invoke ``study <command> ... --sessions <out>``; assert a clean refusal and that nothing was created."""
    out = out if out is not None else tmp_path / "sessions"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = CliRunner().invoke(main, [command, *args, "--sessions", str(out)])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(error_lines) == 1 and result.output.rstrip().endswith(error_lines[0]), result.output
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before, "something was created"
    return error_lines[0]


def run_args(*extra: str, seed: str = "2", model: str = "sim:oracle") -> list[str]:
    return ["--condition", "Plain", "--seed", seed, "--model", model, *extra]


# ----- finding 7: seeds, seed ranges, jobs -------------------------------------------------------

def test_an_unplanned_seed_cannot_make_a_confirmatory_session_and_the_error_says_how_to_add_one(tmp_path):
    line = refused(tmp_path, *run_args(seed="99"))
    assert "seed 99 has no frozen order in preregistration/orders/" in line
    assert "planned seeds: 1-9, 13-15" in line
    assert 'study prereg add-seed 99 --reason "..."' in line and "--accounts" in line
    # the real model too (the seed is checked before the endpoint)
    assert "no frozen order" in refused(tmp_path, *run_args(seed="10", model="haiku-4.5"))


@pytest.mark.parametrize("seed", ["0", "-3"])
def test_a_seed_below_1_is_refused(tmp_path, seed):
    assert f"seed {seed} is not a seed" in refused(tmp_path, *run_args(seed=seed))
    assert "is not a seed" in refused(tmp_path, *run_args("--accounts", "1", seed=seed))


@pytest.mark.parametrize("seeds, says", [
    ("9-2", "empty range"), ("", "names no seed"), (" , ", "names no seed"), ("0-3", "from 1"),
    ("2,x", "not a seed or a range"), ("2-", "not a seed or a range"), ("2-9,4", "more than once"),
    ("99", "no frozen order"), ("2,99", "no frozen order"),
])
def test_run_all_refuses_bad_seed_lists_instead_of_running_nothing(tmp_path, seeds, says):
    assert says in refused(tmp_path, "--models", "sim:oracle", "--seeds", seeds, command="run-all")


@pytest.mark.parametrize("jobs", ["0", "-4"])
def test_jobs_below_1_are_refused(tmp_path, jobs):
    line = refused(tmp_path, "--models", "sim:oracle", "--seeds", "2", "--jobs", jobs, command="run-all")
    assert "--jobs" in line and "x>=1" in line
    assert "--jobs" in refused(tmp_path, "--jobs", jobs, command="demo")


def test_empty_model_and_condition_lists_are_refused(tmp_path):
    assert "names nothing" in refused(tmp_path, "--models", ",", "--seeds", "2", command="run-all")
    assert "names nothing" in refused(tmp_path, "--conditions", "", "--seeds", "2", command="run-all")
    assert "listed twice" in refused(tmp_path, "--models", "sim:oracle", "--conditions", "Plain,Plain",
                                     "--seeds", "2", command="run-all")


def test_demo_refuses_bad_seeds_and_accounts(tmp_path):
    assert "empty range" in refused(tmp_path, "--seeds", "3-2", command="demo")
    assert "--accounts" in refused(tmp_path, "--accounts", "0", command="demo")


@pytest.mark.parametrize("accounts", ["0", "201", "-1"])
def test_an_account_count_outside_the_batch_is_refused(tmp_path, accounts):
    assert "between 1 and 200" in refused(tmp_path, *run_args("--accounts", accounts))


@pytest.mark.e2e
def test_an_unplanned_seed_still_runs_as_an_exploratory_development_session(tmp_path):
    """--accounts makes the session exploratory, so any seed may be used (its order is computed)."""
    from sopbench_tools.orders import computed_order
    from study.session_io.reader import log_events

    result = CliRunner().invoke(main, ["run", *run_args("--accounts", "1", seed="99"), "--sessions", str(tmp_path)])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "exploratory" / "sim-oracle" / "Plain" / "seed-99-first-1"
    start = log_events(folder / "events.jsonl")[0]
    assert start["exploratory"] is True and start["order"] == computed_order(99)[:1]


# ----- finding 8: limits ----------------------------------------------------------------------------

@pytest.mark.parametrize("override, says", [
    ("spending_usd=nan", "finite number > 0"), ("spending_usd=inf", "finite number > 0"),
    ("spending_usd=-1", "finite number > 0"), ("spending_usd=0", "finite number > 0"),
    ("no_decision_s=-inf", "finite number > 0"), ("wall_time_s=abc", "is not a number"),
    ("turns=2.5", "whole number"), ("spending=5", "name one of"), ("turns", "name=value"),
])
def test_a_bad_limit_override_is_one_line_and_creates_nothing(tmp_path, override, says):
    assert says in refused(tmp_path, *run_args("--limit", override))
    assert says in refused(tmp_path, "--models", "sim:oracle", "--seeds", "2", "--limit", override, command="run-all")


@pytest.mark.parametrize("value, says", [(".nan", "finite number > 0"), (".inf", "finite number > 0"),
                                         ("-1", "finite number > 0"), ("0", "finite number > 0"),
                                         ("'25'", "finite number > 0")])
def test_limits_yaml_values_are_checked_finite_and_positive(tmp_path, monkeypatch, value, says):
    from study.paths import prereg_dir

    root = tmp_path / "checkout"
    shutil.copytree(prereg_dir(), root / "preregistration")
    limits = root / "preregistration" / "limits.yaml"
    limits.write_text(limits.read_text().replace("  default: 25\n", f"  default: {value}\n"))
    monkeypatch.setenv("STUDY_ROOT", str(root))
    line = refused(tmp_path, *run_args(), out=tmp_path / "sessions")
    assert "limits.yaml: spending (for sim:oracle)" in line and says in line


# ----- finding 8: API key, base URL, endpoint -------------------------------------------------------

@pytest.mark.parametrize("key, says", [
    ("", "needs an API key"), ("   ", "empty or blank"), ("sk-abc\n", "whitespace"), ("sk abc", "whitespace"),
    ("sk-\x07abc", "control character"), ("sk-\u2019abc", "non-ASCII"),
])
def test_an_api_key_of_the_wrong_form_is_refused_without_showing_it(tmp_path, monkeypatch, key, says):
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    line = refused(tmp_path, *run_args(model="haiku-4.5"))
    assert "ANTHROPIC_API_KEY" in line and says in line
    assert "abc" not in line


@pytest.mark.parametrize("url", ["notaurl", "ftp://example.org", "http://", "https://:443", "http://host:99999",
                                 "http://exa mple.org", ""])
def test_a_base_url_that_is_not_an_http_url_is_refused(tmp_path, url):
    line = refused(tmp_path, *run_args("--base-url", url, model="haiku-4.5"))
    assert "base URL" in line and "http:// or https://" in line and "--base-url" in line


def test_a_bad_base_url_from_the_environment_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "localhost:8080")
    line = refused(tmp_path, *run_args(model="haiku-4.5"))
    assert "'localhost:8080'" in line and "(ANTHROPIC_BASE_URL)" in line


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dead_endpoint_fails_fast_as_cannot_reach(tmp_path):
    url = f"http://127.0.0.1:{_closed_port()}"
    started = time.monotonic()
    line = refused(tmp_path, *run_args("--base-url", url, model="haiku-4.5"))
    assert line.startswith(f"Error: cannot reach {url}: ") and "refused" in line
    assert time.monotonic() - started < 60  # was ~3 minutes, then a voided session
    assert "cannot reach" in refused(tmp_path, "--models", "haiku-4.5", "--seeds", "2,3", "--base-url", url,
                                     command="run-all")


def test_a_dead_proxy_is_named_and_its_credentials_are_not(tmp_path, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", f"http://user:secret@127.0.0.1:{_closed_port()}")
    line = refused(tmp_path, *run_args("--base-url", "https://api.example.org", model="haiku-4.5"))
    assert "cannot reach https://api.example.org through the proxy 127.0.0.1:" in line and "secret" not in line


def test_credentials_in_a_base_url_are_never_shown(tmp_path):
    url = f"http://user:secret@127.0.0.1:{_closed_port()}/v1?token=secret2"
    line = refused(tmp_path, *run_args("--base-url", url, model="haiku-4.5"))
    assert line.startswith("Error: cannot reach http://127.0.0.1:") and "secret" not in line
    assert "secret" not in refused(tmp_path, *run_args("--base-url", "ftp://u:secret@host", model="haiku-4.5"))


# ----- finding 8: the output folder ------------------------------------------------------------------

def test_an_output_folder_that_is_a_file_or_under_a_file_is_refused(tmp_path):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    assert "is a file" in refused(tmp_path, *run_args(), out=a_file)
    assert f"{a_file} is a file" in refused(tmp_path, *run_args(), out=a_file / "sessions")
    assert f"{a_file} is a file" in refused(tmp_path, "--models", "sim:oracle", "--seeds", "2", command="run-all",
                                            out=a_file / "sessions")
    assert f"{a_file} is a file" in refused(tmp_path, command="demo", out=a_file / "demo")
    dangling = tmp_path / "gone"
    dangling.symlink_to(tmp_path / "nowhere")
    assert "is a link to nothing" in refused(tmp_path, *run_args(), out=dangling / "sessions")


_CHILD = """
import sys
import study.prereg
study.prereg.check_before_run = lambda root=None: "c0ffee"
from study.cli import main
main(args=sys.argv[1:], prog_name="study")
"""


def _read_only_command(folder: Path) -> list[str] | None:
    """A command prefix under which ``folder`` is not writable: a read-only bind mount in a private
    mount namespace as root, plain permissions otherwise; None if neither is available."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return []
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if shutil.which("unshare") is None or probe.returncode != 0:
        return None
    return ["unshare", "-m", "sh", "-c",
            f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" && exec "$@"', "sh"]


def test_an_output_folder_that_is_not_writable_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    prefix = _read_only_command(locked)
    if prefix is None:
        pytest.skip("running as root without unshare: no folder can be made unwritable")
    try:
        for args in (["run", *run_args()], ["run-all", "--models", "sim:oracle", "--seeds", "2"]):
            done = subprocess.run([*prefix, sys.executable, "-c", _CHILD, *args, "--sessions", str(locked / "sessions")],
                                  capture_output=True, text=True, timeout=120)
            assert done.returncode == 2, done.stderr
            assert done.stderr.strip().splitlines()[-1] == (
                f"Error: --sessions {locked / 'sessions'}: {locked} is not writable; give a folder you can write to with --sessions")
            assert "Traceback" not in done.stderr and list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


# ----- help ---------------------------------------------------------------------------------------

def test_help_states_the_rules():
    run_help = CliRunner().invoke(main, ["run", "--help"]).output
    run_all_help = CliRunner().invoke(main, ["run-all", "--help"]).output
    for text in (run_help, run_all_help):
        flat = " ".join(text.split())
        assert "frozen order in preregistration/orders/" in flat and "exploratory (--accounts)" in flat
        assert "finite number > 0" in flat and "spending_usd" in flat and "writable" in flat
        assert "2 on a bad input (nothing is created)" in flat and "3 when" in flat
    assert "at least 1" in " ".join(run_all_help.split())
