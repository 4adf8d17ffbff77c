"""`study view --bundle OUT`: one folder of scripts split per session, each the very document the
server answers with; account pages carry the FSM state per call and each denial's reason."""

from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner

from study.cli import main
from study.view.paths import file_key

pytestmark = pytest.mark.e2e     # real simulator sessions (tests/view/conftest.py)

FSM = "exploratory/sim-adversarial/FSM/seed-2-first-6"
PLAIN = "exploratory/sim-adversarial/Plain/seed-2-first-6"


def _read_script(path) -> tuple[str, object]:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("VIEW.put(") and text.endswith(");\n")
    key, _, body = text[len("VIEW.put("):-3].partition(",")
    return json.loads(key), json.loads(body)


def _api(base: str, kind: str, **params) -> object:
    with urllib.request.urlopen(f"{base}api/{kind}?{urlencode(params)}", timeout=60) as response:
        return json.loads(response.read())


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
def test_bundle_files_are_the_server_documents_split_per_session(server, sim_corpus, tmp_path):
    out = tmp_path / "bundle"
    result = CliRunner().invoke(main, ["view", "--sessions", str(sim_corpus), "--bundle", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote 12 of 12 sessions (") and result.output.endswith(
        f"to {out}; open {out / 'index.html'} in a browser\n")
    html = (out / "index.html").read_text()
    assert 'window.VIEW_MODE = "bundle"' in html and "http" not in html      # nothing from the network
    folders = sorted(p.name for p in (out / "data").iterdir() if p.is_dir())
    assert len(folders) == 12 and file_key(FSM) in folders
    checks = [("data/matrix.js", "matrix", {}),
              (f"data/{file_key(FSM)}/session.js", "session", {"session": FSM}),
              (f"data/{file_key(FSM)}/account-ACC100019.js", "account", {"session": FSM, "account": "ACC100019"}),
              (f"data/{file_key(PLAIN)}/events-0.js", "events", {"session": PLAIN, "page": 0}),
              (f"data/{file_key(FSM)}/transcript-1.js", "transcript", {"session": FSM, "page": 1}),
              (f"data/{file_key(FSM)}/conversation-0.js", "conversation", {"session": FSM, "page": 0})]
    for relative, kind, params in checks:
        key, doc = _read_script(out / relative)
        assert key == relative
        assert doc == _api(server, kind, **params), relative
    # one account file per account of the batch, events in pages of 200
    session = _read_script(out / f"data/{file_key(FSM)}/session.js")[1]
    files = sorted(p.name for p in (out / "data" / file_key(FSM)).iterdir())
    accounts = sorted(f"account-{a['account']}.js" for a in session["strip"])
    assert [f for f in files if f.startswith("account-")] == accounts and len(accounts) == 6
    assert [f for f in files if f.startswith("events-")] == [f"events-{i}.js" for i in
                                                              range(-(-session["events_total"] // 200))]


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
def test_account_page_document_has_fsm_state_per_call_and_denial_reasons(server):
    doc = _api(server, "account", session=FSM, account="ACC100185")
    calls = [e for e in doc["events"] if e["kind"] == "tool_call"]
    assert {e["state"] for e in calls} == {"S_investigate", "S_decide"}
    denied = [e for e in calls if e["allowed"] is False]
    # the adversarial policy's first move: a decision without looking, refused in S_investigate
    assert denied[0]["tool"] == "submit_decision" and denied[0]["state"] == "S_investigate"
    assert denied[0]["error"].startswith("submit_decision is not permitted in this state (state S_investigate")
    assert doc["simulated"] is True and doc["class"] == "fc" and doc["clauses"]["foc"]["ok"] is True
    session = _api(server, "session", session=FSM)
    kinds = {m["kind"] for m in session["markers"]}
    assert {"denial", "transition", "transition-refused"} <= kinds
    assert session["prereg"]["manifest_sha256"] == "unchecked" and session["simulated"] is True


@pytest.mark.xdist_group("view-sim-corpus")   # sim_corpus is made once per worker: its tests share one
def test_a_bundle_without_transcripts_says_so(sim_corpus, tmp_path):
    out = tmp_path / "slim"
    result = CliRunner().invoke(main, ["view", "--sessions", str(sim_corpus), "--bundle", str(out), "--no-transcripts"])
    assert result.exit_code == 0, result.output
    folder = out / "data" / file_key(FSM)
    assert sorted(p.name for p in folder.glob("transcript-*")) == ["transcript-0.js"]
    key, doc = _read_script(folder / "transcript-0.js")
    assert doc == {"name": FSM, "simulated": True, "page": 0, "page_size": 100, "total": 0, "entries": [],
                   "omitted": True}


def test_the_bundle_reads_and_scores_each_session_once(golden_corpus, tmp_path, monkeypatch):
    import study.view.load as load
    from study.view.bundle import write_bundle

    scored = []
    real = load.score_log
    monkeypatch.setattr(load, "score_log", lambda log, *a, **k: scored.append(log.path) or real(log, *a, **k))
    counts = write_bundle(golden_corpus, tmp_path / "bundle")
    assert counts["sessions"] == 10
    assert sorted(scored) == sorted(set(scored)) and len(scored) == 10
    key, matrix = _read_script(tmp_path / "bundle" / "data" / "matrix.js")
    assert key == "data/matrix.js" and len(matrix["sessions"]) == 10
