"""Exclusive sessions (issue 10, finding 1): a session folder is claimed before anything is
written into it; a second runner is refused or finds the finished session, never writes into
it. Unit tests of the claim, and 8 tries (two tests of four) of two concurrent runner processes on
one session with the real CLI against the simulator."""

from __future__ import annotations

import errno
import fcntl
import json
import multiprocessing
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from study.runner.claim import CLAIM_NAME, SessionClaimed, SessionExists, claim_session
from study.runner.matrix import plan_matrix
from study.runner.session import SessionSpec, prepare
from study.session_io.meta import runner_identity
from study.session_io.reader import read_session


def _dead_pid() -> int:
    return int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout)


def test_a_held_claim_refuses_a_second_runner_naming_the_holder(tmp_path):
    with claim_session(tmp_path / "s") as claim:
        holder = json.loads(claim.path.read_text())
        assert holder["pid"] == runner_identity()["pid"] and holder["host"] == socket.gethostname()
        with pytest.raises(SessionClaimed, match=rf"is being run by the runner pid {holder['pid']} on"):
            claim_session(tmp_path / "s")
    assert not (tmp_path / "s" / CLAIM_NAME).exists()   # released: removed
    with claim_session(tmp_path / "s"):                   # and free again
        pass
    assert issubclass(SessionClaimed, SessionExists)


def test_the_claim_of_a_killed_runner_is_taken_over(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()
    # a runner SIGKILLed while holding the claim leaves the file, and the kernel drops its lock
    (folder / CLAIM_NAME).write_text(json.dumps({**runner_identity(), "pid": _dead_pid()}))
    with claim_session(folder) as claim:
        assert json.loads(claim.path.read_text())["pid"] == runner_identity()["pid"]


def test_without_locks_the_recorded_identity_decides(tmp_path, monkeypatch):
    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_flock)
    folder = tmp_path / "s"
    folder.mkdir()
    claim_file = folder / CLAIM_NAME
    claim_file.write_text(json.dumps({**runner_identity(), "pid": _dead_pid()}))   # dead runner here: stale
    with claim_session(folder):
        with pytest.raises(SessionClaimed, match="this filesystem has no locks"):  # this (live) runner
            claim_session(folder)
    claim_file.write_text(json.dumps({**runner_identity(), "pid_start": "1"}))  # our pid, another process
    with claim_session(folder):
        pass
    claim_file.write_text(json.dumps({**runner_identity(), "host": "elsewhere"}))  # cannot be checked
    with pytest.raises(SessionClaimed, match=f"remove {claim_file}"):
        claim_session(folder)


def test_run_all_plans_each_session_once(tmp_path):
    spec = SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=tmp_path)
    other = SessionSpec(condition="Plain", seed=3, model="sim:oracle", accounts=1, out_root=tmp_path)
    planned = plan_matrix([spec, other, SessionSpec(**vars(spec))])   # --seeds 2,3,2
    assert [p.spec.seed for p in planned] == [2, 3]


def test_run_all_skips_a_session_another_runner_holds(tmp_path):
    import io

    from study.runner.matrix import run_matrix

    spec = SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=tmp_path)
    out = io.StringIO()
    with claim_session(prepare(spec).session_dir):   # "another runner": the worker cannot claim it
        result = run_matrix([spec], stream=out)
    assert not result.ran and not result.errors
    assert "is being run by the runner pid" in result.skipped[0][1]
    me = runner_identity()
    assert f"seed-2-first-1: skipped: held by pid {me['pid']} on host {me['host']}" in out.getvalue()
    assert "ended" not in out.getvalue() and "0/0 done, 0 running, 0 queued; 1 skipped" in out.getvalue()


def test_study_run_refuses_a_claimed_or_finished_session_in_one_line_with_exit_2(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from study.cli import main

    monkeypatch.setattr("study.prereg.check_before_run", lambda root=None: "c0ffee" * 10 + "c0ff")
    args = ["run", "--condition", "Plain", "--seed", "2", "--model", "sim:oracle", "--sessions", str(tmp_path)]
    folder = prepare(SessionSpec(condition="Plain", seed=2, model="sim:oracle", out_root=tmp_path,
                                 manifest_sha256="c0ffee" * 10 + "c0ff")).session_dir
    with claim_session(folder):
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("Error:")]
    assert "is being run by the runner pid" in line and "Traceback" not in result.output
    (folder / "events.jsonl").write_text("")   # a session ran here already
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "already holds a session" in result.output
    assert sorted(p.name for p in folder.iterdir()) == ["events.jsonl"]   # nothing else was created


# ----- two runner processes on one session, the real CLI ----------------------------------------

def _racer(barrier, out_roots: list[str], results) -> None:
    """One runner process: for each try, wait for the other runner, then run the session."""
    from study.runner.session import SessionSpec, run_session

    for root in out_roots:
        barrier.wait()
        spec = SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=Path(root),
                           limit_overrides={"wall_time_s": 1.0})
        try:
            run_session(spec)
            results.put((root, "ran", ""))
        except SessionClaimed as exc:
            results.put((root, "claimed", str(exc)))
        except SessionExists as exc:
            results.put((root, "exists", str(exc)))
        except BaseException as exc:  # reported, so the test fails with it
            results.put((root, "error", f"{type(exc).__name__}: {exc}"))


