"""``SessionRecord``: one record per session folder, and the one exclusion rule the analysis and
the audit share (issue 21: they used to disagree on the development seed and on a missing log)."""

from __future__ import annotations

import json

from pathlib import Path

import pytest

from analysis.corpus import write_session
from analysis.loading import load_corpus
from study.prereg.audit import audit_session
from study.session_io.folders import find_sessions
from study.session_io.record import Exclusion, ExclusionKind, SessionRecord, read_record

from .conftest import EPISODES, MODEL, edit_meta, events, lines, write_lines, write_valid


def _every_kind(root: Path) -> dict[str, ExclusionKind | None]:
    """A sessions folder holding one session of every kind of exclusion and one analysed one;
    returns what each must be."""
    write_valid(root / MODEL / "Plain/seed-2", condition="Plain")
    write_valid(root / MODEL / "FSM/seed-2")
    edit_meta(root / MODEL / "FSM/seed-2", voided=True, void_reason="quota exhausted")
    write_session(root / MODEL / "Remind/seed-2", model=MODEL, condition="Remind", seed=2,
                  episodes=EPISODES, accounts=len(EPISODES), voided=True)     # infrastructure_failure
    write_valid(root / MODEL / "Stop-only/seed-2", condition="Stop-only")
    folder = root / MODEL / "Stop-only/seed-2"
    write_lines(folder, lines(folder)[:-1])                 # no session_end: still running
    edit_meta(folder, status="running")
    write_valid(root / "exploratory" / MODEL / "FSM/seed-3", seed=3)
    write_valid(root / MODEL / "Plain/seed-1", condition="Plain", seed=1)              # the development seed
    write_valid(root / MODEL / "Gates-only/seed-2", condition="Gates-only")
    folder = root / MODEL / "Gates-only/seed-2"
    write_lines(folder, [line for line in lines(folder) for _ in range(2)])   # every line doubled
    write_valid(root / MODEL / "Sys/seed-2", condition="Sys")
    (root / MODEL / "Sys/seed-2/events.jsonl").unlink()
    other = write_valid(root / "tau2-telecom" / MODEL / "Plain/seed-2", condition="Plain")   # another study's
    evs = events(other)
    evs[0]["study"] = "tau2-telecom"
    write_lines(other, [json.dumps(e) + "\n" for e in evs])
    return {
        f"{MODEL}/Plain/seed-2": None, f"{MODEL}/FSM/seed-2": ExclusionKind.VOIDED,
        f"{MODEL}/Remind/seed-2": ExclusionKind.VOIDED, f"{MODEL}/Stop-only/seed-2": ExclusionKind.INCOMPLETE,
        f"exploratory/{MODEL}/FSM/seed-3": ExclusionKind.EXPLORATORY,
        f"{MODEL}/Plain/seed-1": ExclusionKind.DEVELOPMENT_SEED,
        f"{MODEL}/Gates-only/seed-2": ExclusionKind.INVALID, f"{MODEL}/Sys/seed-2": ExclusionKind.NO_LOG,
        f"tau2-telecom/{MODEL}/Plain/seed-2": ExclusionKind.OTHER_STUDY,
    }


def test_the_audit_and_the_tables_exclude_the_same_sessions_with_the_same_kinds(tmp_path):
    root = tmp_path / "sessions"
    expected = _every_kind(root)
    assert {k for k in expected.values() if k} == set(ExclusionKind)      # every kind is here

    corpus = load_corpus(root, workers=1)
    by_tables = {path: why.kind for path, why in corpus.excluded}
    audits = [audit_session(folder, [], root) for folder in find_sessions(root)]
    by_audit = {a.path.relative_to(root).as_posix(): a.exclusion.kind for a in audits if a.exclusion}

    # the audit judges each session by its own study (another study's session is audited as that
    # study's: here a main-study log relabelled tau2-telecom, whose family has no verdict to
    # re-derive, so its records are invalid: study.session_io.verdicts); the main study's tables
    # leave it out as another study's
    other = f"tau2-telecom/{MODEL}/Plain/seed-2"
    assert by_tables == {p: k for p, k in expected.items() if k}
    assert by_audit == {**{p: k for p, k in expected.items() if k and p != other}, other: ExclusionKind.INVALID}
    assert corpus.sessions["path"].to_list() == [str(root / MODEL / "Plain/seed-2")]
    # the reasons are the tables' words, the same in both
    assert {a.path.relative_to(root).as_posix(): a.excluded for a in audits
            if a.exclusion and a.path.relative_to(root).as_posix() != other} == \
        {p: why.reason for p, why in corpus.excluded if p != other}
    assert dict(corpus.excluded)[f"{MODEL}/Remind/seed-2"].reason == \
        "voided: infrastructure failure"
    assert dict(corpus.excluded)[f"{MODEL}/Sys/seed-2"].reason.startswith("no events.jsonl")


