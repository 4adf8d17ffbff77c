"""The review loop in process: propose (study.fsm.proposals), then `study fsm proposals|accept|reject|
history|migrate` through the command line, versions (study.fsm.versions) and migration (study.fsm.migrate)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fsm_helpers import GENERIC, MAIN
from study.cli import main
from study.fsm import FsmRuntime, Workflow
from study.fsm.ledger import Ledger
from study.fsm.migrate import refusal
from study.fsm.proposals import ProposalDesk, call_propose
from study.fsm.versions import VersionStore, resolver

PREREG_SHA = "56d85d82"
GOOD = [{"op": "alter_state", "state": "S_submit", "set": {"exit_conditions": ["The note is submitted."]}}]
BAD = [{"op": "add_state", "state": "S_escalate", "definition": {"allow": ["call_human"]}},
       {"op": "add_transition", "from": "S_submit", "to": "S_escalate"}]
EVIDENCE = ["self_check S_done: no exit conditions were listed"]


def _cli(*args: str):
    return CliRunner().invoke(main, ["fsm", *args], catch_exceptions=False)


@pytest.fixture
def project(tmp_path):
    wf_file = tmp_path / "workflows" / "review.yaml"
    wf_file.parent.mkdir()
    wf_file.write_text(GENERIC)
    frames = tmp_path / ".fsm"
    rt = FsmRuntime(frames, {"Review": Workflow.load(wf_file)}, versions=resolver([wf_file]))
    rt.enter("Review")
    rt.observe("list_docs", {}, ok=True)
    return wf_file, frames, ProposalDesk(rt, {"Review": wf_file}, frames, session="s-1")


def _runtime(frames: Path, wf_file: Path, agent: str = "main") -> FsmRuntime:
    return FsmRuntime(frames, {"Review": Workflow.load(wf_file)}, agent=agent, versions=resolver([wf_file]))


def test_a_proposal_changes_nothing_and_says_whether_it_passes_with_lines(project):
    wf_file, frames, desk = project
    events = []
    is_error, text = call_propose(desk, {"reason": "escalate hard cases", "evidence": EVIDENCE, "edits": BAD},
                                  lambda kind, fields: events.append((kind, fields)))
    assert is_error and text.startswith("Proposal p1 recorded, but the proposed workflow fails the checks")
    assert "(- call_human): state 'S_escalate' allow rule names unknown tool 'call_human'" in text
    assert "(S_escalate:): state 'S_escalate' has no path to the exit state" in text
    is_error, text = call_propose(desk, {"reason": "say when to submit", "evidence": EVIDENCE, "edits": GOOD})
    assert not is_error and json.loads(text)["id"] == "p2" and json.loads(text)["valid"] is True
    assert wf_file.read_text() == GENERIC                                   # the running workflow is untouched
    record = Ledger(frames).get("p2").record
    assert (record["session"], record["agent"], record["state"], record["workflow"]) == ("s-1", "main", "S_read", "Review")
    assert record["context"] == [{"kind": "call", "tool": "list_docs", "args": {}, "ok": True}]
    assert events == [("proposal", {"id": "p1", "workflow": "Review", "state": "S_read", "valid": False,
                                    "problems": 2, "reason": "escalate hard cases"})]


@pytest.mark.parametrize("args, message", [
    ({"evidence": EVIDENCE, "edits": GOOD}, "argument 'reason' is required"),
    ({"reason": "r", "evidence": [], "edits": GOOD}, "argument 'evidence' is required"),
    ({"reason": "r", "evidence": EVIDENCE}, "give exactly one of 'text'"),
    ({"reason": "r", "evidence": EVIDENCE, "edits": GOOD, "workflow": "Other"}, "unknown workflow 'Other'"),
    ({"reason": "r", "evidence": EVIDENCE, "text": GENERIC + "#" * 200_000}, "longer than 200000 characters"),
])
def test_input_that_is_no_proposal_is_refused_and_not_recorded(project, args, message):
    _, frames, desk = project
    is_error, text = call_propose(desk, args)
    assert is_error and message in text
    assert Ledger(frames).records() == []


def test_accept_writes_the_next_version_the_chain_verifies_and_a_tampered_version_breaks_it(project):
    wf_file, frames, desk = project
    call_propose(desk, {"reason": "escalate", "evidence": EVIDENCE, "edits": BAD})
    call_propose(desk, {"reason": "say when to submit", "evidence": EVIDENCE, "edits": GOOD})
    listed = _cli("proposals", "--frames", str(frames))
    assert listed.exit_code == 0 and "p1  open" in listed.output and "fails the checks (2 problems)" in listed.output
    shown = _cli("proposals", "show", "p2", "--frames", str(frames))
    assert "+    - The note is submitted." in shown.output and "evidence: self_check S_done" in shown.output

    refused = _cli("accept", "p1", "--frames", str(frames))
    assert refused.exit_code == 2 and "proposal p1 fails the checks" in refused.output and "call_human" in refused.output
    v1_sha = hashlib.sha256(GENERIC.encode()).hexdigest()
    accepted = _cli("accept", "p2", "--frames", str(frames))
    assert accepted.exit_code == 0, accepted.output
    assert "is now version 2" in accepted.output and f"parent {v1_sha[:12]}" in accepted.output
    chain = VersionStore(wf_file).versions()
    assert [(v.version, v.parent, v.proposal) for v in chain] == [(1, None, None), (2, v1_sha, "p2")]
    assert Workflow.load(wf_file).states["S_submit"].exit_conditions == ("The note is submitted.",)
    assert (wf_file.parent / ".versions" / "review.yaml" / "v0001.yaml").read_text() == GENERIC
    assert _cli("accept", "p2", "--frames", str(frames)).exit_code == 2           # decided once
    assert "p2  accepted" in _cli("proposals", "--frames", str(frames), "--workflow", "Review").output

    good = _cli("history", str(wf_file))
    assert good.exit_code == 0 and "chain verified: 2 versions" in good.output
    v1 = wf_file.parent / ".versions" / "review.yaml" / "v0001.yaml"
    v1.write_text(GENERIC.replace("Read the document", "Skim the document"))
    broken = _cli("history", str(wf_file))
    assert broken.exit_code == 1 and "version 1 was changed after it was accepted" in broken.output
    v1.write_text(GENERIC)
    wf_file.write_text(wf_file.read_text() + "\n# edited\n")
    broken = _cli("history", str(wf_file))
    assert broken.exit_code == 1 and "edited outside `study fsm accept`" in broken.output


def test_an_old_frame_keeps_its_version_a_new_one_runs_under_the_new_and_migrate_moves_it(project):
    wf_file, frames, desk = project
    call_propose(desk, {"reason": "say when to submit", "evidence": EVIDENCE, "edits": GOOD})
    assert _cli("accept", "p1", "--frames", str(frames)).exit_code == 0
    v1, v2 = (v.sha256 for v in VersionStore(wf_file).versions())
    old = _runtime(frames, wf_file)                       # the frame entered before the accept
    assert old.frames()[0]["workflow_sha256"] == v1 and old.status()["exit_conditions"] == ["You wrote a note."]
    new = _runtime(frames, wf_file, agent="second")
    new.enter("Review")
    assert new.frames()[0]["workflow_sha256"] == v2
    status = _cli("status", "--frames", str(frames), "--workflow", str(wf_file))
    assert json.loads(status.output)["workflow_version"] == 1
    moved = _cli("migrate", "--frames", str(frames), "--workflow", str(wf_file))
    assert moved.exit_code == 0 and "frame 1 (state S_read): version 1 -> version 2" in moved.output
    assert _runtime(frames, wf_file).frames()[0]["workflow_sha256"] == v2
    assert Ledger(frames).records()[-1]["kind"] == "migrated"
    assert "nothing to migrate" in _cli("migrate", "--frames", str(frames), "--workflow", str(wf_file)).output


def test_migration_is_refused_unless_the_current_state_exists_in_the_new_version(project):
    wf_file, frames, desk = project
    rt = _runtime(frames, wf_file)
    token = rt.self_check("S_wait")["token"]
    assert rt.transition("S_wait", token).ok
    text = GENERIC.replace("S_wait", "S_pause")
    call_propose(desk, {"reason": "a clearer name", "evidence": EVIDENCE, "text": text})
    assert _cli("accept", "p1", "--frames", str(frames)).exit_code == 0
    before = (frames / "main.json").read_bytes()
    refused = _cli("migrate", "--frames", str(frames), "--workflow", str(wf_file))
    assert refused.exit_code == 2
    assert "migration refused, nothing changed: frame 1: state 'S_wait' does not exist in the new version" in refused.output
    assert (frames / "main.json").read_bytes() == before
    assert refusal("S_read", Workflow.load(wf_file)) is None
    assert _runtime(frames, wf_file).state == "S_wait"   # still runs under its own version


def test_a_complete_text_made_against_an_older_version_is_not_accepted(project):
    wf_file, frames, desk = project
    call_propose(desk, {"reason": "a", "evidence": EVIDENCE, "text": GENERIC + "# one\n"})
    call_propose(desk, {"reason": "b", "evidence": EVIDENCE, "edits": GOOD})
    call_propose(desk, {"reason": "c", "evidence": EVIDENCE, "text": GENERIC + "# two\n"})
    assert _cli("accept", "p2", "--frames", str(frames)).exit_code == 0
    stale = _cli("accept", "p3", "--frames", str(frames))
    assert stale.exit_code == 2 and "the workflow has changed since" in stale.output
    rejected = _cli("reject", "p1", "--frames", str(frames), "--why", "comments only")
    assert rejected.exit_code == 0 and Ledger(frames).get("p1").status == "rejected"


def test_accepting_against_a_preregistered_workflow_is_refused_and_its_hash_is_unchanged(tmp_path):
    frames = tmp_path / "fsm"
    rt = FsmRuntime(frames, {"ReferralAbusePerAccount": Workflow.load(MAIN)})
    rt.enter("ReferralAbusePerAccount")
    desk = ProposalDesk(rt, {"ReferralAbusePerAccount": MAIN}, frames)
    edits = [{"op": "alter_state", "state": "S_investigate", "set": {"exit_conditions": ["All five data sets retrieved."]}}]
    is_error, _ = call_propose(desk, {"reason": "list the exit conditions", "evidence": EVIDENCE, "edits": edits})
    assert not is_error
    refused = _cli("accept", "p1", "--frames", str(frames))
    assert refused.exit_code == 2 and "is a preregistered workflow" in refused.output and "study prereg amend" in refused.output
    assert hashlib.sha256(MAIN.read_bytes()).hexdigest().startswith(PREREG_SHA)
    assert not (MAIN.parent / ".versions").exists()


def test_a_damaged_ledger_is_refused_with_its_line(project):
    _, frames, desk = project
    call_propose(desk, {"reason": "b", "evidence": EVIDENCE, "edits": GOOD})
    with open(frames / "proposals.jsonl", "a") as fh:
        fh.write('{"kind": "accepted", "id": "p1"}\n')
    listed = _cli("proposals", "--frames", str(frames))
    assert listed.exit_code == 2 and "proposals.jsonl:2: accepted record lacks 'at'" in listed.output
    lines = (frames / "proposals.jsonl").read_text().splitlines()
    forged = {**json.loads(lines[0]), "problems": ["not a problem record"]}
    (frames / "proposals.jsonl").write_text(json.dumps(forged) + "\n")
    shown = _cli("proposals", "show", "p1", "--frames", str(frames))
    assert shown.exit_code == 2 and "proposals.jsonl:1: proposal record's 'problems' must be a list" in shown.output


def test_review_commands_refuse_bad_input_and_create_nothing(tmp_path):
    missing = tmp_path / "nowhere"
    for args in (["accept", "p1"], ["reject", "p1", "--why", "x"], ["proposals", "show", "p1"]):
        result = _cli(*args, "--frames", str(missing))
        assert result.exit_code == 2 and "no proposal 'p1'" in result.output
    (tmp_path / "review.yaml").write_text(GENERIC)
    result = _cli("migrate", "--frames", str(missing), "--workflow", str(tmp_path / "review.yaml"))
    assert result.exit_code == 2 and "no frames of agent 'main'" in result.output
    assert not missing.exists()
