"""The ``verdict`` rule (``study.session_io.verdicts``, issue 50): another family's outcome is
re-derived from its evidence by the family's ``evidence`` part and must be exactly that, for every
reader alike; what is re-derived is kept under the proofs of what it was made from.

The family's part is a stand-in here (``part`` is the seam, looked up by the family's name);
the real parts on real sessions: tests/families/test_tampered_verdicts.py."""

from __future__ import annotations

import os
import types
from pathlib import Path

import pytest

from study.session_io import verdicts
from study.session_io.folders import evidence_states, record_states
from study.session_io.reader import read_session
from study.session_io.record import ExclusionKind, read_record
from study.session_io.safe_files import UnsafeFile, check_tree
from study.session_io.writer import EventLog

STUDY = "tau2-telecom"


def write(folder: Path, outcomes: list[dict], *, family: str = "tau2", study: str = STUDY, ended: bool = True) -> Path:
    folder.mkdir(parents=True)
    with EventLog(folder / "events.jsonl") as log:
        log.emit_fields("session_start", dict(
            schema=3, condition="FSM", seed=1, model="sim:oracle", simulated=True, manifest_sha256="unchecked",
            code_version="test", cli_version="none", order=["t1"], limits={}, exploratory=True,
            runtime="claude-code", family=family, study=study))
        for fields in outcomes:
            log.emit_fields("outcome", {"family": family, **fields})
        if ended:
            log.emit("session_end", status="completed", cost_usd=0.0, turns=1, duration_s=1.0, decisions=1,
                     accounts_left=0)
    (folder / "evidence.txt").write_text("the evidence", encoding="utf-8")
    return folder


class Part:
    """A family's evidence part: ``rederive`` answers ``answer`` and counts its calls."""

    def __init__(self, answer, informational=()):
        self.answer, self.calls = answer, 0
        self.module = types.SimpleNamespace(rederive=self.rederive, INFORMATIONAL=informational)

    def rederive(self, session_dir, events, study):
        self.calls += 1
        assert events[0]["kind"] == "session_start" and study == STUDY
        return self.answer


@pytest.fixture
def evidence(monkeypatch, tmp_path):
    monkeypatch.setenv("STUDY_CACHE_DIR", str(tmp_path / "cache"))
    made = {}

    def use(answer, informational=()):
        made["part"] = Part(answer, informational)
        monkeypatch.setattr(verdicts, "part", lambda family: made["part"].module if family == "tau2" else None)
        return made["part"]

    return use


def issues(folder: Path) -> list[str]:
    return [str(i) for i in read_session(folder, strict=False).issues]


def test_an_outcome_its_evidence_gives_is_admitted_and_any_other_value_is_refused(tmp_path, evidence):
    evidence(({"reward": 1.0, "judged": True, "parts": {"DB": 1.0}}, []))
    good = write(tmp_path / "good", [{"reward": 1.0, "judged": True, "parts": {"DB": 1.0}}])
    assert issues(good) == []
    assert read_record(good)[0].exclusion(include_exploratory=True, study=STUDY) is None
    for name, outcome, said in [
        ("flipped", {"reward": 0.0, "judged": True, "parts": {"DB": 1.0}}, "reward 0.0 where the evidence gives 1.0"),
        ("two", {"reward": 2.0, "judged": True, "parts": {"DB": 1.0}}, "reward 2.0 where"),
        ("boolean", {"reward": True, "judged": True, "parts": {"DB": 1.0}}, "reward True where"),
        ("judged-as-one", {"reward": 1.0, "judged": 1, "parts": {"DB": 1.0}}, "judged 1 where"),
        ("null", {"reward": None, "judged": True, "parts": {"DB": 1.0}}, "reward None where"),
        ("part", {"reward": 1.0, "judged": True, "parts": {"DB": 0.0}}, "parts {'DB': 0.0}"),
        ("missing-field", {"reward": 1.0, "parts": {"DB": 1.0}}, "judged (absent) where"),
        ("extra-field", {"reward": 1.0, "judged": True, "parts": {"DB": 1.0}, "bonus": 1}, "fields its evidence does not give: bonus"),
    ]:
        found = issues(write(tmp_path / name, [outcome]))
        assert len(found) == 1 and said in found[0] and "[rule verdict]" in found[0], (name, found)
        record = read_record(tmp_path / name)[0]
        assert record.exclusion(include_exploratory=True, study=STUDY).kind == ExclusionKind.INVALID


def test_a_second_outcome_a_missing_one_and_an_outcome_where_none_is_due_are_refused(tmp_path, evidence):
    evidence(({"reward": 1.0}, []))
    assert "a second outcome event (the first is on line 2)" in issues(write(tmp_path / "two", [{"reward": 1.0}, {"reward": 1.0}]))[0]
    assert "the log has no outcome event" in issues(write(tmp_path / "none", []))[0]
    evidence((None, []))     # the evidence says nothing was scored (a voided conversation)
    assert "its evidence says the session has none to score" in issues(write(tmp_path / "due", [{"reward": 1.0}]))[0]
    assert issues(write(tmp_path / "quiet", [])) == []


