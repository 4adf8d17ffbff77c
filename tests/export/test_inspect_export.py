"""``study export inspect``: the sessions as Inspect eval logs, read back with inspect-ai.

The round trip runs on real Claude Code sessions against the simulator, made once for the module
(``study run-all`` and ``study run`` in a frozen copy of the project, so they carry a real
manifest hash, plus one session with a forced compaction and a resume through the runner
itself), one Codex CLI session where the pinned Codex CLI is installed, and on the golden
archive's simulator sessions (logs and meta.json, no transcripts). Every number is compared with
``study score --json`` of the same session folder; tokens and costs with the session's own
records (its transcript's usage, its log's priced usage), read here without the package.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.runtimes.codex import pin as codex_pin

#: The pinned Codex CLI runs here: the fixture adds a Codex session (else the tests cover Claude Code only).
CODEX = codex_pin.problem() is None
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
ROOT = Path(__file__).resolve().parents[2]


def _read_events(session_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (session_dir / "events.jsonl").read_text().splitlines() if line.strip()]


def _export(sessions: Path, out: Path):
    return CliRunner().invoke(main, ["export", "inspect", "--sessions", str(sessions), str(out)])


def _logs(out: Path) -> list:
    from inspect_ai.log import read_eval_log

    return [read_eval_log(str(p)) for p in sorted(out.glob("*.eval"))]


def _study_score(session_dir: str) -> dict:
    done = CliRunner().invoke(main, ["score", session_dir, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.output)


def _assert_scores_are_study_score(sample) -> None:
    expected = _study_score(sample.metadata["session_dir"])
    scores = {name: score.value for name, score in sample.scores.items()}
    for name in ("fc", "decided", "correct", "compliant"):
        assert scores[name] == expected[name], (name, sample.metadata["session"])
    assert scores.get("compliance") == expected["compliance"]
    assert list(scores["fc_windows"].values()) == expected["fc_windows"]
    fc = sample.scores["fc"].metadata
    assert fc["routes"] == expected["routes"] and fc["turn_ends"] == expected["turn_ends"]
    assert fc["correct_sopbench"] == expected["correct_sopbench"]
    meta = sample.metadata
    assert (meta["seed"], meta["status"], meta["voided"], meta["cost_usd"]) == (
        expected["seed"], expected["status"] or meta["status"], expected["voided"], expected["cost_usd"])


# --- real sessions of the real CLI against the simulator ---------------------------------------------

@pytest.fixture(scope="module")
def real_sessions(tmp_path_factory) -> Path:
    """Real Claude Code sessions on the simulator (3 or 4 accounts each): sim:drifting under FSM,
    seeds 2 and 3 (`study run-all`: one eval, two samples), sim:adversarial (whose calls the FSM's
    gate refuses, and whose early stop the stop gate blocks) under FSM, seed 2, and sim:drifting
    under Plain, seed 2 (`study run`), all in a frozen copy of the project; and, through the runner itself (options
    the command does not have), sim:early-stop under Remind-loop with a compaction forced after
    two decisions (it stops, is resumed, compacts) and sim:oracle under FSM ended by a limit of 8
    turns before its first decision; where Codex CLI is installed, sim:adversarial under FSM, seed
    2, on Codex CLI (`study run --runtime codex`: its refused FSM calls, its denials)."""
    pytest.importorskip("inspect_ai", reason="the inspect extra: pip install --no-deps --require-hashes "
                                             "-r requirements-inspect.lock")
    from study.runner.session import SessionSpec, run_session

    spec = importlib.util.spec_from_file_location("tests_root_conftest", ROOT / "tests" / "conftest.py")
    shared = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(shared)
    frozen_copy = shared.frozen_copy

    base = tmp_path_factory.mktemp("export")
    project, sessions = frozen_copy(base / "project"), base / "sessions"
    codex_dir = {codex_pin.DIR_ENV: str(codex_pin.install_dir())} if CODEX else {}   # the install this checkout has
    env = {**os.environ, **codex_dir, "STUDY_ROOT": str(project),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(project), os.environ.get("PYTHONPATH")]))}
    study = [sys.executable, "-m", "study.cli"]
    runs = [subprocess.Popen([*study, "run-all", "--models", "sim:drifting", "--conditions", "FSM",
                              "--seeds", "2,3", "--accounts", "3", "--sessions", str(sessions), "--jobs", "2"],
                             env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
            subprocess.Popen([*study, "run", "--model", "sim:adversarial", "--condition", "FSM", "--seed", "2",
                              "--accounts", "3", "--sessions", str(sessions)],
                             env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True),
            subprocess.Popen([*study, "run", "--model", "sim:drifting", "--condition", "Plain", "--seed", "2",
                              "--accounts", "3", "--sessions", str(sessions)],
                             env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)]
    if CODEX:
        runs.append(subprocess.Popen([*study, "run", "--model", "sim:adversarial", "--condition", "FSM", "--seed", "2",
                                      "--accounts", "3", "--runtime", "codex", "--sessions", str(sessions)],
                                     env=env, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    run_session(SessionSpec(model="sim:early-stop", condition="Remind-loop", seed=2, accounts=4, out_root=sessions,
                            sim_options={"compact_after": 2}))
    run_session(SessionSpec(model="sim:oracle", condition="FSM", seed=2, accounts=3, out_root=sessions,
                            limit_overrides={"turns": 8}))
    for run in runs:
        output, _ = run.communicate(timeout=600)
        assert run.returncode == 0, output[-2000:]
    return sessions


@pytest.fixture(scope="module")
def exported(real_sessions, tmp_path_factory) -> tuple[Path, list]:
    out = tmp_path_factory.mktemp("inspect") / "logs"
    done = _export(real_sessions, out)
    assert done.exit_code == 0, done.output
    return out, _logs(out)


def _sessions_of(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("events.jsonl"))


#: logs and samples of the module's sessions: one more of each with the Codex session
LOGS, SAMPLES = 5 + CODEX, 6 + CODEX


def _runtime(start: dict) -> str:
    return start.get("runtime") or "claude-code"


@pytest.mark.e2e
def test_one_eval_per_model_and_condition_one_sample_per_seed(real_sessions, exported):
    _out, logs = exported
    expected: dict[tuple[str, str, str], set[int]] = {}
    for folder in _sessions_of(real_sessions):
        start = _read_events(folder)[0]
        expected.setdefault((start["model"], _runtime(start), start["condition"]), set()).add(start["seed"])
    found = {(log.eval.metadata["model"], log.eval.metadata["runtime"]["name"], log.eval.metadata["condition"]):
             [(s.id, s.epoch) for s in log.samples] for log in logs}
    assert len(logs) == len(expected) == LOGS
    assert {k: sorted(i for i, _ in v) for k, v in found.items()} == {k: sorted(v) for k, v in expected.items()}
    assert all(epoch == 1 for v in found.values() for _, epoch in v)
    assert all(log.status == "success" and log.eval.dataset.samples == len(log.samples) for log in logs)


@pytest.mark.e2e
def test_every_score_is_study_scores(exported):
    _out, logs = exported
    samples = [s for log in logs for s in log.samples]
    assert len(samples) == SAMPLES
    for sample in samples:
        _assert_scores_are_study_score(sample)
    for log in logs:       # the eval's results: the mean over its (ended, unvoided) sessions
        means = {s.name: s.metrics["mean"].value for s in log.results.scores if "mean" in s.metrics}
        for name in ("fc", "compliance", "decided"):
            values = [s.scores[name].value for s in log.samples if name in s.scores]
            assert means.get(name) == (pytest.approx(sum(values) / len(values)) if values else None), name
        assert log.results.scores[0].name == "fc" and log.results.completed_samples == len(log.samples)


@pytest.mark.e2e
def test_samples_df_and_evals_df_read_them(exported):
    pytest.importorskip("pyarrow")
    from inspect_ai.analysis import evals_df, samples_df

    out, logs = exported
    frame = samples_df(str(out))
    assert len(frame) == SAMPLES
    by_sample = {(log.eval.eval_id, str(s.id)): s for log in logs for s in log.samples}     # samples_df: ids as text
    for row in frame.itertuples():
        sample = by_sample[(row.eval_id, str(row.id))]
        assert (row.score_fc, row.score_decided, row.metadata_seed) == (
            sample.scores["fc"].value, sample.scores["decided"].value, sample.id)
    evals = evals_df(str(out))
    assert len(evals) == LOGS and all(name.startswith("SIMULATED ") for name in evals["task_name"])


def _transcript_usage(session_dir: Path, runtime: str) -> tuple[int, int]:
    """(model responses, their tokens: input, cache writes and reads, output) as the CLI's own
    transcript records them, read here without the package: Claude Code's main-thread assistant
    lines, one response per message id (each line repeats its usage); Codex CLI's
    token_usage_record lines (``input_tokens`` includes the cached ones)."""
    records = [json.loads(line) for line in (session_dir / "transcript.jsonl").read_text().splitlines() if line.strip()]
    if runtime == "codex":
        usages = [r["payload"]["usage"] for r in records if r.get("type") == "token_usage_record"]
        return len(usages), sum(u.get("input_tokens", 0) + u.get("output_tokens", 0)
                                + u.get("cache_write_input_tokens", 0) for u in usages)
    by_id: dict[str, dict] = {}
    for r in records:
        message = r.get("message") or {}
        if r.get("type") == "assistant" and not r.get("isSidechain") and message.get("model") != "<synthetic>":
            by_id[message["id"]] = message["usage"]
    keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")
    return len(by_id), sum(u.get(k) or 0 for u in by_id.values() for k in keys)


@pytest.mark.e2e
def test_inspects_four_dataframes_read_every_log_with_the_sessions_tokens(exported):
    """evals_df, samples_df, messages_df and events_df load every exported log; each model
    response is a model event with the transcript's usage, so a sample's tokens are its session's
    and its cost the log's priced usage; messages_df holds every response's message."""
    pytest.importorskip("pyarrow")
    from inspect_ai.analysis import evals_df, events_df, messages_df, samples_df

    out, logs = exported
    evals, samples, messages, events = (frame(str(out), quiet=True)
                                        for frame in (evals_df, samples_df, messages_df, events_df))
    by_uuid = {s.uuid: s for log in logs for s in log.samples}
    assert len(evals) == LOGS and len(samples) == SAMPLES == len(by_uuid) and set(samples["sample_id"]) == set(by_uuid)
    assert set(messages["sample_id"]) == set(events["sample_id"]) == set(by_uuid)
    for uuid, sample in by_uuid.items():
        folder = Path(sample.metadata["session_dir"])
        log_events = _read_events(folder)
        responses, tokens = _transcript_usage(folder, sample.metadata["runtime"])
        row = samples[samples["sample_id"] == uuid].iloc[0]
        assert responses > 0 and row["total_tokens"] == tokens, sample.metadata["session"]
        [(model, usage)] = sample.model_usage.items()
        priced = sum(e["priced_usd"] for e in log_events if e["kind"] == "call_end")
        assert usage.total_tokens == tokens and usage.total_cost == pytest.approx(priced, abs=1e-5)
        model_events = events[(events["sample_id"] == uuid) & (events["event"] == "model")]
        assert len(model_events) == responses == sample.turn_count
        # every response's message, in order: the conversation as the model events saw it
        rows = messages[messages["sample_id"] == uuid].sort_values("order")
        assistant = [m.id for m in sample.messages if m.role == "assistant"]
        assert [i for i in rows["message_id"] if i in set(assistant)] == assistant
        assert set(rows["message_id"]) <= {m.id for m in sample.messages}
        # a failed call's error, as the log says it failed
        failed = {e["call_id"] for e in log_events if e["kind"] == "tool_call" and not e["ok"]}
        tools = rows[rows["role"] == "tool"]
        assert {c for c, error in zip(tools["tool_call_id"], tools["tool_call_error"]) if isinstance(error, str)} == failed & set(
            tools["tool_call_id"])
    totals = {log.eval.eval_id: sum(s.model_usage[log.eval.model].total_tokens for s in log.samples) for log in logs}
    assert all(log.stats.model_usage[log.eval.model].total_tokens == totals[log.eval.eval_id] for log in logs)


@pytest.mark.e2e
def test_each_runtime_is_named_in_the_log_list_and_the_samples_grid(exported):
    """Inspect's log list and samples grid show the model: sessions of one policy on two runtimes
    are two models there, named as the package's tables name them."""
    pytest.importorskip("pyarrow")
    from inspect_ai.analysis import evals_df, samples_df

    out, logs = exported
    evals = evals_df(str(out), quiet=True)
    models = dict(zip(evals["eval_id"], evals["model"]))
    for log in logs:
        runtime = log.eval.metadata["runtime"]
        assert models[log.eval.eval_id].endswith(" on Codex CLI") == (runtime["name"] == "codex")
        assert runtime["label"] in log.eval.tags
    grid = samples_df(str(out), quiet=True)   # each sample of the grid is its log's model's, usage included
    assert all(set(json.loads(usage)) == {models[eval_id]} for eval_id, usage in zip(grid["eval_id"], grid["model_usage"]))
    if CODEX:
        assert {"sim/adversarial", "sim/adversarial on Codex CLI"} <= set(models.values())


