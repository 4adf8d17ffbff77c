"""``study tables`` says its numbers are unaudited until ``study audit`` has passed for exactly
these sessions (``study.session_io.audited``): the audit's result is kept under the lstat proofs
of every file it read, and any change to them, a session added, the preregistration or the
audit's code makes the tables say "unaudited" again. The line is on stderr, after everything
else, never in a table file: the golden tables stay byte-identical."""

from __future__ import annotations

import json
import shutil
import tarfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from study import caching
from study.cli import main
from study.session_io import audited
from study.session_io.folders import find_sessions

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
NOTE = "note: these numbers are unaudited until `study audit"


@pytest.fixture
def quick(monkeypatch, tmp_path):
    """Files settle after 0.05 s (the tests wait 0.2 s); the cache and a preregistration folder of
    the test's own."""
    monkeypatch.setattr(caching, "RACY_S", 0.05)
    monkeypatch.setenv("STUDY_CACHE_DIR", str(tmp_path / "cache"))
    prereg = tmp_path / "preregistration"
    prereg.mkdir()
    (prereg / "freeze.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(audited, "prereg_dir", lambda: prereg)
    return lambda: time.sleep(0.2)


@pytest.fixture
def root(tmp_path) -> Path:
    with tarfile.open(GOLDEN / "corpus_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "sessions"


def _pass(root: Path, wait, verdict: str = "ok", **others: str) -> None:
    wait()
    before = audited.snapshot(root)
    assert audited.remember(before, {str(d): others.get(d.name, verdict) for d in find_sessions(root)})


def test_an_audit_that_passed_holds_while_nothing_it_read_changes(root, quick):
    assert audited.unaudited(root) is not None
    _pass(root, quick)
    assert audited.audited(root) and audited.unaudited(root) is None
    one = find_sessions(root)[0]

    meta = one / "meta.json"
    meta.write_text(meta.read_text(encoding="utf-8"), encoding="utf-8")      # same bytes, a new write
    assert not audited.audited(root)
    _pass(root, quick)
    (one / "transcript.jsonl").write_text("", encoding="utf-8")            # a file the audit reads appears
    assert not audited.audited(root)
    _pass(root, quick)
    shutil.copytree(one, root / "added" / "seed-9")                        # a session added
    assert not audited.audited(root)
    shutil.rmtree(root / "added")
    _pass(root, quick)
    (audited.prereg_dir() / "amendments.jsonl").write_text("{}\n", encoding="utf-8")   # the preregistration
    assert not audited.audited(root)


def test_what_changes_during_the_audit_or_just_before_is_never_kept(root, quick):
    before = audited.snapshot(root)      # no wait: every file was just extracted
    assert not audited.remember(before, {str(d): "ok" for d in find_sessions(root)})
    quick()
    before = audited.snapshot(root)
    events = find_sessions(root)[0] / "events.jsonl"
    events.write_bytes(events.read_bytes())
    assert not audited.remember(before, {str(d): "ok" for d in find_sessions(root)})
    assert not audited.audited(root)


def test_exploratory_sessions_are_never_audited(root, quick):
    first = find_sessions(root)[0]
    _pass(root, quick, **{first.name: "exploratory"})
    assert audited.audited(root) and not audited.audited(root, include_exploratory=True)
    _pass(root, quick, verdict="voided")
    assert not audited.audited(root)       # nothing the audit checked: nothing audited


def test_the_tables_say_it_in_one_line_at_the_end_and_never_in_a_file(root, quick, tmp_path):
    def tables(*extra):
        result = CliRunner().invoke(main, ["tables", "--sessions", str(root), *extra])
        assert result.exit_code == 0, result.output
        return result

    printed = tables()
    assert printed.stderr.rstrip("\n").splitlines()[-1].startswith(NOTE)
    assert printed.stderr.count(NOTE) == 1 and NOTE not in printed.stdout
    written = tables("--out", str(tmp_path / "out"))
    assert written.stderr.rstrip("\n").splitlines()[-1].startswith(NOTE)
    assert not any(NOTE in p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir())
    _pass(root, quick)
    audited_now = tables()
    assert NOTE not in audited_now.stderr and audited_now.stdout == printed.stdout


def test_a_passing_study_audit_is_remembered(tmp_path, monkeypatch, frozen_project):
    """``study audit`` keeps its pass (a frozen checkout, one session written as the runner would
    under the freeze), and forgets it when a later audit fails."""
    root = frozen_project(tmp_path / "project")
    monkeypatch.setenv("STUDY_ROOT", str(root))
    monkeypatch.setenv("STUDY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(caching, "RACY_S", 0.05)
    from study.prereg import verify
    from study.prereg.runtime import current_runtime
    from tests.prereg.conftest import later, write_session

    report = verify(root)
    link = report.links[-1]
    runtime = current_runtime()
    sessions = tmp_path / "sessions"
    fields = dict(manifest=link.sha256, code_version=_head(root), cli_version=runtime["cli_version"],
                  sdk_version=runtime["sdk_version"], lock_sha256=runtime["lock_sha256"])
    good = write_session(sessions / "sim-oracle" / "FSM" / "seed-2", started=later(link.time, 5), **fields)
    _seed_two_order(root, good)
    time.sleep(0.2)
    passed = CliRunner().invoke(main, ["audit", "--sessions", str(sessions)])
    assert passed.exit_code == 0, passed.output
    assert audited.audited(sessions)
    bad = write_session(sessions / "sim-oracle" / "FSM" / "seed-3", started=later(link.time, 5),
                        **{**fields, "manifest": "0" * 64})
    assert bad.is_dir() and not audited.audited(sessions)        # a session added
    failed = CliRunner().invoke(main, ["audit", "--sessions", str(sessions)])
    assert failed.exit_code == 1
    shutil.rmtree(bad.parent / "seed-3")
    assert not audited.audited(sessions)                          # the failed audit forgot the pass


def _head(root: Path) -> str:
    import subprocess

    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def _seed_two_order(root: Path, session: Path) -> None:
    """The session's batch: seed 2's frozen order (a confirmatory session's batch is checked)."""
    order = [line for line in (root / "preregistration" / "orders" / "seed-2.txt").read_text().split() if line]
    for name in ("events.jsonl",):
        path = session / name
        events = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        events[0]["order"] = order
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
