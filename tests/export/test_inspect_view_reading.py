"""What ``inspect view`` reads in the Inspect export (issue 49 item 13), checked against how
inspect-ai 0.3.285's viewer draws it (its ``dist/assets/index.js``): a boolean score is a coloured
circle (``BooleanScoreDescriptor``), the log list's Score column is each log's headline and its
metric columns pool every log's metrics by name (``useLogListColumns``, "by-metric"), an info
event's text is Markdown while any other data is a raw JSON panel (``InfoEventView``), and a
system message is moved to the top of the conversation (``resolveMessages``).

- a τ²-bench task not judged has no score, and its log no headline (the list shows none, never 0.0);
- each family's means are named by their score, the main study's keep ``mean``: no metric column
  mixes two families;
- every info event is text in words with the record's fields (a JSON answer pretty-printed), the
  record as data in its metadata;
- a PostToolUse hook's note on Codex CLI is no user message, but the metadata of the call's result
  (tests/export/test_inspect_messages.py);
- every sample's ``metadata.family`` names its family, the main study's included;
- a run's contexts are still spans named from their records (now the info events' metadata).

Hand-written logs and the golden archive's SOP-Bench sessions, exported in-process; no CLI runs."""

from __future__ import annotations

import json
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.session_io.writer import EventLog

from ..verdict_helpers import outcomes_as_written
from ..view.family_sessions import RESEARCH, write_research_run

inspect_ai = pytest.importorskip("inspect_ai", reason="the inspect extra is not installed (requirements-inspect.lock)")

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "sim_logs.tgz"
LOOKUP = {"customer_id": "C1001", "line_ids": ["L1001", "L1002"]}


def _write_tau2(root: Path, name: str, seed: int, *, judged: bool) -> Path:
    folder = root / name
    with EventLog(folder / "events.jsonl") as log:
        log.emit_fields("session_start", dict(
            schema=3, condition="FSM", seed=seed, model="sim:oracle", simulated=True, manifest_sha256="unchecked",
            code_version="test", cli_version="none", order=[f"task-{seed:02d}"], limits={}, exploratory=True,
            runtime="claude-code", family="tau2", study="tau2-retail" if not judged else "tau2-telecom"))
        log.emit("customer_message", text="No service. My number is 555-123-2002.")
        log.emit("controller_call", tool="get_customer_by_phone", args={"phone_number": "555-123-2002"}, ok=True,
                 result=json.dumps(LOOKUP))
        log.emit("conversation_end", reason="user_stop")
        log.emit("outcome", family="tau2", reward=1.0 if judged else None, judged=judged, parts={"DB": 1.0},
                 reward_basis=["DB"], task_id=f"t{seed}", domain="telecom", termination_reason="user_stop")
        log.emit("session_end", status="completed", cost_usd=0.0, turns=2, duration_s=1.0, decisions=1, accounts_left=0)
    return folder


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("inspect-view")
    root = base / "sessions"
    root.mkdir()
    with tarfile.open(GOLDEN) as tar:
        tar.extractall(base, filter="data")
    (root / "exploratory").mkdir()
    (base / "simlogs" / "exploratory" / "sim-drifting").rename(root / "exploratory" / "sim-drifting")
    written = [_write_tau2(root, "tau2-retail/exploratory/sim-oracle/FSM/task-03", 3, judged=False),
               _write_tau2(root, "tau2-telecom/exploratory/sim-oracle/FSM/task-01", 1, judged=True)]
    write_research_run(root)
    out = base / "logs"
    with pytest.MonkeyPatch.context() as patch:
        outcomes_as_written(patch, only=written)
        done = CliRunner().invoke(main, ["export", "inspect", "--sessions", str(root), str(out)])
    assert done.exit_code == 0, done.output
    from inspect_ai.log import read_eval_log

    logs = [read_eval_log(str(p), resolve_attachments=True) for p in sorted(out.glob("*.eval"))]
    return {"out": out, "logs": logs, "by_session": {s.metadata["session"]: (log, s) for log in logs for s in log.samples}}


