"""Finding 5 of issue 10: committed rewrites of the records, caught by their git history.

Each case first shows that the rewrite is consistent as far as the records alone go (the chain
check and the tree check pass: that is how it got through before), then that ``verify`` and the
run check catch it from the history, naming the record. Everything runs in a real git checkout
in a temporary folder (the ``frozen`` fixture).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import PreregViolation, amend, check_before_run, verify
from study.prereg.chain import read_chain
from study.prereg.files import hash_tree, sha256_file
from study.prereg.records import seal

from .conftest import limits_text

MANIFEST = "preregistration/MANIFEST.sha256"
FREEZE = "preregistration/freeze.json"
AMENDMENTS = "preregistration/amendments.jsonl"
PLAN = "preregistration/plan.md"


def commit_all(git, root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)
    return git(root, "rev-parse", "HEAD").strip()


def consistent_without_history(root: Path) -> bool:
    """What the check saw before: an intact chain and every file as the manifest in effect says."""
    chain = read_chain(root)
    return not chain.problems and hash_tree(root) == chain.effective


def refused(root: Path) -> str:
    with pytest.raises(PreregViolation) as caught:
        check_before_run(root)
    return str(caught.value)


def forge_manifest_and_freeze(root: Path, *, frozen_at: str | None = None) -> None:
    """Change plan.md, rewrite its manifest line and reseal freeze.json to match."""
    plan = root / PLAN
    old = sha256_file(plan)
    plan.write_text("# Plan\n\nA different primary contrast.\n", encoding="utf-8")
    manifest = root / MANIFEST
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(old, sha256_file(plan)), encoding="utf-8")
    record = json.loads((root / FREEZE).read_text(encoding="utf-8"))
    record["manifest_sha256"] = sha256_file(manifest)
    if frozen_at:
        record["frozen_at"] = frozen_at
    (root / FREEZE).write_text(json.dumps(seal(record), indent=2, sort_keys=True) + "\n", encoding="utf-8")


def test_committed_manifest_line_and_resealed_freeze_record_are_caught(frozen, git, study_root, sessions, tmp_path):
    freeze_commit = git(frozen, "rev-parse", "HEAD").strip()
    forge_manifest_and_freeze(frozen)
    forged = commit_all(git, frozen, "tidy the plan")
    assert consistent_without_history(frozen)  # the bypass: chain and tree agree

    message = refused(frozen)
    rewritten = f"{FREEZE} was rewritten at commit {forged[:12]}, after the freeze commit {freeze_commit[:12]}"
    assert rewritten in message
    assert f"{MANIFEST} was rewritten at commit {forged[:12]}" in message
    assert f"{MANIFEST} does not describe commit" in message  # the commit freeze.json names has the old plan

    study_root(frozen)
    verified = CliRunner().invoke(main, ["prereg", "verify"])
    assert verified.exit_code == 1 and f"BROKEN   {rewritten}" in verified.output
    sessions.write(tmp_path / "audited/m/FSM/seed-2", started="2026-01-01T00:00:00Z", manifest="0" * 64)
    audited = CliRunner().invoke(main, ["audit", str(tmp_path / "audited")])
    assert audited.exit_code == 1 and f"BROKEN   {rewritten}" in audited.output


def test_a_forged_refreeze_naming_the_old_commit_is_caught(frozen, git):
    """Same forgery, passed off as a new freeze (new frozen_at): the commit the record names
    does not hold the files of its manifest."""
    forge_manifest_and_freeze(frozen, frozen_at="2099-01-01T00:00:00.000000Z")
    commit_all(git, frozen, "refreeze")
    assert consistent_without_history(frozen)
    message = refused(frozen)
    assert f"{MANIFEST} does not describe commit" in message and PLAN in message
    assert f"{FREEZE} was rewritten" not in message  # a new freeze, not a rewritten one


def test_a_refreeze_through_the_tool_is_visible_only_in_the_anchor_and_the_sessions(frozen, git, study_root, sessions):
    """What history cannot catch: a re-freeze made with the tool after committing the change.
    The anchor registered at the first freeze no longer matches, and a confirmatory session run
    under the first freeze shows a manifest the chain never produced."""
    from study.prereg import freeze

    study_root(frozen)
    runner = CliRunner()
    registered = runner.invoke(main, ["prereg", "show", "--anchor"])
    assert registered.exit_code == 0, registered.output
    old_hash = check_before_run(frozen)
    sessions.write(frozen / "sessions/m/FSM/seed-2", started=sessions.later("2026-01-01T00:00:00Z", 0), manifest=old_hash,
                   simulated=False)
    sessions.write(frozen / "sessions/exploratory/m/FSM/seed-3-first-2", started="2026-01-01T00:00:00Z",
                   manifest=old_hash, exploratory=True, simulated=False)
    sessions.write(frozen / "sessions/sim/FSM/seed-2", started="2026-01-01T00:00:00Z", manifest=old_hash)
    (frozen / PLAN).write_text("# Plan\n\nChanged, then frozen anew.\n", encoding="utf-8")
    commit_all(git, frozen, "change the plan")
    freeze(frozen, refreeze=True)
    commit_all(git, frozen, "freeze anew")

    report = verify(frozen)
    assert report.history.problems == []
    assert len(report.history.earlier_freezes) == 1
    assert report.sessions == [
        f"sessions/m/FSM/seed-2 ran under manifest {old_hash[:16]}…, which this chain never produced (neither "
        "the freeze nor an amendment): the freeze was replaced or its records rewritten after the session ran; "
        "see `study audit`"
    ]
    assert "this freeze replaced 1 earlier freeze(s)" in runner.invoke(main, ["prereg", "verify"]).output
    now = runner.invoke(main, ["prereg", "show", "--anchor"]).output
    assert now != registered.output
    fields = dict(item.split("=", 1) for item in registered.output.split(": ", 1)[1].split())
    assert set(fields) == {"freeze_sha256", "manifest_file_sha256", "freeze_commit", "frozen_at", "amendments",
                           "manifest_sha256"}
    assert fields["freeze_sha256"] not in now and fields["freeze_commit"] not in now


def test_editing_and_resealing_the_last_committed_amendment_is_caught(frozen, git):
    (frozen / PLAN).write_text("# Plan\n\nAmended.\n", encoding="utf-8")
    amend([PLAN], "clarify the plan", root=frozen)
    first = commit_all(git, frozen, "amend")
    path = frozen / AMENDMENTS
    entry = json.loads(path.read_text(encoding="utf-8"))
    entry["reason"] = "a nicer reason, written later"
    path.write_text(json.dumps(seal(entry), sort_keys=True) + "\n", encoding="utf-8")
    assert consistent_without_history(frozen)  # the last entry resealed: nothing follows it

    uncommitted = refused(frozen)
    assert f"{AMENDMENTS} no longer begins with its committed entries" in uncommitted
    rewritten = commit_all(git, frozen, "reword")
    message = refused(frozen)
    assert (f"{AMENDMENTS} at commit {rewritten[:12]} does not begin with its version at commit {first[:12]} "
            "(1 amendment(s)): committed entries were edited, removed or reordered") in message


def test_rechaining_every_committed_amendment_is_caught(frozen, git):
    """Edit the first entry, reseal it and re-chain the second to it: the chain is whole again,
    the history is not."""
    (frozen / PLAN).write_text("# Plan\n\nAmended.\n", encoding="utf-8")
    amend([PLAN], "clarify the plan", root=frozen)
    (frozen / "preregistration/limits.yaml").write_text(limits_text(40), encoding="utf-8")
    amend(["preregistration/limits.yaml"], "lower the cap", root=frozen)
    commit_all(git, frozen, "amend twice")
    path = frozen / AMENDMENTS
    first, second = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    first = seal({**first, "reason": "rewritten"})
    second = seal({**second, "prev_sha256": first["sha256"]})
    path.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in (first, second)), encoding="utf-8")
    rewritten = commit_all(git, frozen, "rewrite")
    assert consistent_without_history(frozen)
    assert f"{AMENDMENTS} at commit {rewritten[:12]} does not begin with its version" in refused(frozen)


@pytest.mark.parametrize("committed", [False, True], ids=["deleted", "deletion-committed"])
def test_deleting_the_committed_amendments_while_undoing_the_edit_names_the_log(frozen, git, committed):
    frozen_plan = (frozen / PLAN).read_bytes()
    (frozen / PLAN).write_text("# Plan\n\nAmended.\n", encoding="utf-8")
    amend([PLAN], "clarify the plan", root=frozen)
    amended = commit_all(git, frozen, "amend")
    (frozen / AMENDMENTS).unlink()
    (frozen / PLAN).write_bytes(frozen_plan)  # the amended edit undone
    deletion = commit_all(git, frozen, "undo") if committed else None
    assert consistent_without_history(frozen)

    message = refused(frozen)
    assert "changed: preregistration/plan.md" not in message  # names the log, not the undone file
    if committed:
        assert (f"{AMENDMENTS} was deleted at commit {deletion[:12]}, although commit {amended[:12]} holds "
                "1 amendment(s)") in message
    else:
        assert f"{AMENDMENTS} is missing, but git HEAD holds 1 amendment(s)" in message
        assert f"git checkout HEAD -- {AMENDMENTS}" in message


def test_deleting_the_committed_amendments_but_keeping_the_edit_names_both(frozen, git):
    (frozen / PLAN).write_text("# Plan\n\nAmended.\n", encoding="utf-8")
    amend([PLAN], "clarify the plan", root=frozen)
    commit_all(git, frozen, "amend")
    (frozen / AMENDMENTS).unlink()
    message = refused(frozen)
    assert message.index(f"{AMENDMENTS} is missing") >= 0 and "changed: preregistration/plan.md" in message


def test_a_clean_history_holds_and_the_anchor_is_one_line(frozen, git, study_root):
    (frozen / PLAN).write_text("# Plan\n\nAmended.\n", encoding="utf-8")
    entry = amend([PLAN], "clarify the plan", root=frozen)
    commit_all(git, frozen, "amend")
    report = verify(frozen)
    assert report.ok and report.history.problems == [] and report.history.freeze_commit
    study_root(frozen)
    shown = CliRunner().invoke(main, ["prereg", "show", "--anchor"])
    assert shown.exit_code == 0
    freeze_record = json.loads((frozen / FREEZE).read_text(encoding="utf-8"))
    assert shown.output == (
        f"sop-fidelity-study preregistration anchor: freeze_sha256={freeze_record['sha256']} "
        f"manifest_file_sha256={freeze_record['manifest_sha256']} freeze_commit={report.history.freeze_commit} "
        f"frozen_at={freeze_record['frozen_at']} amendments=1 manifest_sha256={entry['sha256']}\n"
    )


def test_anchor_of_an_uncommitted_freeze_is_refused(tree, study_root):
    from study.prereg import freeze

    freeze(tree)
    study_root(tree)
    shown = CliRunner().invoke(main, ["prereg", "show", "--anchor"])
    assert shown.exit_code == 2
    assert "not committed: commit the freeze" in shown.output
    assert "Traceback" not in shown.output


def test_outside_git_the_history_is_noted_as_not_checked(frozen, study_root):
    import shutil

    shutil.rmtree(frozen / ".git")
    report = verify(frozen)
    assert report.ok
    assert any("not a git checkout" in note for note in report.notes)


def test_deleting_every_record_of_a_committed_freeze_is_not_taken_for_no_freeze(frozen):
    from study.prereg import NotFrozen

    for rel in (MANIFEST, FREEZE):
        (frozen / rel).unlink()
    with pytest.raises(PreregViolation) as caught:
        check_before_run(frozen)
    assert not isinstance(caught.value, NotFrozen)
    assert "git checkout HEAD -- preregistration/" in str(caught.value)


def test_a_files_history_is_every_committed_version_a_deletion_none_and_blob_hashes_only_of_blobs_git_has(tmp_path):
    """``gitinfo.file_history`` (read in one ``git cat-file --batch``): each commit that touched the
    file, oldest first, with its bytes there (a name with a space, a version with no final newline,
    a binary one), None where the commit deleted it; ``since`` keeps the later ones only."""
    import hashlib
    import subprocess

    from study.prereg.gitinfo import blob_sha256, file_history, git_blob_id

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q")
    git("config", "user.email", "t@example.org")
    git("config", "user.name", "t")
    rel = "a folder/record one.json"
    (tmp_path / "a folder").mkdir()
    versions = [b"first\n", b"second, no newline", None, b"\x00\xffbinary\n"]
    commits = []
    for data in versions:
        if data is None:
            git("rm", "-q", rel)
        else:
            (tmp_path / "a folder").mkdir(exist_ok=True)
            (tmp_path / rel).write_bytes(data)
            git("add", rel)
        git("commit", "-q", "-m", "v")
        commits.append(git("rev-parse", "HEAD"))
    (tmp_path / "other").write_text("x")
    git("add", "other")
    git("commit", "-q", "-m", "not the record")
    assert file_history(tmp_path, rel) == list(zip(commits, versions))
    assert file_history(tmp_path, rel, since=commits[1]) == list(zip(commits[2:], versions[2:]))
    assert file_history(tmp_path / "a folder", "record one.json") == list(zip(commits, versions))
    assert file_history(tmp_path, "never there") == []
    known, unknown = git_blob_id(b"first\n"), git_blob_id(b"never committed")
    assert blob_sha256(tmp_path, [known, unknown]) == {known: hashlib.sha256(b"first\n").hexdigest()}