@pytest.mark.e2e
@pytest.mark.skipif(not CODEX, reason="the pinned Codex CLI is not installed")
def test_a_refused_fsm_call_is_an_error_on_codex_as_on_claude_code(exported):
    """The same facts, the same flags: an FSM tool that refuses (fsm.exit before S_done,
    fsm.transition without a passing guard) is a failed call on both runtimes."""
    _out, logs = exported
    refused = {}
    for log in logs:
        if log.eval.metadata["model"] != "sim:adversarial":
            continue
        for sample in log.samples:
            errors = {m.tool_call_id: m.error for m in sample.messages if m.role == "tool"}
            calls = [e for e in _read_events(Path(sample.metadata["session_dir"]))
                     if e["kind"] == "tool_call" and e.get("server") == "fsm" and e["allowed"] and not e["ok"]]
            assert calls and all(errors[c["call_id"]] is not None and errors[c["call_id"]].type == "unknown"
                                 for c in calls)
            refused.setdefault(log.eval.metadata["runtime"]["name"], set()).update(c["tool"] for c in calls)
    assert set(refused) == {"claude-code", "codex"} and all({"exit", "transition"} & tools for tools in refused.values())


@pytest.mark.e2e
def test_messages_are_the_conversation_with_each_call_matched_to_its_result(exported):
    _out, logs = exported
    for log in logs:
        for sample in log.samples:
            messages, events = sample.messages, _read_events(Path(sample.metadata["session_dir"]))
            assert messages[0].role == "user" and messages[0].source == "input" and messages[0].text == sample.input
            assert sample.input.startswith("You are running an unattended batch")
            lines = [m.metadata["transcript_line"] for m in messages]
            assert lines == sorted(lines), "messages in transcript order"
            calls: list[str] = []
            open_calls: set[str] = set()
            results: Counter[str] = Counter()
            for m in messages:
                if m.role == "assistant":
                    assert not open_calls, "every call of the previous response has its result before the next"
                    calls += [c.id for c in m.tool_calls or []]
                    open_calls = {c.id for c in m.tool_calls or []}
                elif m.role == "tool":
                    assert m.tool_call_id in open_calls, "a result follows the response that made its call"
                    open_calls.discard(m.tool_call_id)
                    results[m.tool_call_id] += 1
                else:
                    assert not open_calls
            logged = [e["call_id"] for e in events if e["kind"] == "tool_call"]
            assert calls == logged, "the calls in the messages are the log's tool calls, in order"
            assert set(results) == set(calls) and set(results.values()) == {1}
            tool = {m.tool_call_id: m for m in messages if m.role == "tool"}
            for e in events:
                if e["kind"] != "tool_call":
                    continue
                error = tool[e["call_id"]].error
                if not e["allowed"]:       # the tool-call gate refused it
                    assert error is not None and error.type == "approval"
                elif not e["ok"]:
                    assert error is not None and error.type == "unknown"
                else:
                    assert error is None
            blocks = sum(1 for e in events if e["kind"] == "stop" and e["outcome"] == "blocked")
            assert sum(1 for m in messages if (m.metadata or {}).get("stop_block")) == blocks
            compactions = sum(1 for e in events if e["kind"] == "compaction")
            marked = [m for m in messages if (m.metadata or {}).get("compaction")]
            assert len(marked) == compactions and all(m.role == "user" for m in marked)