#: 8 tries in all, in rounds of 4 (one test each), so that pytest-xdist spreads them over its workers. Each try
#: is one real session (the winner's); what the two runners race for is the claim, taken before the session
#: writes anything (its exclusion without a race: the unit tests above).
TRIES, ROUNDS = 8, 2


@pytest.mark.e2e
@pytest.mark.parametrize("round_", range(ROUNDS), ids=[f"tries-{r * TRIES // ROUNDS}-{(r + 1) * TRIES // ROUNDS - 1}"
                                                       for r in range(ROUNDS)])
def test_two_concurrent_runners_on_one_session_never_merge_their_logs(tmp_path, round_):
    per_round = TRIES // ROUNDS
    tries = [str(tmp_path / f"try-{i}") for i in range(round_ * per_round, (round_ + 1) * per_round)]
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    racers = [context.Process(target=_racer, args=(barrier, tries, results)) for _ in range(2)]
    for racer in racers:
        racer.start()
    outcomes: dict[str, list[tuple[str, str]]] = {root: [] for root in tries}
    for _ in range(2 * len(tries)):
        root, outcome, message = results.get(timeout=300)
        outcomes[root].append((outcome, message))
    for racer in racers:
        racer.join(timeout=60)
    counts = {"claimed": 0, "exists": 0}
    for root, pair in outcomes.items():
        kinds = sorted(o for o, _ in pair)
        assert kinds in (["claimed", "ran"], ["exists", "ran"]), (root, pair)
        for outcome, message in pair:
            if outcome != "ran":
                counts[outcome] += 1
                assert "\n" not in message and "seed-2" in message   # one line naming the folder
        folder = prepare(SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=Path(root),
                                     limit_overrides={"wall_time_s": 1.0})).session_dir
        session = read_session(folder, strict=False)
        assert session.valid, [str(i) for i in session.issues]
        kinds_logged = [e["kind"] for e in session.log.events]
        assert kinds_logged.count("session_start") == 1 and kinds_logged.count("session_end") == 1
        assert not (folder / CLAIM_NAME).exists()
    print(f"refused while running: {counts['claimed']}, found finished (serialised): {counts['exists']}")


# ----- a running session whose runner is gone, on whichever host (issue 23, item 4) --------------

def _running_session(root: Path, runner: dict) -> Path:
    """A session folder as a runner left it when its node crashed: meta.json ``running`` with
    the runner's identity, its claim file (whose lock died with the node)."""
    from study.session_io.meta import write_meta

    spec = SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=root)
    folder = prepare(spec).session_dir
    folder.mkdir(parents=True)
    write_meta(folder, {"status": "running", "condition": "Plain", "seed": 2, "model": "sim:oracle",
                        "runner": runner})
    (folder / CLAIM_NAME).write_text(json.dumps({**runner, "claimed": "2026-01-01T00:00:00Z"}))
    return folder


ELSEWHERE = {"host": "node-17.cluster", "pid": 4242, "pid_start": "99"}


@pytest.mark.parametrize("runner", [ELSEWHERE, {**ELSEWHERE, "pid": 0}, {**ELSEWHERE, "pid": -1},
                                    {"host": "node-17.cluster"}, {**runner_identity(), "pid": 0},
                                    {**runner_identity(), "pid": -1}, {"host": socket.gethostname()}],
                         ids=["other-host", "other-host-pid-0", "other-host-pid--1", "other-host-no-pid",
                              "here-pid-0", "here-pid--1", "here-no-pid"])
def test_a_running_session_whose_claim_lock_is_free_is_unfinished_and_rerun(tmp_path, runner):
    from study.runner.status import scan

    folder = _running_session(tmp_path, runner)
    spec = SessionSpec(condition="Plain", seed=2, model="sim:oracle", accounts=1, out_root=tmp_path)
    (row,) = scan(tmp_path)
    assert row.status == "unfinished"
    assert [p.action for p in plan_matrix([spec], rerun_voided=True)] == ["rerun"]
    with claim_session(folder):   # a live runner holds it (here, or on another node over NFS): running
        (row,) = scan(tmp_path)
        assert row.status == "running"
        assert [p.action for p in plan_matrix([spec], rerun_voided=True)] == ["skip"]


def test_without_locks_only_a_runner_on_this_host_can_be_known_gone(tmp_path, monkeypatch):
    from study.runner.status import scan

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_flock)
    here = _running_session(tmp_path / "a", {**runner_identity(), "pid": -1})
    (row,) = scan(tmp_path / "a")
    assert row.status == "unfinished"   # pid -1 names no runner: it is gone (os.kill(-1, 0) says "alive")
    _running_session(tmp_path / "b", ELSEWHERE)
    (row,) = scan(tmp_path / "b")
    assert row.status == "running"      # cannot be told from here
    with claim_session(here):           # and the claim of a runner known gone is taken over
        pass


def test_a_runner_claiming_while_status_looks_at_the_lock_is_not_refused(tmp_path, monkeypatch):
    from study.runner import claim as claim_module

    folder = tmp_path / "s"
    folder.mkdir()
    (folder / CLAIM_NAME).write_text("{}")
    real = fcntl.flock
    calls = []

    def busy_once(fd, op):   # the first try meets the shared lock of a status looking at it
        calls.append(op)
        if len(calls) == 1:
            raise BlockingIOError(errno.EWOULDBLOCK, "busy")
        return real(fd, op)

    monkeypatch.setattr(claim_module.fcntl, "flock", busy_once)
    with claim_session(folder):
        pass
    assert len(calls) == 2
