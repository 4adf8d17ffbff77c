"""The study on Codex CLI: the real pinned binary, the study's MCP tools and hooks through the
relays, against the simulator speaking the Responses API (offline, no key).

Each session is run once, when a test first asks for it (``sessions[name]``), and kept for the
module; a test asks for the sessions it reads, so the tests spread over workers without running a
session twice:
the oracle decides all of a 10-account FSM batch compliantly and correctly; every condition runs
under the drifting policy; under the gated conditions the adversary gets no off-procedure
decision through; for every policy, the scorer's escape routes equal the simulator's ground truth
(Remind-loop: resumed with ``codex exec resume``); a forced compaction, a quota error, the turns
limit and the stop-block cap end or continue sessions as on Claude Code.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from analysis.scoring import score_session_dir
from study.runner.session import SessionSpec, run_session
from study.runtimes.codex import pin
from study.sim import route_counts

from ..agent_paths import assert_the_model_saw_no_session_name

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(pin.problem() is not None, reason=f"Codex CLI cannot run here: {pin.problem()}"),
]

#: The conditions run on Codex under the drifting policy: each part a condition adds once (the SOP
#: in the instructions, the reminder, the resume loop, the stop gate, the gates, both); Plain-loop
#: and Sys-loop only combine parts these cover (all nine run on Claude Code: tests/sim/test_acceptance_e2e.py).
CONDITIONS = ["Plain", "Sys", "Remind", "Remind-loop", "FSM", "Stop-only", "Gates-only"]
#: The gated conditions the adversary runs on Codex: the FSM's workflow and the lean one (Gates-only
#: has the same gate without the stop gate: its drifting session below runs on Codex, and its
#: adversary on Claude Code in tests/sim/test_acceptance_e2e.py).
GATED = ["FSM", "FSM-lean"]
ROUTE_ACCOUNTS = 4
#: Policies that between them take every escape route, read from Codex's sessions: the adversary
#: (ending the turn, deciding without looking, interleaving), partial data, another account's
#: decision, and early stops with the first token's remark. blind, batcher and interleaver take
#: routes the adversary takes too (all of them run on Claude Code in tests/sim/test_acceptance_e2e.py).
ROUTE_POLICIES = ["adversarial", "partial", "wrong-account", "early-stop"]


def _jobs() -> dict[str, dict]:
    jobs: dict[str, dict] = {"oracle-FSM-10": dict(model="sim:oracle", condition="FSM", accounts=10, seed=2)}
    for condition in CONDITIONS:
        jobs[f"drifting-{condition}"] = dict(model="sim:drifting", condition=condition, accounts=3, seed=3)
    for condition in GATED:
        jobs[f"adversarial-{condition}"] = dict(model="sim:adversarial", condition=condition, accounts=ROUTE_ACCOUNTS, seed=1)
    for policy in ROUTE_POLICIES:
        jobs[f"routes-{policy}"] = dict(model=f"sim:{policy}", condition="Remind-loop", accounts=ROUTE_ACCOUNTS, seed=1)
    jobs["compaction"] = dict(model="sim:early-stop", condition="FSM", accounts=4, seed=2, sim_options={"compact_after": 2})
    jobs["quota"] = dict(model="sim:oracle", condition="Remind", accounts=2, seed=2,
                         sim_options={"fault": "quota", "fault_at": 4})
    jobs["turns"] = dict(model="sim:oracle", condition="Plain", accounts=2, seed=2, limit_overrides={"turns": 5})
    jobs["stop-cap"] = dict(model="sim:early-stop", condition="FSM", accounts=3, seed=2,
                            sim_options={"k": 0}, limit_overrides={"stop_blocks": 1})
    return jobs


#: The sessions whose every model request the simulator writes down (``_Sessions.requests``).
LOGGED = ("oracle-FSM-10",)


class _Sessions:
    """The module's Codex sessions, each run on first use."""

    def __init__(self, root: Path):
        self.root, self.jobs, self.done = root, _jobs(), {}

    def requests(self, name: str) -> list[dict]:
        """Every request body Codex sent the simulator in session ``name`` (one of ``LOGGED``)."""
        self[name]
        path = self.root / f"{name}.requests.jsonl"
        return [json.loads(line)["body"] for line in path.read_text(encoding="utf-8").splitlines()]

    def __getitem__(self, name: str) -> Path:
        if name not in self.done:
            job = dict(self.jobs[name])
            if name in LOGGED:
                job["sim_options"] = {**job.get("sim_options", {}),
                                      "request_log": str(self.root / f"{name}.requests.jsonl")}
            self.done[name] = run_session(SessionSpec(out_root=self.root / name, runtime="codex", **job))
        return self.done[name]


