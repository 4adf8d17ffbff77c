"""Issue 10 item 3: ``study status`` and ``study audit`` over a folder with broken sessions name
each broken one and report the others; never a traceback (the real commands, through click)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from study.cli import main

from .conftest import DAMAGES, MODEL, write_valid

BROKEN = {name: (fn, rule) for name, fn, rule, *_ in DAMAGES}


def _folder(root):
    """One good session, and one session per damage (each under its own condition folder)."""
    write_valid(root / MODEL / "Plain" / "seed-2", condition="Plain")
    for name, (break_it, _) in BROKEN.items():
        break_it(write_valid(root / MODEL / name / "seed-2", condition=name))
    bad_meta = write_valid(root / MODEL / "meta-not-utf8" / "seed-2", condition="meta-not-utf8")
    (bad_meta / "meta.json").write_bytes(b'{"status": "completed", "model": "\xff"}')
    attempt = root / MODEL / "Plain" / "seed-2" / "attempt-1"     # an earlier attempt: not a session
    attempt.mkdir()
    (attempt / "meta.json").write_text("[not json", encoding="utf-8")
    return root


def _no_traceback(result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def test_status_lists_every_session_and_names_each_broken_one(tmp_path):
    root = _folder(tmp_path / "sessions")
    result = CliRunner().invoke(main, ["status", "--sessions", str(root)])
    _no_traceback(result)
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line for line in result.output.splitlines() if line.startswith(MODEL)}
    assert set(rows) == {f"{MODEL}/{c}/seed-2" for c in [*BROKEN, "Plain", "meta-not-utf8"]}
    good = rows[f"{MODEL}/Plain/seed-2"]
    assert "completed" in good and "BROKEN" not in good and "1 earlier attempt(s) kept" in good
    for name, (_, rule) in BROKEN.items():
        assert "BROKEN RECORDS" in rows[f"{MODEL}/{name}/seed-2"] and f"[rule {rule}]" in rows[f"{MODEL}/{name}/seed-2"]
    assert "meta.json is not UTF-8" in rows[f"{MODEL}/meta-not-utf8/seed-2"]
    assert f"{len(BROKEN) + 1} session(s) with broken records" in result.output


def test_status_json_carries_the_problems(tmp_path):
    root = _folder(tmp_path / "sessions")
    result = CliRunner().invoke(main, ["status", "--sessions", str(root), "--json"])
    _no_traceback(result)
    rows = {r["path"]: r for r in map(json.loads, result.output.splitlines())}
    assert rows[f"{MODEL}/Plain/seed-2"]["problems"] == []
    assert any("[rule encoding]" in p for p in rows[f"{MODEL}/non-utf8-bytes/seed-2"]["problems"])
    assert rows[f"{MODEL}/voided-as-string/seed-2"]["voided"] is False      # "false" never read as true
    assert any("'voided' must be true or false" in p for p in rows[f"{MODEL}/voided-as-string/seed-2"]["problems"])


@pytest.fixture
def frozen_root(tmp_path, frozen_project, monkeypatch):
    root = frozen_project(tmp_path / "project")
    monkeypatch.setenv("STUDY_ROOT", str(root))
    monkeypatch.chdir(root)
    return root


def test_audit_lists_every_session_and_names_each_broken_one(tmp_path, frozen_root):
    root = _folder(tmp_path / "sessions")
    result = CliRunner().invoke(main, ["audit", str(root)])
    _no_traceback(result)
    assert result.exit_code == 1, result.output      # broken sessions fail the audit
    assert set(_blocks(result.output)) == {f"{MODEL}/{c}/seed-2" for c in [*BROKEN, "Plain", "meta-not-utf8"]}
    assert "attempt-1" not in result.output
    blocks = _blocks(result.output)
    for name, (_, rule) in BROKEN.items():
        block = blocks[f"{MODEL}/{name}/seed-2"]
        if rule == "no-log":
            # the analysis' words for it too (issue 21: the audit called it "incomplete")
            assert block.startswith("no-log") and "no events.jsonl" in block, block
        else:
            assert block.startswith("FAIL") and f"[rule {rule}]" in block, block
    assert "meta.json is not UTF-8" in blocks[f"{MODEL}/meta-not-utf8/seed-2"]
    assert "[rule" not in blocks[f"{MODEL}/Plain/seed-2"]


def _blocks(output: str) -> dict[str, str]:
    """The audit's output per session: its line and the problem lines below it."""
    blocks: dict[str, str] = {}
    name = None
    for line in output.splitlines():
        if line[:1] not in (" ", "") and len(line.split()) > 1 and line.split()[1].startswith(MODEL):
            name = line.split()[1]
            blocks[name] = line
        elif name and line.startswith(" "):
            blocks[name] += "\n" + line
        else:
            name = None
    return blocks