def test_a_task_not_judged_has_no_score_and_its_log_no_headline(exported):
    log, sample = exported["by_session"]["tau2-retail/exploratory/sim-oracle/FSM/task-03"]
    assert not sample.scores                     # no judged=False: the viewer drew it as a red F
    assert (sample.metadata["verdict"], sample.metadata["judged"]) == ("not judged", False)
    assert sample.metadata["not_judged"].startswith("not judged: the reward needs a judge")
    assert log.results.headline is None and log.eval.headline_metric is None   # the list showed 0.0
    assert [(s.name, s.scored_samples, s.metrics) for s in log.results.scores] == [("reward", 0, {})]
    from inspect_ai.analysis import evals_df

    evals = evals_df(str(exported["out"]))
    row = evals[evals["task_name"] == "SIMULATED FSM - tau2-retail"].iloc[0]
    assert row["score_headline_value"] is None or str(row["score_headline_value"]) in ("nan", "<NA>", "None")
    log, sample = exported["by_session"]["tau2-telecom/exploratory/sim-oracle/FSM/task-01"]
    assert list(sample.scores) == ["reward"] and sample.metadata["judged"] is True
    assert (log.results.headline.score, log.results.headline.metric) == ("reward", "mean_reward")


def test_each_familys_means_are_named_so_no_metric_column_mixes_two(exported):
    names: dict[str, set[str]] = {}
    for log in exported["logs"]:
        family = log.samples[0].metadata["family"]
        for score in log.results.scores:
            names.setdefault(family, set()).update(score.metrics)
    assert names["tau2"] == {"mean_reward"}
    assert names["workspace"] == {"mean_valid_rows", "mean_complete", "mean_best_accuracy"}
    assert "mean" in names["sopbench"]            # the main study's, unchanged
    for one in names:
        for other in names:
            assert one == other or not names[one] & names[other], (one, other)
    research = next(log for log in exported["logs"] if log.samples[0].metadata["session"] == RESEARCH)
    assert research.results.scores[0].metrics["mean_valid_rows"].value == 1 / 8


def test_every_sample_names_its_family(exported):
    families = {s.metadata["session"]: s.metadata["family"] for _log, s in exported["by_session"].values()}
    assert {f for name, f in families.items() if name.startswith("exploratory/sim-drifting")} == {"sopbench"}
    assert set(families.values()) == {"sopbench", "tau2", "workspace"}


def test_every_info_event_says_in_words_what_happened_with_the_records_fields(exported):
    for _log, sample in exported["by_session"].values():
        infos = [e for e in sample.events if e.event == "info"]
        assert infos and all(isinstance(e.data, str) and e.data.startswith("**") for e in infos)
        for event in infos:
            fields = {k: v for k, v in event.metadata.items() if k not in ("seq", "kind")}
            assert all(f"**{name}**" in event.data for name in fields), event.data
    _log, sample = exported["by_session"]["tau2-retail/exploratory/sim-oracle/FSM/task-03"]
    start, said, lookup = (e for e in sample.events if e.event == "info" and e.source in (
        "session_start", "customer_message", "controller_call"))
    assert start.data.startswith("**The session began: `sim:oracle` under `FSM`, seed `3`")
    assert said.data.startswith("**The customer said**")
    assert lookup.data.startswith("**The workflow's controller (the harness, not the agent) called `get_customer_by_phone`**")
    # its JSON answer pretty-printed, not an escaped string; the record whole as data
    assert "```json\n" + json.dumps(LOOKUP, indent=2) + "\n```" in lookup.data and '\\"' not in lookup.data
    assert lookup.metadata["result"] == json.dumps(LOOKUP) and lookup.metadata["kind"] == "controller_call"


def test_a_runs_contexts_are_still_spans_named_from_their_records(exported):
    # the context_start record's fields are the info event's metadata now (its data is their text)
    _log, sample = exported["by_session"][RESEARCH]
    spans = [e.name for e in sample.events if e.event == "span_begin"]
    assert spans == ["context 1", "context 2"]
    starts = [e for e in sample.events if e.event == "info" and e.source == "context_start"]
    assert len(starts) == 2 and all(e.span_id.endswith(f"-context-{n}") for e, n in zip(starts, (1, 2)))