@pytest.fixture(scope="module")
def sessions(tmp_path_factory) -> _Sessions:
    return _Sessions(tmp_path_factory.mktemp("codex"))


def _meta(folder: Path) -> dict:
    return json.loads((folder / "meta.json").read_text())


def _events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]


def test_the_oracle_decides_a_ten_account_fsm_batch_with_fc_ten(sessions):
    folder = sessions["oracle-FSM-10"]
    meta, score = _meta(folder), score_session_dir(folder)
    assert (meta["status"], score.fc, score.decided, score.correct, score.compliance) == ("completed", 10, 10, 10, 1.0)
    start = _events(folder)[0]
    assert (start["schema"], start["runtime"], start["cli_version"]) == (3, "codex", pin.pinned_version())
    assert start["runtime_lock_sha256"] == pin.lock_sha256() and meta["runtime"] == "codex"
    assert folder.parent.parent.name == "sim-oracle@codex"
    # Codex reports no cost: the session's cost is its responses' usage at the stand-in's list price
    usage = [e for e in _events(folder) if e["kind"] == "usage"]
    assert usage and meta["cost_usd"] == pytest.approx(usage[-1]["session_cost_usd"], abs=1e-6) and meta["cost_complete"]
    assert start["prices_per_mtok"]["input"] == 0.75    # simulated, priced as gpt-5.4-mini
    # Codex's SQLite write-ahead logs are folded into their databases once the session ends
    import sqlite3

    home = folder / "home" / ".codex"
    assert [p.name for p in home.glob("*.sqlite-wal") if p.stat().st_size] == []
    with sqlite3.connect(home / "state_5.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert db.execute("SELECT count(*) FROM threads").fetchone()[0] >= 1


def test_every_request_carries_the_aliass_reasoning_effort_and_the_log_records_it(sessions):
    """models.yaml runs gpt-5.4-mini (and the simulator standing in for it) at medium reasoning
    effort, as the paper did: Codex sends it with every request (issue 49, item 1)."""
    start = _events(sessions["oracle-FSM-10"])[0]
    assert start["model_settings"] == {"reasoning_effort": "medium"}
    assert start["cli_settings"]["config"]["model_reasoning_effort"] == "medium"
    requests = sessions.requests("oracle-FSM-10")
    assert len(requests) >= 20
    assert {json.dumps(r.get("reasoning"), sort_keys=True) for r in requests} == {'{"effort": "medium", "summary": "auto"}'}


def test_the_working_folder_codex_shows_the_model_names_nothing_of_the_session(sessions):
    """Codex CLI puts its working folder in every request (<environment_context>'s cwd): it is the
    agent's folder, named by no model, condition or seed (issue 49, item 5)."""
    folder = sessions["oracle-FSM-10"]
    text = (sessions.root / "oracle-FSM-10.requests.jsonl").read_text(encoding="utf-8")
    seen = assert_the_model_saw_no_session_name(text, sessions.root / "oracle-FSM-10", folder)
    assert any(path.endswith("/work") for path in seen)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_every_condition_runs_on_codex_under_the_drifting_policy(sessions, condition):
    folder = sessions[f"drifting-{condition}"]
    meta = _meta(folder)
    assert meta["status"] in ("completed", "ended_with_accounts_left"), meta
    assert meta["simulated"] is True and meta["runtime"] == "codex" and not meta["voided"]
    assert score_session_dir(folder).routes == route_counts(folder / "sim_truth.jsonl")


@pytest.mark.parametrize("condition", GATED)
def test_the_adversary_gets_no_off_procedure_decision_through_the_gated_conditions(sessions, condition):
    folder = sessions[f"adversarial-{condition}"]
    score, truth = score_session_dir(folder), route_counts(folder / "sim_truth.jsonl")
    assert _meta(folder)["status"] == "completed"
    assert score.routes == truth
    assert (truth["without_looking"], truth["partial_data"], truth["interleaved"]) == (0, 0, 0)
    assert score.compliant == score.decided == ROUTE_ACCOUNTS
    denied = [e for e in _events(folder) if e["kind"] == "tool_call" and e["allowed"] is False]
    assert denied and all(e["error"] for e in denied)     # the gate refused, and said why


@pytest.mark.parametrize("policy", ROUTE_POLICIES)
def test_the_scorers_escape_routes_equal_the_simulators_truth(sessions, policy):
    folder = sessions[f"routes-{policy}"]
    assert _meta(folder)["status"] == "completed", _meta(folder)
    assert score_session_dir(folder).routes == route_counts(folder / "sim_truth.jsonl")


def test_remind_loop_resumes_the_codex_thread_when_the_turn_ends_with_accounts_left(sessions):
    folder = sessions["routes-early-stop"]
    events = _events(folder)
    assert [e["n"] for e in events if e["kind"] == "resume"] == [1]
    assert [e["outcome"] for e in events if e["kind"] == "stop"][0] == "ended"
    # the resumed call continued the same thread: one rollout, kept once as transcript.jsonl
    rollouts = list((folder / "home" / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert len(rollouts) == 1 and os.path.samefile(rollouts[0], folder / "transcript.jsonl")
    assert _meta(folder)["session_id"] in rollouts[0].name


def test_a_compaction_keeps_the_fsm_state_and_the_session_completes(sessions):
    folder = sessions["compaction"]
    events = _events(folder)
    kinds = [e["kind"] for e in events]
    assert "compaction" in kinds and _meta(folder)["status"] == "completed"
    after = events[kinds.index("compaction"):]
    assert [e for e in after if e["kind"] == "tool_call" and e["tool"] == "submit_decision" and e["ok"]]
    assert score_session_dir(folder).fc == 4


def test_a_quota_error_voids_the_session_and_keeps_what_ran(sessions):
    meta = _meta(sessions["quota"])
    assert meta["status"] == "infrastructure_failure" and meta["voided"] is True
    assert "Quota exceeded" in meta["void_reason"]
    assert [e for e in _events(sessions["quota"]) if e["kind"] == "tool_call"]


def test_the_turns_limit_ends_the_call_at_that_many_model_responses(sessions):
    meta = _meta(sessions["turns"])
    assert meta["status"] == "limit:turns" and not meta["voided"]
    # Codex has no limit of its own: the adapter stops it at the 5th response; one more may have
    # completed while it stopped (its usage is kept: it was paid for)
    assert 5 <= len([e for e in _events(sessions["turns"]) if e["kind"] == "usage"]) <= 6


def test_the_stop_block_cap_lets_the_turn_end_as_codex_has_no_cap_of_its_own(sessions):
    folder = sessions["stop-cap"]
    stops = [e for e in _events(folder) if e["kind"] == "stop"]
    assert [s["outcome"] for s in stops[:2]] == ["blocked", "ended"], stops
    assert stops[1]["block_cap_reached"] is True
    assert _meta(folder)["status"] == "limit:stop_blocks"


def test_the_viewer_reads_the_codex_transcript_as_a_conversation(sessions):
    from study.transcripts import turns

    lines = [line for line in (sessions["adversarial-FSM"] / "transcript.jsonl").read_bytes().split(b"\n") if line]
    conversation, other = turns("codex", lines)
    roles = {t["role"] for t in conversation}
    assert {"user", "call", "stop-block"} <= roles and other > 0
    calls = [t for t in conversation if t["role"] == "call"]
    assert any(t.get("denied") for t in calls) and all(t["result"] is not None for t in calls)
    # the same flags as the log's, as on Claude Code: a call the FSM's tool refused (its rollout
    # says isError) is an error, a call the gate denied is denied
    logged = {e["call_id"]: e for e in _events(sessions["adversarial-FSM"]) if e["kind"] == "tool_call"}
    assert [(t["error"], t["denied"]) for t in calls] == [
        (not logged[t["id"]]["ok"], logged[t["id"]]["allowed"] is False) for t in calls]
    assert any(t["error"] and not t["denied"] and t["tool"] in ("fsm.exit", "fsm.transition") for t in calls)


def test_the_audit_cross_checks_a_codex_session_against_its_rollout(sessions):
    from study.prereg.record_checks import check_records

    folder = sessions["oracle-FSM-10"]
    meta = _meta(folder)
    found = check_records(folder, meta)
    assert found.problems == [] and found.notes == [] and found.simulated == "its model is sim:oracle"
    # renamed as a real model in both records, it is still known by the simulator's Responses ids
    forged = folder.parent / "forged"
    shutil.copytree(folder, forged, symlinks=True)
    for name in ("meta.json", "events.jsonl"):
        path = forged / name
        path.write_text(path.read_text().replace('"sim:oracle"', '"gpt-5.4-mini"'))
    evidence = check_records(forged, {**meta, "model": "gpt-5.4-mini"}).simulated
    assert evidence is not None and "call_sim" in evidence


def test_tables_show_each_model_on_its_runtime_as_a_row(sessions, tmp_path):
    from click.testing import CliRunner

    from study.cli import main

    claude = run_session(SessionSpec(model="sim:oracle", condition="FSM", accounts=3, seed=2, out_root=tmp_path))
    both = tmp_path / "both"
    # each session folder alone, under its exploratory/<model>/<condition>/ path (the shared Codex
    # sessions' folder also holds the other tests' sessions)
    for label, folder in (("claude", claude), ("codex", sessions["oracle-FSM-10"])):
        shutil.copytree(folder, both / label / Path(*folder.parts[-4:]), symlinks=True)
    result = CliRunner().invoke(main, ["tables", "--sessions", str(both), "--include-exploratory", "--allow-simulated"])
    assert result.exit_code == 0, result.output
    table1 = result.output.split("**Table 2")[0]
    assert "| sim:oracle | FSM | 3.0 |" in table1 and "| sim:oracle on Codex CLI | FSM | 10.0 |" in table1
    # the viewer's matrix names and groups them as the tables do: one mean per model on its runtime
    from study.view.documents import matrix_doc
    from study.view.load import Store

    doc = matrix_doc(Store(both))
    assert sorted((r["model"], r["runtime"]) for r in doc["sessions"]) == [
        ("sim:oracle", "claude-code"), ("sim:oracle on Codex CLI", "codex")]
    assert sorted((g["model"], g["sessions"], g["fc_mean"]) for g in doc["groups"]) == [
        ("sim:oracle", 1, 3.0), ("sim:oracle on Codex CLI", 1, 10.0)]


RUNNER = """
import sys
from pathlib import Path
from study.runner.session import SessionSpec, run_session
run_session(SessionSpec(condition="FSM", seed=2, model="sim:oracle", accounts=40, out_root=Path(sys.argv[1]),
                        runtime="codex"))
"""

RUN_ALL = """
import sys
from pathlib import Path
from study.runner.matrix import run_matrix
from study.runner.session import SessionSpec
specs = [SessionSpec(condition=c, seed=2, model="sim:oracle", accounts=40, out_root=Path(sys.argv[1]), runtime="codex")
         for c in ("FSM", "Remind-loop")]
run_matrix(specs, jobs=2, root=Path(sys.argv[1]))
"""


def _wait_for_calls(folders: list[Path], proc: subprocess.Popen, deadline_s: float = 120) -> None:
    """Until every session's log holds a tool call (the CLIs, relays and hooks are running)."""
    deadline = time.monotonic() + deadline_s
    while not all(b'"tool_call"' in _read(f / "events.jsonl") for f in folders):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sessions did not start"
        time.sleep(0.2)


def _left(tmp_path: Path) -> list[str]:
    """Processes whose command line names the test's folder (the Codex binary's -C, the relays'
    socket folder is elsewhere, so the relays are found by their script and socket's session)."""
    pids = subprocess.run(["pgrep", "-f", f"{tmp_path}|study/runtimes/codex/relay.py"], capture_output=True,
                          text=True).stdout.split()
    return [f"{p} {_cmdline(p)}" for p in pids if str(tmp_path) in _cmdline(p) or _ours(p)]


def _ours(pid: str) -> bool:
    """A relay whose socket belongs to no live runner is one left behind by this test."""
    line = _cmdline(pid)
    return "relay.py" in line and not Path(line.split()[-1]).exists()


@pytest.mark.parametrize("sig, to_group", [(signal.SIGTERM, False), (signal.SIGINT, True), (signal.SIGQUIT, True)],
                         ids=["TERM-runner", "INT-group", "QUIT-group"])
def test_a_signal_ends_a_codex_session_interrupted_with_no_process_or_folder_left_and_no_traceback(tmp_path, sig,
                                                                                                 to_group):
    """A runner as a process: a signal mid-session (to it, or to its process group as a terminal's
    ^C or ^\\ sends it) ends it ``interrupted`` (voided, final records); no Codex binary, MCP relay
    or hook relay of it is left, nor its socket folder, and it prints no traceback (the bridge's
    connections open at the end were reported as ~50 lines of CancelledError each)."""
    import glob

    proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=to_group)
    folder = tmp_path / "exploratory" / "sim-oracle@codex" / "FSM" / "seed-2-first-40"
    _wait_for_calls([folder], proc)
    os.killpg(proc.pid, sig) if to_group else proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    meta = _meta(folder)
    assert meta["status"] == "interrupted" and meta["voided"] is True, (meta, err)
    assert _events(folder)[-1]["kind"] == "session_end"
    assert "Traceback" not in err and "CancelledError" not in err, err[-3000:]
    assert glob.glob(f"{tempfile.gettempdir()}/study-codex-{proc.pid}-*") == []
    _none_left_soon(tmp_path)


def _none_left_soon(tmp_path: Path, within_s: float = 15) -> None:
    """No process of the test's sessions is left within ``within_s``. The runner stops the relays
    it can see, connected or started (``BridgeServer.relay_pids``); one Codex forked in the instant
    before it was stopped and that had not yet become a relay exits by itself once its Codex and the
    runner's socket are gone: on a loaded machine that takes its Python's start-up, not more than
    seconds."""
    deadline = time.monotonic() + within_s
    while _left(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _left(tmp_path) == []


def test_a_sigkilled_runners_socket_folder_is_swept_by_the_next_session(tmp_path):
    """SIGKILL leaves the runner no moment to remove its socket folder: the next session removes
    it (its runner is gone, nobody listens on its socket), never a live one's."""
    import glob

    from study.runtimes.codex import bridge_server

    proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    folder = tmp_path / "exploratory" / "sim-oracle@codex" / "FSM" / "seed-2-first-40"
    _wait_for_calls([folder], proc)
    proc.kill()
    proc.communicate(timeout=60)
    [left] = glob.glob(f"{tempfile.gettempdir()}/study-codex-{proc.pid}-*")
    live = bridge_server.BridgeServer({}, {}, lambda e: None)
    try:
        removed = bridge_server.sweep_stale(now=time.time() + bridge_server.STALE_AFTER_S + 1)
        assert Path(left) in removed and not Path(left).exists()
        assert live.folder.is_dir() and live.folder not in removed
    finally:
        import shutil as _shutil

        _shutil.rmtree(live.folder, ignore_errors=True)
    _none_left_soon(tmp_path, within_s=30)     # the CLI dies with its runner (PDEATHSIG)


def test_a_killed_run_all_leaves_no_codex_process_behind(tmp_path):
    """run-all SIGKILLed (it can do nothing): its workers end their sessions as ``interrupted``,
    stopping their Codex CLIs first, and nothing of them is left."""
    proc = subprocess.Popen([sys.executable, "-c", RUN_ALL, str(tmp_path)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    base = tmp_path / "exploratory" / "sim-oracle@codex"
    folders = [base / "FSM" / "seed-2-first-40", base / "Remind-loop" / "seed-2-first-40"]
    _wait_for_calls(folders, proc)
    proc.kill()
    proc.communicate(timeout=60)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not all(_status(f) not in (None, "running") for f in folders):
        time.sleep(0.2)
    assert [_meta(f)["status"] for f in folders] == ["interrupted", "interrupted"]
    _none_left_soon(tmp_path)


def _meta_or_empty(folder: Path) -> dict:
    try:
        return _meta(folder)
    except (OSError, ValueError):
        return {}
def _status(folder: Path) -> str | None:
    try:
        return _meta(folder).get("status")
    except (OSError, ValueError):
        return None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
