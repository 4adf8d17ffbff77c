"""Damaged sessions and odd requests get an answer, never an HTTP 500 or a traceback: page
numbers past any page, JSON nested past orjson's 255 levels, integers past 64 bits, transcript
lines that are not objects, very long names, a batch that is not a list of names; the bundle of
such a folder is written whole; Ctrl-C and SIGTERM end `study view` with exit code 3."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.cli.vocabulary import INTERRUPTED

from .conftest import serving
from .test_untrusted_files import api, get

SESSION = "exploratory/sim-drifting/Plain/seed-2-first-8"
START = {"seq": 0, "kind": "session_start", "t": "2026-01-01T00:00:00+00:00", "schema": 2, "model": "m",
         "condition": "FSM", "seed": 2, "simulated": True, "manifest_sha256": "x", "code_version": "x",
         "cli_version": None, "limits": {}}
DEEP = "[" * 300 + "]" * 300


def _write(root: Path, name: str, *lines: str, meta: str | None = None) -> str:
    folder = root / "damaged" / name / "FSM" / "seed-2"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_text("".join(line + "\n" for line in lines))
    if meta is not None:
        (folder / "meta.json").write_text(meta)
    return folder.relative_to(root).as_posix()


@pytest.fixture
def damaged(golden_corpus) -> dict[str, str]:
    """Damaged sessions beside the golden ones: what each is, by its name."""
    root = golden_corpus
    start = json.dumps(START)[:-1]
    text = '{"seq": 1, "kind": "assistant_text", "t": "2026-01-01T00:00:01+00:00", "text": "hi", '
    out = {
        "order-int": _write(root, "order-int", start + ', "order": 5}'),
        "order-mixed": _write(root, "order-mixed", start + ', "order": [1, {"a": 1}, "ACC1"]}',
                              meta='{"seed": "x", "model": 5}'),
        "deep": _write(root, "deep", start + ', "order": ["ACC1"]}', text + '"extra": ' + DEEP + "}"),
        "bigint": _write(root, "bigint", start + ', "order": ["ACC1"]}', meta='{"big": ' + "9" * 30 + "}"),
        "not-objects": _write(root, "not-objects", "[1, 2]", '"text"'),
        "meta-only": _write(root, "meta-only", meta='{"model": "m"}'),
    }
    (root / out["meta-only"] / "events.jsonl").unlink()
    transcript = root / SESSION / "transcript.jsonl"
    transcript.write_text("\n".join(['[1, 2]', '"a string"', "42", "null", '{"type": "user", "message": '
                                     '{"role": "user", "content": [{"type": "tool_result", "content": ' + DEEP + "}]}}"]) + "\n")
    return out


def test_damaged_sessions_and_odd_requests_are_answered_without_a_500(golden_corpus, damaged, tmp_path):
    with serving(golden_corpus, tmp_path) as (base, _proc):
        status, matrix = get(base, "/api/matrix")
        assert status == 200
        rows = {r["name"]: r for r in matrix["sessions"]}
        for what, name in damaged.items():
            status, doc = api(base, "session", name)
            assert status == 200, (what, doc)
            if what not in ("deep", "bigint"):
                assert doc["error"] and doc["problems"] and rows[name]["error"], (what, doc)
            for kind in ("events", "transcript"):
                assert api(base, kind, name, page=0)[0] == 200, (what, kind)
        # a value nested past orjson's limit, an integer past 64 bits: shown as a note and as text
        events = api(base, "events", damaged["deep"], page=0)[1]["events"]
        value, depth = events[1]["extra"], 0
        while isinstance(value, list) and len(value) == 1:
            value, depth = value[0], depth + 1
        assert value == "… (nested deeper than 64 levels; not shown)" and 50 < depth < 64
        assert events[1]["text"] == "hi"
        assert api(base, "session", damaged["bigint"])[1]["meta"]["big"] == "9" * 30   # json reads it whole
        assert api(base, "session", damaged["order-mixed"])[1]["accounts"] == 1
        # page numbers past the last page, or no page number at all: 404 with the reason
        for page in ("100000000000000000000", "1", "-1", "x", "%D9%A1", "1e3"):
            status, doc = get(base, f"/api/events?session={SESSION}&page={page}")
            assert (status, doc) == (404, {"error": f"no such page of {SESSION}"}), page
        assert api(base, "transcript", SESSION, page=10**20)[0] == 404
        # transcript lines that are not objects are shown as they are
        status, doc = api(base, "transcript", SESSION, page=0)
        assert status == 200 and [e["type"] for e in doc["entries"]] == ["unreadable"] * 4 + ["user"]
        assert [e["blocks"][0]["text"] for e in doc["entries"][:4]] == ["[1, 2]", '"a string"', "42", "null"]
        assert "nested deeper than 64 levels" in doc["entries"][4]["blocks"][0]["text"]
        # a name far longer than any path: refused, and only its start is repeated
        status, doc = api(base, "session", "a" * 100_000)
        assert status == 404 and doc["error"] == f"'{'a' * 200}…' is not a session of this sessions folder (a name of 100,000 characters)"
        status, doc = api(base, "session", "a/" * 2000)
        assert status == 404 and "is not a session" in doc["error"]

    out = tmp_path / "bundle"
    result = CliRunner().invoke(main, ["view", "--sessions", str(golden_corpus), "--bundle", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("wrote 16 of 16 sessions")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_ends_the_server_with_exit_code_3(golden_corpus, tmp_path, sig):
    with serving(golden_corpus, tmp_path) as (base, proc):
        assert get(base, "/api/matrix")[0] == 200
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == INTERRUPTED == 3
    assert (tmp_path / "server.stderr").read_text().endswith(f"study view: stopped ({sig.name})\n")


def test_ctrl_c_while_writing_a_bundle_exits_3_and_says_it_is_incomplete(golden_corpus, tmp_path, monkeypatch):
    import study.view.bundle as bundle

    def interrupted(*_a, **_k):
        raise KeyboardInterrupt
    monkeypatch.setattr(bundle, "write_bundle", interrupted)
    out = tmp_path / "bundle"
    result = CliRunner().invoke(main, ["view", "--sessions", str(golden_corpus), "--bundle", str(out)])
    assert (result.exit_code, result.output) == (3, f"study view: interrupted (SIGINT); the bundle in {out} is "
                                                    "incomplete: write it again\n")


def test_a_page_number_given_to_a_document_without_pages_is_ignored(golden_corpus, tmp_path):
    with serving(golden_corpus, tmp_path) as (base, _proc):
        assert api(base, "session", SESSION, page="x")[0] == 200
