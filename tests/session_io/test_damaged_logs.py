"""Issue 10 items 2-3: a damaged log or meta.json is an error or an exclusion with its reason,
never a number. Each case damages a valid session written by the real writer."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analysis.loading import load_corpus, load_events
from study.session_io.issues import LogError
from analysis.scoring import score_session_dir
from study.cli import main
from study.session_io.reader import read_log, read_session

from .conftest import MODEL, lines, write_lines, write_valid


def test_the_valid_session_passes_every_rule_and_is_scored(tmp_path):
    folder = write_valid(tmp_path / MODEL / "FSM" / "seed-2")
    session = read_session(folder)            # strict: raises on any error
    assert session.valid and session.issues == []
    score = score_session_dir(folder)
    assert score.decided == 8 and score.status == "completed"


def test_each_damage_is_an_error_naming_the_file_the_line_and_the_rule(tmp_path, damage):
    break_it, rule, name, line = damage
    folder = write_valid(tmp_path / MODEL / "FSM" / "seed-2")
    break_it(folder)
    with pytest.raises(LogError) as caught:
        score_session_dir(folder)
    issue = caught.value.issue
    assert (issue.rule, issue.file.name) == (rule, name), str(caught.value)
    if line is not None:
        assert issue.line == line and f"{name}:{line}:" in str(caught.value)
    assert f"[rule {rule}]" in str(caught.value)


def test_the_reporting_read_never_raises_and_names_the_same_rule(tmp_path, damage):
    break_it, rule, name, _ = damage
    folder = write_valid(tmp_path / MODEL / "FSM" / "seed-2")
    break_it(folder)
    session = read_session(folder, strict=False)
    assert not session.valid
    assert rule in {i.rule for i in session.errors}


def test_a_damaged_session_is_excluded_with_its_reason_and_the_others_are_scored(tmp_path, damage):
    break_it, rule, name, line = damage
    root = tmp_path / "sessions"
    write_valid(root / MODEL / "Plain" / "seed-2", condition="Plain")
    break_it(write_valid(root / MODEL / "FSM" / "seed-2"))
    corpus = load_corpus(root, workers=1)
    assert corpus.sessions["condition"].to_list() == ["Plain"]        # never a number for FSM
    assert set(corpus.accounts["condition"].to_list()) == {"Plain"}
    reason = dict(corpus.excluded)[f"{MODEL}/FSM/seed-2"].reason
    if rule == "no-log":
        assert reason.startswith("no events.jsonl")
    else:
        assert reason.startswith("invalid records, never scored") and f"[rule {rule}]" in reason
        assert (f"{name}:{line}:" if line is not None else name) in reason


@pytest.mark.parametrize("damaged", ["doubled", "non-utf8"])
def test_the_tables_list_the_damaged_session_under_excluded(tmp_path, damaged):
    root = tmp_path / "sessions"
    write_valid(root / MODEL / "Plain" / "seed-2", condition="Plain")
    bad = write_valid(root / MODEL / "FSM" / "seed-2")
    if damaged == "doubled":
        write_lines(bad, [line for line in lines(bad) for _ in range(2)])
    else:
        (bad / "events.jsonl").write_bytes((bad / "events.jsonl").read_bytes().replace(b"list_batch", b"list\xffbatch", 1))
    result = CliRunner().invoke(main, ["tables", "--sessions", str(root), "--out", str(tmp_path / "out"),
                                       "--format", "md"])
    assert result.exit_code == 0, result.output
    table1 = (tmp_path / "out" / "table1.md").read_text(encoding="utf-8")
    listed = (tmp_path / "out" / "exclusions.md").read_text(encoding="utf-8")   # the list, with reasons
    rule = "seq" if damaged == "doubled" else "encoding"
    assert "- Excluded: 1 session (1 with invalid records); the exclusion list" in table1
    assert f"| {MODEL}/FSM/seed-2 | invalid records, never scored: events.jsonl:" in listed
    assert f"[rule {rule}]" in listed


def test_a_torn_last_line_is_the_one_tolerated_defect(tmp_path):
    folder = write_valid(tmp_path / MODEL / "FSM" / "seed-2")
    with open(folder / "events.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"seq": 999, "t": "2026-01-01T00:00:00Z", "kind": "assistant_te')   # a crash mid-write
    log = read_log(folder / "events.jsonl")
    assert log.valid and len(log.warnings) == 1 and "truncated last line" in log.warnings[0]
    assert score_session_dir(folder).decided == 8


def test_a_broken_last_line_that_was_completed_is_not_a_tear(tmp_path):
    folder = write_valid(tmp_path / MODEL / "FSM" / "seed-2")
    old = lines(folder)
    write_lines(folder, old[:-1] + [old[-1][:30] + "\n"])   # the newline was written: not a crash
    with pytest.raises(LogError, match=r"events\.jsonl:\d+: malformed event line"):
        score_session_dir(folder)


def test_load_events_leaves_out_a_session_whose_log_breaks_a_rule(tmp_path):
    root = tmp_path / "sessions"
    good = write_valid(root / MODEL / "Plain" / "seed-2", condition="Plain")
    bad = write_valid(root / MODEL / "FSM" / "seed-2")
    write_lines(bad, [line for line in lines(bad) for _ in range(2)])
    frame = load_events(root)
    assert set(frame["condition"].to_list()) == {"Plain"}
    assert frame.height == len(lines(good))


def test_a_meta_status_that_disagrees_with_the_log_is_an_error(tmp_path):
    folder = write_valid(tmp_path / MODEL / "FSM" / "seed-2", status="ended_with_accounts_left")
    with pytest.raises(LogError, match=r"meta\.json says status 'ended_with_accounts_left'.*\[rule meta-log\]"):
        score_session_dir(folder)
    meta = json.loads((folder / "meta.json").read_text())
    meta["status"] = "running"          # the runner died between session_end and its final meta
    (folder / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(LogError, match="still says running although the log has ended"):
        score_session_dir(folder)