@pytest.mark.e2e
def test_the_sessions_cover_denials_stop_blocks_compaction_and_resume(exported):
    """The fixture holds each kind the mapping treats apart (else the tests above prove less)."""
    _out, logs = exported
    kinds = Counter()
    for log in logs:
        for sample in log.samples:
            kinds.update(e.event for e in sample.events)
            kinds.update(f"info:{e.source}" for e in sample.events if e.event == "info")
            kinds.update("stop-block" for m in sample.messages if (m.metadata or {}).get("stop_block"))
    assert kinds["approval"] >= 2 and kinds["compaction"] == 1 and kinds["info:resume"] == 1
    assert kinds["stop-block"] >= 2 and kinds["info:transition"] > 0


@pytest.mark.e2e
def test_events_are_the_log_events_with_seq_and_time(exported):
    _out, logs = exported
    for log in logs:
        for sample in log.samples:
            logged = [e for e in _read_events(Path(sample.metadata["session_dir"])) if e["kind"] != "usage"]
            found = [e for e in sample.events if e.event != "model"]   # the model events: the test above
            by_seq = {e.metadata["seq"]: e for e in found if e.event != "approval"}
            assert [e.metadata["seq"] for e in found if e.event != "approval"] == [e["seq"] for e in logged]
            for e in logged:
                event = by_seq[e["seq"]]
                assert event.timestamp.isoformat().replace("+00:00", "Z") == e["t"]
                assert event.metadata["kind"] == e["kind"]
                expected = {"tool_call": "tool", "compaction": "compaction"}.get(e["kind"], "info")
                if e["kind"] == "session_end" and e["status"].startswith("limit:"):
                    expected = "sample_limit"
                assert event.event == expected, e
                if e["kind"] == "tool_call":
                    assert (event.id, event.function.split(".")[-1], event.arguments) == (e["call_id"], e["tool"], e["args"])
            approvals = [e for e in found if e.event == "approval"]
            assert [a.metadata["seq"] for a in approvals] == [e["seq"] for e in logged
                                                              if e["kind"] == "tool_call" and not e["allowed"]]
            assert all(a.decision == "reject" for a in approvals)