def test_the_evidence_parts_problems_are_the_issues_and_informational_fields_pass(tmp_path, evidence):
    evidence((None, ["tau2_run.json is missing: the conversation its outcome scores is gone"]))
    found = issues(write(tmp_path / "gone", [{"reward": 1.0}]))
    assert found == [f"{tmp_path / 'gone' / 'events.jsonl'}:2: tau2_run.json is missing: the conversation its outcome "
                     "scores is gone [rule verdict]"]
    evidence(({"reward": 1.0}, []), informational=("error",))
    assert issues(write(tmp_path / "error", [{"reward": 1.0, "error": "the customer model failed"}])) == []


def test_a_family_without_evidence_or_a_forged_family_or_study_name_is_refused(tmp_path, evidence):
    part = evidence(({"reward": 1.0}, []))
    for name, family, study, said in [("sop", "sopbench", STUDY, "family 'sopbench' has no evidence"),
                                      ("path", "../../etc", STUDY, "family '../../etc' has no evidence"),
                                      ("unknown", "nosuchfamily", STUDY, "family 'nosuchfamily' has no evidence"),
                                      ("study", "tau2", "../x", "study '../x' is not a study's name")]:
        found = issues(write(tmp_path / name, [{"reward": 1.0}], family=family, study=study))
        assert any(said in f for f in found), (name, found)
    assert part.calls == 0


def test_the_main_study_and_a_running_session_are_left_alone(tmp_path, evidence, monkeypatch):
    part = evidence(({"reward": 1.0}, []))
    main = write(tmp_path / "main", [], family="sopbench", study="main")
    running = write(tmp_path / "running", [], ended=False)
    assert issues(main) == [] and issues(running) == []
    assert part.calls == 0


def test_the_seam_finds_a_familys_part_by_its_name_only():
    assert verdicts.part("tau2").__name__ == "study.families.tau2.evidence"
    assert verdicts.part("workspace").__name__ == "study.families.workspace.evidence"
    assert verdicts.part("sopbench") is None and verdicts.part("nosuch") is None
    assert verdicts.part("../tau2") is None and verdicts.part("tau2.evidence") is None


def test_what_was_re_derived_is_kept_until_anything_it_read_changes(tmp_path, evidence, monkeypatch):
    import study.session_io.verdicts as module

    monkeypatch.setattr(module, "all_settled", lambda states, at: True)   # as if every file were older than RACY_S
    part = evidence(({"reward": 1.0}, []))
    folder = write(tmp_path / "s", [{"reward": 1.0}])
    assert issues(folder) == [] and part.calls == 1
    assert issues(folder) == [] and part.calls == 1        # kept: the family's part is not asked again
    (folder / "evidence.txt").write_text("changed", encoding="utf-8")
    part.answer = ({"reward": 0.0}, [])
    assert "reward 1.0 where the evidence gives 0.0" in issues(folder)[0] and part.calls == 2
    (folder / "evidence.txt").unlink()
    issues(folder)
    assert part.calls == 3                                  # a file gone is a change too


def test_nothing_unsettled_is_kept(tmp_path, evidence):
    part = evidence(({"reward": 1.0}, []))
    folder = write(tmp_path / "s", [{"reward": 1.0}])       # written just now: within RACY_S
    issues(folder), issues(folder)
    assert part.calls == 2


def test_evidence_states_cover_every_file_but_the_runners_scratch_and_links_are_never_kept(tmp_path):
    folder = tmp_path / "s"
    for rel in ("events.jsonl", "meta.json", "tau2_run.json", "workspace/.git/HEAD", "workspace/ledger.tsv",
                "home/.claude/x", "work/y", "tools/batch.json", "fsm/frame.json", "attempt-1/events.jsonl"):
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("x", encoding="utf-8")
    states = evidence_states(folder)
    assert len(states) == 3 and all(isinstance(s, tuple) for s in states)
    assert len(record_states(folder)) == 4 + 3
    (folder / "workspace" / "ledger.tsv").write_text("changed", encoding="utf-8")
    assert evidence_states(folder) != states
    (folder / "workspace" / "zero").symlink_to("/dev/zero")
    assert None in evidence_states(folder)


def test_a_workspace_is_checked_before_anything_reads_in_it(tmp_path):
    session = tmp_path / "s"
    ws = session / "workspace"
    (ws / "periods").mkdir(parents=True)
    (ws / "ledger.tsv").write_text("x", encoding="utf-8")
    (ws / "inside").symlink_to(ws / "ledger.tsv")
    check_tree(ws, within=session)
    with pytest.raises(FileNotFoundError):
        check_tree(session / "nothing", within=session)
    (ws / "zero").symlink_to("/dev/zero")
    with pytest.raises(UnsafeFile, match="outside the session folder"):
        check_tree(ws, within=session)
    (ws / "zero").unlink()
    os.mkfifo(ws / "periods" / "report.json")
    with pytest.raises(UnsafeFile, match="FIFO"):
        check_tree(ws, within=session)
    (ws / "periods" / "report.json").unlink()
    with pytest.raises(UnsafeFile, match="over the cap"):
        check_tree(ws, within=session, max_bytes=0)
    with pytest.raises(UnsafeFile, match="entries"):
        check_tree(ws, within=session, max_entries=1)
