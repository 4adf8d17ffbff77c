"""Each family's units named as the family names it, everywhere (issue 49, item 9).

Before, every reader said a session's units were accounts and that it decided them: the progress
display ``started, 6 accounts`` and ``2/6 decided`` of a month-end close run (whose units are its
periods), ``1/1 decided`` of a τ²-bench conversation (which decides nothing: its verdict says how it
went), ``run-all``'s summary ``(infrastructure_failure, 0/6 decided, ...)``, the viewer's stops
``1 accounts left``, the Inspect export ``(6 units)``. Now each asks the family's ``reading`` part
for its words through the registry (``study.families.units``): the live display and its totals,
``study run``'s last line, ``run-all``'s summary, ``study status``, the viewer, the export. The main
study's words are what they always were (its outputs are byte-identical: tests/golden, and the
display's own tests).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from study.families.units import main_units, of_start, of_study
from study.protocol.studies import load_study
from study.runner.display import MatrixDisplay, session_line
from study.runner.matrix import MatrixResult
from study.runner.status import format_table, scan
from study.runner.summary import format_summary
from study.session_io.meta import read_meta, write_meta
from study.session_io.writer import EventLog

from .test_family_status import TAU2, write_tau2

pytestmark = pytest.mark.usefixtures("outcomes_as_written")

CLOSE = "month-end-close/exploratory/sim-oracle/FSM/seed-1"
PERIODS = [f"2025-0{k}" for k in range(1, 7)]


def write_close(root: Path, *, status: str = "limit:budget", contexts: int = 2) -> Path:
    """A month-end close run of six periods ended after ``contexts`` of them (its meta.json too)."""
    folder = root / CLOSE
    with EventLog(folder / "events.jsonl") as log:
        log.emit_fields("session_start", dict(
            schema=3, condition="FSM", seed=1, model="sim:oracle", simulated=True, manifest_sha256="unchecked",
            code_version="test", cli_version="none", order=PERIODS, limits={"spending_usd": 12.0}, exploratory=True,
            runtime="claude-code", family="workspace", study="month-end-close", protocol="month-end-close",
            workspace="workspace", size=None))
        for n in range(1, contexts + 1):
            log.emit("context_start", n=n, unit=PERIODS[n - 1])
            log.emit("stop", accounts_left=6 - n, outcome="ended", reason=None)
            log.emit("context_end", n=n, ended="ended_with_accounts_left" if n < contexts else status, unit=PERIODS[n - 1])
        periods = [{"period": p, "started": k < contexts, "fraction": 1.0 if k < contexts else 0.0,
                    "correct": k < contexts, "right": 11 if k < contexts else 0, "problem": ""} for k, p in enumerate(PERIODS)]
        log.emit("outcome", family="workspace", protocol="month-end-close", seed=1, periods=periods,
                 correct_periods=contexts, turn_cap=40)
        log.emit("session_end", status=status, cost_usd=0.5, turns=20, duration_s=60.0, decisions=contexts,
                 accounts_left=6 - contexts)
    write_meta(folder, {"model": "sim:oracle", "condition": "FSM", "seed": 1, "status": status, "decisions": contexts,
                        "accounts": 6, "cost_usd": 0.5, "duration_s": 60.0, "resumes": 0, "simulated": True,
                        "exploratory": True, "model_id": "claude-haiku-4-5", "study": "month-end-close",
                        "family": "workspace"})
    return folder


def tau2_session(root: Path) -> Path:
    folder = write_tau2(root, judged=True)
    write_meta(folder, {"model": "sim:oracle", "condition": "FSM", "seed": 7, "status": "completed", "decisions": 1,
                        "accounts": 1, "cost_usd": 0.0, "duration_s": 1.0, "resumes": 0, "simulated": True,
                        "exploratory": True, "model_id": "claude-haiku-4-5", "study": "tau2-telecom", "family": "tau2"})
    return folder


def test_each_family_says_what_its_units_are_called():
    assert [main_units().count(3, 200), main_units().left(1), main_units().size(200)] == \
        ["3/200 decided", "1 accounts left", "200 accounts"]            # the main study's, as always
    assert of_start({"order": ["A1"]}) == main_units()
    words = {name: of_study(load_study(name)) for name in ("tau2-telecom", "autoresearch", "month-end-close",
                                                           "swebench-local")}
    assert {name: w.words() for name, w in words.items()} == {
        "tau2-telecom": ("conversation", "conversations", None), "autoresearch": ("context", "contexts", "used"),
        "month-end-close": ("period", "periods", "done"), "swebench-local": ("task", "tasks", None)}
    assert [words["month-end-close"].count(2, 6), words["autoresearch"].count(8, 10), words["tau2-telecom"].count(1, 1)] \
        == ["2/6 periods done", "8/10 contexts used", None]
    assert of_start({"family": "workspace", "protocol": "month-end-close"}) == words["month-end-close"]
    assert of_start({"family": "tau2"}).size(1) == "1 conversation"
    assert of_start({"family": "no-such-family"}).words() == ("unit", "units", "done")


def _plain(folders: list[Path], root: Path, units=None) -> str:
    out = io.StringIO()
    display = MatrixDisplay(folders, root, stream=out, units=units)
    with display:
        for folder in folders:
            display.finished(folder, str(read_meta(folder).status))
    return out.getvalue()


def test_the_progress_display_and_the_last_line_say_each_familys_units(tmp_path):
    root = tmp_path / "sessions"
    close, tau2 = write_close(root), tau2_session(root)
    shown = _plain([close], root, of_study(load_study("month-end-close")))
    assert f"{CLOSE}: started, 6 periods, cap $12.00" in shown
    assert f"{CLOSE}: ended limit:budget: 2/6 periods done" in shown and "; periods done 2/6;" in shown
    assert "decided" not in shown and "accounts" not in shown
    shown = _plain([tau2], root, of_study(load_study("tau2-telecom")))
    assert f"{TAU2}: started, 1 conversation" in shown and f"{TAU2}: ended completed: reward 1, $0.00" in shown
    assert "decided" not in shown and "accounts" not in shown and "/min" not in shown
    assert session_line(close, read_meta(close)).startswith("limit:budget: 2/6 periods done, 2/6 periods correct, $0.50 ")
    assert session_line(tau2, read_meta(tau2)).startswith("completed: 1 conversation, reward 1, $0.00 ")


def test_status_and_the_summary_say_each_familys_units(tmp_path):
    root = tmp_path / "sessions"
    close, tau2 = write_close(root), tau2_session(root)
    lines = format_table(scan(root)).splitlines()
    assert lines[0].split()[:4] == ["session", "task", "status", "done"]
    assert "2/6 periods done" in next(x for x in lines if x.startswith(CLOSE))
    assert " - " in next(x for x in lines if x.startswith(TAU2))
    rows = {r["path"]: r for r in map(json.loads, (json.dumps(r.as_dict()) for r in scan(root)))}
    assert rows[CLOSE]["units"] == ["period", "periods", "done"] and rows[TAU2]["units"] == ["conversation", "conversations", None]
    meta = read_meta(close)
    write_meta(close, {**meta.to_dict(), "status": "infrastructure_failure", "decisions": 0, "voided": True,
                       "void_reason": "runtime crash: ValueError: no simulated agent"})
    summary = format_summary(MatrixResult(ran=[(close, "infrastructure_failure"), (tau2, "completed")]), root)
    assert f"  {CLOSE}  (infrastructure_failure, 0/6 periods done, runtime crash: ValueError: no simulated agent)" in summary
    assert "decided" not in summary


def test_the_viewer_says_a_stops_units_left_in_the_familys_words(tmp_path):
    from study.view import documents, family_docs
    from study.view.load import Store

    root = tmp_path / "sessions"
    write_close(root)
    store = Store(root)
    doc = documents.session_doc(store.session(CLOSE))
    stops = [m["label"] for m in doc["markers"] if m["kind"].startswith("stop")]
    assert stops == ["stop (ended), 5 periods left", "stop (ended), 4 periods left"]
    assert doc["units"] == {"one": "period", "many": "periods", "done": "done"}
    assert family_docs.work_doc(store.session(CLOSE), 0)["units"] == doc["units"]


def test_the_inspect_export_says_each_familys_units(tmp_path):
    pytest.importorskip("inspect_ai")
    from click.testing import CliRunner
    from inspect_ai.log import read_eval_log

    from study.cli import main

    root = tmp_path / "sessions"
    write_close(root)
    tau2_session(root)
    done = CliRunner().invoke(main, ["export", "inspect", "--sessions", str(root), str(tmp_path / "logs")])
    assert done.exit_code == 0, done.output
    logs = {log.samples[0].metadata["session"]: log for log in map(read_eval_log, map(str, (tmp_path / "logs").glob("*.eval")))}
    close, tau2 = logs[CLOSE], logs[TAU2]
    assert "(6 periods, exploratory)" in close.eval.task_display_name
    assert "(1 conversation, exploratory)" in tau2.eval.task_display_name
    assert close.samples[0].metadata["units"] == {"one": "period", "many": "periods", "done_word": "done", "of": 6, "done": 2}
    assert tau2.samples[0].metadata["units"]["done"] is None