@pytest.mark.e2e
def test_simulated_sessions_are_marked_and_the_metadata_says_what_ran(exported, real_sessions):
    _out, logs = exported
    for log in logs:
        spec, meta = log.eval, log.eval.metadata
        assert spec.task.startswith("SIMULATED ") and spec.task_display_name.startswith("SIMULATED ")
        assert "SIMULATED" in log.tags and meta["simulated"] is True
        first = _read_events(Path(log.samples[0].metadata["session_dir"]))[0]
        label = {"claude-code": "Claude Code", "codex": "Codex CLI"}[_runtime(first)]
        # the model on its runtime, as the tables name it: the runtime shows in Inspect's list and grid
        assert spec.model == "sim/" + meta["model"].split(":", 1)[1] + ("" if label == "Claude Code" else f" on {label}")
        assert label in log.tags
        assert meta["manifest_sha256"] == first["manifest_sha256"] and meta["code_version"] == first["code_version"]
        assert meta["runtime"] == {"name": _runtime(first), "label": label, "cli_version": first["cli_version"]}
        assert (meta["task"], meta["model_id"], meta["condition"]) == (first["task"], first["model_id"], first["condition"])
        assert meta["accounts"] == len(first["order"]) and meta["exploratory"] is True
        for sample in log.samples:
            m = sample.metadata
            assert Path(m["session_dir"]).is_dir() and Path(m["session_dir"]).is_relative_to(real_sessions.resolve())
            assert {"seed", "status", "voided", "cost_usd", "session", "transcript"} <= set(m)
            assert m["transcript"] == "read" and m["voided"] is False and sample.error is None
    manifests = {log.eval.metadata["model"]: log.eval.metadata["manifest_sha256"] for log in logs}
    frozen = json.loads((real_sessions.parent / "project" / "preregistration" / "freeze.json").read_text())["sha256"]
    assert manifests["sim:drifting"] == manifests["sim:adversarial"] == frozen     # ran by `study run(-all)`
    assert manifests["sim:early-stop"] == manifests["sim:oracle"] == "unchecked"    # ran by the runner itself