def test_include_exploratory_admits_exactly_the_exploratory_and_development_seed_sessions(tmp_path):
    root = tmp_path / "sessions"
    _every_kind(root)
    wide = {p for p, _ in load_corpus(root, workers=1, include_exploratory=True).excluded}
    narrow = {p: why.kind for p, why in load_corpus(root, workers=1).excluded}
    assert {p for p, k in narrow.items() if not k.admitted_by_exploratory} == wide
    assert {k for k in narrow.values() if k.admitted_by_exploratory} == {
        ExclusionKind.EXPLORATORY, ExclusionKind.DEVELOPMENT_SEED}


def test_a_record_says_what_the_session_is(tmp_path):
    root = tmp_path / "sessions"
    folder = write_valid(root / "exploratory" / MODEL / "FSM/seed-3", seed=3)
    (folder / "attempt-1").mkdir()
    record, session = read_record(folder, root)
    assert (record.model, record.condition, record.seed, record.accounts) == (MODEL, "FSM", 3, len(EPISODES))
    assert record.task == "referral_abuse_detection_v2"          # the preregistered task by default
    assert (record.status, record.ended, record.voided, record.simulated) == ("completed", "completed", False, True)
    assert (record.exploratory, record.exploratory_why) == (True, "below an exploratory/ folder")
    assert (record.attempts, record.scorable, record.issues) == (1, True, ())
    assert record.size_bytes == sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert record == SessionRecord.of(session, root)
    assert record.exclusion() == Exclusion(ExclusionKind.EXPLORATORY, "below an exploratory/ folder")
    assert record.exclusion(include_exploratory=True) is None
    with pytest.raises(AttributeError):
        record.seed = 4          # frozen


@pytest.mark.parametrize("kind, reason, counted_as", [
    (ExclusionKind.VOIDED, "voided: quota exhausted", "voided"),
    (ExclusionKind.INVALID, "invalid records, never scored: quota exhausted", "with invalid records"),
    (ExclusionKind.DEVELOPMENT_SEED, "development seed 1 (pass --include-exploratory to add it)",
     "on the development seed"),
    (ExclusionKind.EXPLORATORY, "exploratory (pass --include-exploratory to add it)", "exploratory"),
])
def test_the_words_of_an_exclusion_are_rendered_from_its_kind(kind, reason, counted_as):
    why = Exclusion(kind, "quota exhausted")
    assert (why.reason, why.kind.counted_as) == (reason, counted_as)


def test_a_log_cut_inside_its_first_line_is_excluded_as_incomplete_not_scored(tmp_path):
    """A crash in the first write leaves a log whose only line is torn: the reader holds it valid
    with no event (the log contract), and the analysis excludes it, never crashing on the missing
    session_start (``study tables`` raised KeyError: 'order')."""
    root = tmp_path / "sessions"
    write_valid(root / MODEL / "Plain/seed-2", condition="Plain")
    write_valid(root / MODEL / "FSM/seed-2")
    torn = root / MODEL / "FSM/seed-2/events.jsonl"
    torn.write_bytes(torn.read_bytes()[:30])
    record, _ = read_record(torn.parent, root)
    assert not record.scorable and record.issues == ()
    corpus = load_corpus(root, workers=1)
    excluded = dict(corpus.excluded)
    assert excluded[f"{MODEL}/FSM/seed-2"] == Exclusion(
        ExclusionKind.INCOMPLETE, "the log holds no session_start (cut inside its first line)")
    assert corpus.sessions["path"].to_list() == [str(root / MODEL / "Plain/seed-2")]
    audit = audit_session(torn.parent, [], root)
    assert audit.exclusion == excluded[f"{MODEL}/FSM/seed-2"]
