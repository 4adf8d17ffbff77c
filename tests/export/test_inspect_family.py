"""``study export inspect`` of the other task families' sessions, read back with inspect-ai's own
dataframes: a τ²-bench session's messages are its conversation (the agent's messages, the
customer's as user messages, the controller's turn, the tool calls and their results) and its score
τ²-bench's reward with its parts (a task not judged has no reward, and says so); a workspace
run's commands and edits are tool calls, its contexts spans, and its protocol's verdict its scores.
Real simulator sessions (shared with the viewer's tests) and written logs."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main

from ..runner.test_family_status import TAU2 as NOT_JUDGED, write_tau2
from ..verdict_helpers import outcomes_as_written
from ..view.family_sessions import CLOSE, GROUP, RESEARCH, TAU2, copy_into, needs_tau2, write_research_run

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group(GROUP), needs_tau2,
              pytest.mark.skipif(importlib.util.find_spec("inspect_ai") is None,
                                 reason="the inspect extra is not installed (requirements-inspect.lock)")]


@pytest.fixture(scope="module")
def exported(shared_sim_session, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("family-export")
    root = base / "sessions"
    root.mkdir()
    names = {"tau2": copy_into(root, shared_sim_session, TAU2), "close": copy_into(root, shared_sim_session, CLOSE)}
    write_research_run(root)
    not_judged = write_tau2(root, judged=False)
    out = base / "logs"
    with pytest.MonkeyPatch.context() as patch:     # a log written by hand: no tau2_run.json to re-score
        outcomes_as_written(patch, only=[not_judged])
        done = CliRunner().invoke(main, ["export", "inspect", "--sessions", str(root), str(out)])
    assert done.exit_code == 0, done.output
    from inspect_ai.log import read_eval_log

    logs = {log.samples[0].metadata["session"]: log for log in map(read_eval_log, map(str, sorted(out.glob("*.eval"))))}
    return {"root": root, "out": out, "logs": logs, "output": done.output, **names}


def _events(root: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (root / name / "events.jsonl").read_text().splitlines()]


def test_each_familys_verdict_is_its_score_and_its_logs_headline(exported):
    from inspect_ai.analysis import evals_df, samples_df

    evals = evals_df(str(exported["out"]))
    headlines = sorted(zip(evals["task_name"].tolist(), evals["score_headline_name"].tolist()), key=str)
    # a log of tasks none of which was judged has no mean reward: it has no headline (the list shows none)
    named = [(task, name) for task, name in headlines if isinstance(name, str)]
    assert named == [("SIMULATED FSM - autoresearch", "valid_rows"), ("SIMULATED FSM - month-end-close", "correct_periods"),
                     ("SIMULATED FSM - tau2-telecom", "reward")] and len(headlines) == 4
    samples = samples_df(str(exported["out"]))
    judged = sorted(bool(x) for x in samples["metadata_judged"].tolist() if x is not None and str(x) not in ("<NA>", "nan"))
    assert len(samples) == 4 and judged == [False, True]
    tau2 = exported["logs"][exported["tau2"]].samples[0]
    outcome = next(e for e in _events(exported["root"], exported["tau2"]) if e["kind"] == "outcome")
    reward = tau2.scores["reward"]
    assert (reward.value, reward.answer, list(tau2.scores)) == (outcome["reward"], "passed", ["reward"])
    assert (reward.metadata["parts"], reward.metadata["reward_basis"], reward.metadata["transferred"]) == (
        outcome["parts"], outcome["reward_basis"], True)
    assert (tau2.metadata["task_id"], tau2.metadata["study"], tau2.metadata["verdict"]) == (outcome["task_id"], "tau2-telecom", "reward 1")
    research = exported["logs"][RESEARCH].samples[0].scores
    assert (research["valid_rows"].value, research["valid_rows"].answer, research["complete"].value,
            research["best_accuracy"].value) == (1 / 8, "1/8", False, 0.922222)
    assert research["valid_rows"].metadata["rows"][1]["rule"] == "decision"
    close = exported["logs"][exported["close"]].samples[0]
    assert (close.scores["correct_periods"].value, close.scores["correct_periods"].answer) == (1.0, "1/1")
    assert exported["logs"][RESEARCH].results.scores[0].metrics["mean_valid_rows"].value == 1 / 8


def test_a_task_not_judged_has_no_score_and_says_so(exported):
    log = exported["logs"][NOT_JUDGED]
    sample = log.samples[0]
    assert not sample.scores and sample.metadata["judged"] is False
    assert sample.metadata["not_judged"].startswith("not judged: the reward needs a judge")
    reward = next(s for s in log.results.scores if s.name == "reward")
    assert (reward.scored_samples, reward.metrics) == (0, {})


def test_a_tau2_sessions_messages_are_its_conversation(exported):
    from inspect_ai.analysis import messages_df

    events = _events(exported["root"], exported["tau2"])
    messages = messages_df(str(exported["out"]))
    log = exported["logs"][exported["tau2"]]
    mine = messages[messages["eval_id"] == log.eval.eval_id]
    users = mine[mine["role"] == "user"]["content"].tolist()
    said = [e["text"] for e in events if e["kind"] == "customer_message"][1:]      # the opening is in the prompt
    assert said and all(text in users for text in said)
    sent = [e["args"]["message"] for e in events if e["kind"] == "tool_call" and e["tool"] == "send_message_to_customer" and e["ok"]]
    assistants = mine[mine["role"] == "assistant"]["content"].tolist()
    assert all(text in assistants for text in sent)
    controller = [m for m in log.samples[0].messages if (m.metadata or {}).get("controller")]
    # the controller's fresh test (study/families/tau2/controller.py: the tests that failed, and the problem's own)
    assert len(controller) == 1 and "the problem you called about" in controller[0].text
    tools = [m for m in log.samples[0].messages if m.role == "tool"]
    assert tools and not any(m.function == "send_message_to_customer" for m in tools)
    denied = [m for m in tools if m.error is not None and m.error.type == "approval"]
    assert [m.function for m in denied] == ["transfer_to_human_agents"]
    # the log's calls stay as they were made: the messages to the customer among its tool events
    tool_events = [e for e in log.samples[0].events if e.event == "tool" and e.function == "send_message_to_customer"]
    assert len(tool_events) == len(sent)


def test_a_workspace_runs_commands_and_edits_are_tool_calls_and_its_contexts_spans(exported):
    from inspect_ai.analysis import events_df

    close = exported["logs"][exported["close"]].samples[0]
    functions = {m.function for m in close.messages if m.role == "tool"}
    assert {"Bash", "Write"} <= functions
    denied = [e for e in close.events if e.event == "tool" and e.error is not None and e.error.type == "approval"]
    logged = [e for e in _events(exported["root"], exported["close"]) if e["kind"] == "tool_call" and not e["allowed"]]
    assert len(denied) == len(logged) >= 3 and all(e.metadata["server"] is None for e in denied if "server" in e.metadata)
    assert close.metadata["contexts"] == [{"n": 1, "unit": "2025-01", "ended": "completed"}]
    frame = events_df(str(exported["out"]))
    spans = frame[frame["event"] == "span_begin"]
    names = sorted(spans["span_name"].tolist()) if "span_name" in spans else sorted(
        e.name for log in exported["logs"].values() for e in log.samples[0].events if e.event == "span_begin")
    assert names == ["context 1", "context 1: 2025-01", "context 2"]
    research = exported["logs"][RESEARCH].samples[0]
    inside = [e for e in research.events if getattr(e, "span_id", None) == next(
        s.id for s in research.events if s.event == "span_begin")]
    assert any(e.event == "tool" and e.function == "Edit" for e in inside)
    assert "1 session exported without messages" in exported["output"] or "exported without messages" in exported["output"]