@pytest.mark.e2e
def test_a_session_ended_by_a_limit_is_a_sample_with_its_limit(exported):
    _out, logs = exported
    [log] = [log for log in logs if log.eval.metadata["model"] == "sim:oracle"]
    [sample] = log.samples
    assert sample.metadata["status"] == "limit:turns" and sample.error is None
    assert (sample.limit.type, sample.limit.limit) == ("turn", 8.0)
    [limit] = [e for e in sample.events if e.event == "sample_limit"]
    assert (limit.type, limit.limit, limit.message) == ("turn", 8.0, "limit:turns")
    assert "compliance" not in sample.scores and sample.scores["decided"].value == 0     # no rate without decisions
    compliance = next(s for s in log.results.scores if s.name == "compliance")
    assert compliance.metrics == {} and compliance.scored_samples == 0


@pytest.mark.e2e
def test_exporting_again_replaces_the_same_files(real_sessions, exported, tmp_path):
    out, _logs_before = exported
    before = sorted(p.name for p in out.glob("*.eval"))
    assert _export(real_sessions, out).exit_code == 0
    assert sorted(p.name for p in out.glob("*.eval")) == before


# --- the golden archive: logs without transcripts; damaged sessions -----------------------------------

@pytest.fixture
def golden(tmp_path) -> Path:
    with tarfile.open(GOLDEN / "sim_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "simlogs"


def test_the_golden_sessions_round_trip_without_messages(golden, tmp_path):
    pytest.importorskip("inspect_ai")
    done = _export(golden, tmp_path / "out")
    assert done.exit_code == 0, done.output
    assert "10 sessions exported without messages (no transcript.jsonl in the session folder)" in done.output
    logs = _logs(tmp_path / "out")
    samples = [s for log in logs for s in log.samples]
    assert len(samples) == len(_sessions_of(golden)) == 10 and len(logs) == 5
    for sample in samples:
        _assert_scores_are_study_score(sample)
        assert sample.messages == [] and sample.input == "" and sample.metadata["transcript"].startswith("no transcript")
        assert any(e.event == "tool" for e in sample.events)


def _damage(session_dir: Path) -> None:
    """Swap two lines of the log: the seq rule breaks (study tables lists it as invalid)."""
    lines = (session_dir / "events.jsonl").read_text().splitlines(keepends=True)
    lines[3], lines[4] = lines[4], lines[3]
    (session_dir / "events.jsonl").write_text("".join(lines))


def test_a_damaged_session_is_skipped_and_named_with_its_reason(golden, tmp_path):
    pytest.importorskip("inspect_ai")
    damaged = golden / "exploratory" / "sim-drifting" / "FSM" / "seed-3-first-8"
    _damage(damaged)
    done = _export(golden, tmp_path / "out")
    assert done.exit_code == 0, done.output
    skipped = [line for line in done.output.splitlines() if line.startswith("skipped ")]
    assert len(skipped) == 1 and skipped[0].startswith("skipped exploratory/sim-drifting/FSM/seed-3-first-8: invalid records")
    assert "seq" in skipped[0]
    fsm = [log for log in _logs(tmp_path / "out") if log.eval.metadata["condition"] == "FSM"]
    assert len(fsm) == 1 and [s.id for s in fsm[0].samples] == [2]
    assert fsm[0].eval.metadata["skipped_sessions"] == [
        {"session": "exploratory/sim-drifting/FSM/seed-3-first-8", "reason": skipped[0].split(": ", 1)[1]}]
    assert sum(len(log.samples) for log in _logs(tmp_path / "out")) == 9


def test_nothing_to_export_is_exit_4(golden, tmp_path):
    pytest.importorskip("inspect_ai")
    only = golden / "exploratory" / "sim-drifting" / "FSM" / "seed-2-first-8"
    _damage(only)
    done = _export(only, tmp_path / "out")
    assert done.exit_code == 4, done.output
    assert "no session to export" in done.output and not (tmp_path / "out").exists()


def test_a_voided_session_is_an_errored_sample_left_out_of_the_results(tmp_path):
    pytest.importorskip("inspect_ai")
    with tarfile.open(GOLDEN / "corpus_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    remind = tmp_path / "corpus"
    shutil.copytree(tmp_path / "sessions" / "haiku-4.5" / "Remind", remind)
    done = _export(remind, tmp_path / "out")
    assert done.exit_code == 0, done.output
    [log] = _logs(tmp_path / "out")
    voided = [s for s in log.samples if s.metadata["voided"]]
    assert [s.id for s in voided] == [5] and voided[0].error.message == "voided: infrastructure failure"
    counted = [s for s in log.samples if not s.metadata["voided"]]
    assert log.results.total_samples == len(log.samples) and log.results.completed_samples == len(counted)
    mean = log.results.scores[0].metrics["mean"].value
    assert mean == pytest.approx(sum(s.scores["fc"].value for s in counted) / len(counted))
    _assert_scores_are_study_score(voided[0])


# --- without inspect-ai, and what the command imports -------------------------------------------------

def test_without_inspect_ai_the_command_says_how_to_install_it(golden, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "inspect_ai", None)      # `import inspect_ai` now raises ImportError
    done = _export(golden, tmp_path / "out")
    assert done.exit_code == 2
    assert done.output == ("Error: study export inspect needs inspect-ai, an optional extra: "
                           "pip install --require-hashes -r requirements-inspect.lock\n")
    assert not (tmp_path / "out").exists()


PROBE = """
import sys
import study.export.cli, study.export.sessions
print("inspect_ai" in sys.modules)
try:
    import study.export.inspect_log
except ImportError:
    pass
print(" ".join(sorted(m for m in sys.modules if m.startswith(("study.runtimes", "claude_agent_sdk", "study.runner")))))
"""


def test_the_export_reads_only_and_imports_inspect_ai_only_when_it_runs():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=120, check=True)
    assert done.stdout.splitlines() == ["False", ""]
