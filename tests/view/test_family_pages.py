"""The viewer on the other task families' sessions: the matrix shows each family's verdict where a
SOP-Bench session shows FC; a τ²-bench session is a conversation (the customer, the agent, the
tools, a denial in red, the controller's turn, the end) with the reward and its parts; a
workspace session is its contexts (commands, edits, the gate's refusals with their reason,
commits, refused stage checks with their problems, stop-gate blocks) with the protocol's outcome.
Real simulator sessions (tests/view/family_sessions.py) in a real headless Chromium, served and
as a bundle from file://; screenshots land in /tmp/viewer-shots/."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner

from study.cli import main
from study.session_io.writer import EventLog
from study.view import documents, family_docs
from study.view.load import Store

from .conftest import screenshot, serving
from .family_sessions import CLOSE, GROUP, RESEARCH, TAU2, TAU2_PROBLEM, copy_into, needs_tau2, write_research_run
from .test_browser import _wait
from .test_untrusted_files import api

pytestmark = [pytest.mark.e2e, pytest.mark.xdist_group(GROUP)]


@pytest.fixture(scope="module")
def family_root(shared_sim_session, tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("family-view") / "sessions"
    root.mkdir()
    names = {"tau2": copy_into(root, shared_sim_session, TAU2) if TAU2_PROBLEM is None else None,
             "close": copy_into(root, shared_sim_session, CLOSE), "research": RESEARCH}
    write_research_run(root)
    return {"root": root, **names}


def _log(root: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (root / name / "events.jsonl").read_text().splitlines()]


@needs_tau2
def test_the_matrix_shows_each_familys_verdict_where_sop_bench_shows_fc(family_root):
    root = family_root["root"]
    doc = documents.matrix_doc(Store(root))
    rows = {r["name"]: r for r in doc["sessions"]}
    tau2, close, research = rows[family_root["tau2"]], rows[family_root["close"]], rows[RESEARCH]
    assert (tau2["family"], tau2["task"], tau2["verdict"], tau2["verdict_class"], tau2["fc"], tau2["decided"]) == (
        "tau2", "tau2-telecom", "reward 1", "pass", None, None)
    assert (close["task"], close["verdict"], [c["class"] for c in close["cells"]]) == (
        "month-end-close", "1/1 periods correct", ["pass"])
    assert research["verdict"] == "1/8 rows valid, not complete"
    assert [c["class"] for c in research["cells"]] == ["pass", "fail"] + ["none"] * 6
    groups = {g["task"]: g for g in doc["groups"]}
    assert (groups["tau2-telecom"]["verdicts"], groups["autoresearch"]["verdicts"]) == ("1 passed", "1 not complete")
    assert doc["tasks"] == ["autoresearch", "month-end-close", "tau2-telecom"]


@needs_tau2
def test_a_tau2_session_is_its_conversation_with_the_reward_and_its_parts(family_root):
    root, name = family_root["root"], family_root["tau2"]
    store = Store(root)
    session = store.session(name)
    doc = documents.session_doc(session)
    outcome = next(e for e in _log(root, name) if e["kind"] == "outcome")
    assert doc["outcome"]["reward"] == outcome["reward"] == 1.0
    assert [p["name"] for p in doc["outcome"]["parts"]] == sorted(outcome["parts"])
    assert [p["name"] for p in doc["outcome"]["parts"] if p["in_basis"]] == sorted(outcome["reward_basis"])
    assert dict(doc["outcome"]["facts"])["transferred to a human agent"] == "yes"
    said = [e for e in _log(root, name) if e["kind"] == "customer_message"]
    lookups = [e for e in _log(root, name) if e["kind"] == "controller_call"]
    # the controller's turns: the scope step's lookups (the customer by the opening's phone number,
    # then their lines until the one with that number) and one fresh test after the repair
    assert [e["tool"] for e in lookups] == ["get_customer_by_phone", "get_details_by_id", "get_details_by_id"]
    assert lookups[0]["args"] == {"phone_number": "555-123-2002"} and all(e["ok"] for e in lookups)
    assert doc["turns"]["customer"] == len(said) and doc["turns"]["controller"] == outcome["controller_turns"] == 4
    assert outcome["controller_lookups"] == len(lookups) == 3
    entries = family_docs.work_doc(session, 0)["entries"]
    roles = [e["role"] for e in entries]
    # the scope step comes after the customer's opening and before anything the agent did
    assert roles[:4] == ["customer", "controller", "controller", "controller"]
    assert [e["tool"] for e in entries[1:4]] == [e["tool"] for e in lookups]
    assert "555-123-2002" in entries[1]["result"]["text"] and entries[1]["args"]["text"] == '{"phone_number":"555-123-2002"}'
    denied = next(e for e in entries if e.get("denied"))
    assert (denied["tool"], denied["ok"]) == ("transfer_to_human_agents", False) and "denied" in denied["error"]
    blocked = next(e for e in entries if e["role"] == "stop" and e["outcome"] == "blocked")
    assert roles.index("stop") > roles.index("call")
    # the controller's fresh test follows the agent's repair request, and the customer answers it
    k = next(i for i, e in enumerate(entries) if e["role"] == "controller" and "tool" not in e)
    assert roles[k - 2:k + 2] == ["agent", "customer", "controller", "customer"]
    assert entries[-1]["role"] == "stop" and next(e for e in entries if e["role"] == "end")["reason"] == "user_stop"
    assert blocked["reason"] and documents.account_doc(session, session.order[0]) is None
    assert family_docs.work_doc(session, 1) is None


def test_a_workspace_session_is_its_contexts_with_every_call_refusal_commit_and_check(family_root):
    session = Store(family_root["root"]).session(RESEARCH)
    doc = documents.session_doc(session)
    first, second = doc["contexts"]
    assert (first["n"], first["ended"], first["state"], second["ended"]) == (1, "ended_with_accounts_left", "S_scheduler",
                                                                             "completed")
    assert first["counts"] == {"calls": 4, "commands": 2, "edits": 1, "denied": 1, "commits": 1, "moves": 1,
                               "refused_moves": 1, "blocks": 1}
    items = {e["kind"]: e for e in family_docs.work_doc(session, first["pages"][0])["entries"]}
    assert items["edit"]["changes"] == [{"old": {"text": '"learning_rate": "constant"'},
                                         "new": {"text": '"learning_rate": "optimal"'}}]
    assert items["commit"]["files"] == ["train.py"] and items["commit"]["subject"]["text"] == "trial 2: learning_rate=optimal"
    refused = [e for e in family_docs.work_doc(session, 0)["entries"] if e["kind"] == "transition" and not e["ok"]]
    assert "decision 'reject' is not one of keep, discard, crash" in refused[0]["reason"]["text"]
    rows = doc["outcome"]["rows"]
    assert [(r["trial"], r["valid"], r["rule"]) for r in rows] == [("1", True, None), ("2", False, "decision")]
    assert dict(doc["outcome"]["facts"])["not complete because"] == "1 invalid row; the rows' stages are not the plan's 8 in order"


def test_a_forged_huge_value_in_a_family_log_makes_no_huge_page(family_root, tmp_path):
    root = tmp_path / "sessions"
    folder = write_research_run(root)
    lines = (folder / "events.jsonl").read_text().splitlines()
    with EventLog(folder / "more.jsonl") as log:     # a further call with a 2 MB argument and a long list
        log.emit_fields("tool_call", dict(tool="Write", args={"file_path": "x", "content": "y" * 2_000_000,
                                                              "extra": list(range(100_000))},
                                          account=None, allowed=True, ok=True, state=None, result="z" * 3_000_000))
    forged = json.loads((folder / "more.jsonl").read_text())
    (folder / "more.jsonl").unlink()
    last = json.loads(lines[-1])
    forged.update(seq=last["seq"], t=last["t"])
    last["seq"] += 1
    (folder / "events.jsonl").write_text("\n".join(lines[:-1] + [json.dumps(forged), json.dumps(last)]) + "\n")
    session = Store(root).session(RESEARCH)
    assert session.error is None
    pages = [family_docs.work_doc(session, p) for p in range(documents.session_doc(session)["work_pages"])]
    assert all(len(json.dumps(p)) < 100_000 for p in pages)
    write = next(e for p in pages for e in p["entries"] if e.get("content"))
    assert (len(write["content"]["text"]), write["content"]["cut"]) == (4000, 2_000_000)


@needs_tau2
def test_the_server_answers_family_pages_and_refuses_what_is_no_page(family_root, tmp_path):
    root = family_root["root"]
    with serving(root, tmp_path) as (base, _proc):
        status, doc = api(base, "work", family_root["tau2"], page=0)
        assert status == 200 and doc["entries"][0]["role"] == "customer"
        assert api(base, "work", family_root["tau2"], page=5)[0] == 404
        assert api(base, "transcript", RESEARCH, page=0, context="x1")[0] == 404
        status, doc = api(base, "transcript", RESEARCH, page=0, context=1)      # it keeps no context transcript
        assert status == 200 and doc["total"] == 0


def _open(browser, url: str, css: str):
    browser.get(url)
    return _wait(browser, css)


@needs_tau2
def test_the_family_pages_in_a_browser_served_and_as_a_bundle(family_root, browser, tmp_path):
    from selenium.webdriver.common.by import By

    root = family_root["root"]
    with serving(root, tmp_path) as (base, _proc):
        rows = _open(browser, base, "#matrix tbody tr")
        verdicts = {r.get_attribute("data-name"): r.find_element(By.CSS_SELECTOR, ".fc-cell").text for r in rows}
        assert verdicts == {family_root["tau2"]: "reward 1", family_root["close"]: "1/1 periods correct",
                            RESEARCH: "1/8 rows valid, not complete"}
        assert len(browser.find_elements(By.CSS_SELECTOR, f'tr[data-name="{RESEARCH}"] .cells span')) == 8
        screenshot(browser, tmp_path, "family-1-matrix")

        _open(browser, base + "#/s/" + quote(family_root["tau2"], safe=""), "#chat .msg.customer")
        chat = browser.find_element(By.ID, "chat")
        said = [e for e in _log(root, family_root["tau2"]) if e["kind"] == "customer_message"]
        assert len(chat.find_elements(By.CSS_SELECTOR, ".msg.customer")) == len(said)
        assert "written by the harness" in chat.find_element(By.CSS_SELECTOR, ".msg.controller").text
        denied = chat.find_element(By.CSS_SELECTOR, ".chat-call.denied")
        assert "transfer_to_human_agents" in denied.text and "Refused:" in denied.text
        assert "The conversation ended (τ²-bench: user_stop)" in chat.find_element(By.CSS_SELECTOR, ".chat-end").text
        assert browser.find_element(By.CSS_SELECTOR, "#outcome .verdict").text == "reward 1"
        assert len(browser.find_elements(By.CSS_SELECTOR, "#reward-parts tr[data-part]")) == 3
        screenshot(browser, tmp_path, "family-2-tau2")

        _open(browser, base + "#/s/" + quote(RESEARCH, safe=""), ".ws-item.commit")
        refused = browser.find_element(By.CSS_SELECTOR, ".ws-item.move.refused")
        assert "decision 'reject' is not one of keep, discard, crash" in refused.text
        assert "rm -rf .git" in browser.find_element(By.CSS_SELECTOR, ".ws-item.denied").text
        assert browser.find_element(By.CSS_SELECTOR, ".ws-item.edit pre.diff.new").text == '+ "learning_rate": "optimal"'
        assert "The stop gate blocked" in browser.find_element(By.CSS_SELECTOR, ".ws-item.stop.blocked").text
        assert len(browser.find_elements(By.CSS_SELECTOR, "#ledger-rows tr.bad-row")) == 1
        screenshot(browser, tmp_path, "family-3-research")

        _open(browser, base + "#/s/" + quote(family_root["close"], safe=""), "#periods tr[data-period]")
        denied = [e for e in _log(root, family_root["close"]) if e["kind"] == "tool_call" and not e["allowed"]]
        assert len(denied) >= 3 and len(_wait(browser, ".ws-item.denied", len(denied))) == len(denied)
        assert browser.find_element(By.CSS_SELECTOR, "#periods tr[data-period]").text.startswith("2025-01")
        screenshot(browser, tmp_path, "family-4-close")
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors

    bundle = tmp_path / "bundle"
    done = CliRunner().invoke(main, ["view", "--sessions", str(root), "--bundle", str(bundle)])
    assert done.exit_code == 0, done.output
    assert (bundle / "data" / "autoresearch~002fexploratory~002fsim-drifter~002fFSM~002fseed-1" / "work-0.js").is_file()
    _open(browser, (bundle / "index.html").as_uri() + "#/s/" + quote(family_root["tau2"], safe=""), "#chat .msg.controller")
    _open(browser, (bundle / "index.html").as_uri() + "#/s/" + quote(RESEARCH, safe=""), ".ws-item.move.refused")


def test_an_ended_contexts_transcript_is_read_only_inside_the_session(family_root, tmp_path):
    root = tmp_path / "sessions"
    folder = write_research_run(root)
    (folder / "contexts").mkdir()
    record = {"type": "user", "timestamp": "T0", "message": {"role": "user", "content": "Do stage scheduler."}}
    (folder / "contexts" / "context-1.transcript.jsonl").write_text(json.dumps(record) + "\n")
    store = Store(root)
    session = store.session(RESEARCH)
    assert documents.session_doc(session)["context_transcripts"] == [1]
    (turns, _other), refused = store.conversation(session, 1)
    assert refused is None and [(t["role"], t["text"]) for t in turns] == [("user", "Do stage scheduler.")]
    secret = tmp_path / "secret.jsonl"
    secret.write_text(json.dumps(record) + "\n")
    shutil.rmtree(folder / "contexts")
    (folder / "contexts").symlink_to(tmp_path)          # a folder of links out of the session
    (tmp_path / "context-1.transcript.jsonl").symlink_to(secret)
    lines, refused = Store(root).transcript_lines(Store(root).session(RESEARCH), 1)
    assert lines == [] and "outside the session folder" in refused
    bundle = tmp_path / "bundle"
    done = CliRunner().invoke(main, ["view", "--sessions", str(root), "--bundle", str(bundle), "--no-transcripts"])
    assert done.exit_code == 0, done.output
    written = (bundle / "data" / "autoresearch~002fexploratory~002fsim-drifter~002fFSM~002fseed-1" / "transcript-c1-0.js").read_text()
    assert '"omitted":true' in written and "Do stage scheduler" not in written


def test_a_family_session_without_an_end_says_how_far_its_log_goes(tmp_path):
    root = tmp_path / "sessions"
    folder = write_research_run(root)
    lines = (folder / "events.jsonl").read_text().splitlines()
    (folder / "events.jsonl").write_text("\n".join(lines[:12]) + "\n")          # up to the second context's start
    row = documents.matrix_row(Store(root).session(RESEARCH))
    assert (row["status"], row["verdict"], row["verdict_class"]) == ("no session_end", "no end yet: context 2", "none")
