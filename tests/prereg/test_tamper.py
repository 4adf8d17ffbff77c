"""The tamper suite: every change to a frozen file or to the records refuses the run check,
naming the file, unless an amendment recorded before the change covers it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import PreregViolation, amend, check_before_run
from study.prereg.files import sha256_file

from .conftest import limits_text

AMENDMENTS = "preregistration/amendments.jsonl"
MANIFEST = "preregistration/MANIFEST.sha256"


def two_amendments(root: Path) -> None:
    """Two legitimate amendments: plan.md, then limits.yaml."""
    (root / "preregistration/plan.md").write_text("# Plan\n\nAmended once.\n", encoding="utf-8")
    amend(["preregistration/plan.md"], "clarify the plan", root=root)
    (root / "preregistration/limits.yaml").write_text(limits_text(40), encoding="utf-8")
    amend(["preregistration/limits.yaml"], "lower the resume cap", root=root)


def rewrite_amendments(root: Path, change) -> None:
    path = root / AMENDMENTS
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(change(lines)) + "\n", encoding="utf-8")


def edit_entry(index: int, **fields):
    def change(lines):
        entry = json.loads(lines[index])
        entry.update(fields)
        lines[index] = json.dumps(entry, sort_keys=True)
        return lines
    return change


def one_byte(root):
    path = root / "preregistration/plan.md"
    data = bytearray(path.read_bytes())
    data[2] ^= 0x01  # "P" -> "Q"
    path.write_bytes(bytes(data))
    return ["changed: preregistration/plan.md"]


def whitespace_only(root):
    path = root / "preregistration/limits.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("\n", " \n", 1), encoding="utf-8")
    return ["changed: preregistration/limits.yaml"]


def renamed(root):
    (root / "preregistration/orders/seed-3.txt").rename(root / "preregistration/orders/seed-03.txt")
    return ["missing: preregistration/orders/seed-3.txt", "added: preregistration/orders/seed-03.txt"]


def added(root):
    (root / "preregistration/texts/extra_hint.md").write_text("Be careful.\n", encoding="utf-8")
    return ["added: preregistration/texts/extra_hint.md"]


def deleted(root):
    (root / "preregistration/predictions.yaml").unlink()
    return ["missing: preregistration/predictions.yaml"]


def analysis_source_changed(root):
    (root / "analysis/stats/paired.py").write_text("B = 1000\n", encoding="utf-8")
    return ["changed: analysis/stats/paired.py"]


def enforcement_code_changed(root):
    (root / "study/fsm/guards.py").write_text("def decided(history, account):\n    return False\n", encoding="utf-8")
    return ["changed: study/fsm/guards.py"]


def tool_code_changed(root):
    (root / "sopbench_tools/toolbox.py").write_text("DATA_TOOLS = 4\n", encoding="utf-8")
    return ["changed: sopbench_tools/toolbox.py"]


def analysis_source_added(root):
    (root / "analysis/extra.py").write_text("PATCH = True\n", encoding="utf-8")
    return ["added: analysis/extra.py"]


def first_amendment_edited(root):
    two_amendments(root)
    rewrite_amendments(root, edit_entry(0, reason="a nicer reason, written later"))
    return [f"{AMENDMENTS} line 1 (amendment 1) was edited"]


def last_amendment_edited(root):
    two_amendments(root)
    rewrite_amendments(root, edit_entry(1, reason="a different reason"))
    return [f"{AMENDMENTS} line 2 (amendment 2) was edited"]


def last_amendment_backdated_and_resealed(root):
    """Backdating the last entry (and recomputing its own hash) shows in the dates of the chain."""
    from study.prereg.records import seal

    two_amendments(root)

    def change(lines):
        entry = json.loads(lines[1])
        entry["time"] = "2020-01-01T00:00:00.000000Z"
        lines[1] = json.dumps(seal(entry), sort_keys=True)
        return lines

    rewrite_amendments(root, change)
    return [f"{AMENDMENTS} line 2 (amendment 2) is dated 2020-01-01T00:00:00.000000Z, before the record it follows"]


def amendment_edited_and_resealed(root):
    """A forger who recomputes the entry's own hash still breaks the link to the next entry."""
    from study.prereg.records import seal

    two_amendments(root)

    def change(lines):
        entry = json.loads(lines[0])
        entry["reason"] = "rewritten"
        lines[0] = json.dumps(seal(entry), sort_keys=True)
        return lines

    rewrite_amendments(root, change)
    return [f"{AMENDMENTS} line 2 (amendment 2) does not follow the record before it"]


def entries_swapped(root):
    two_amendments(root)
    rewrite_amendments(root, lambda lines: [lines[1], lines[0]])
    return [f"{AMENDMENTS} line 1 holds amendment 2, expected amendment 1"]


def entry_removed(root):
    two_amendments(root)
    rewrite_amendments(root, lambda lines: lines[1:])
    return [f"{AMENDMENTS} line 1 holds amendment 2", "changed: preregistration/plan.md"]


def last_entry_removed(root):
    two_amendments(root)
    rewrite_amendments(root, lambda lines: lines[:1])
    return ["changed: preregistration/limits.yaml"]


def manifest_digit_edited(root):
    path = root / MANIFEST
    text = path.read_text(encoding="utf-8")
    path.write_text(("0" if text[0] != "0" else "1") + text[1:], encoding="utf-8")
    return [f"{MANIFEST} was edited after the freeze"]


def manifest_forged_to_cover_a_change(root):
    """Change a file and rewrite its manifest line to match: the manifest no longer matches
    the hash the freeze record sealed."""
    plan = root / "preregistration/plan.md"
    old = sha256_file(plan)
    plan.write_text("# Plan\n\nA different primary contrast.\n", encoding="utf-8")
    path = root / MANIFEST
    path.write_text(path.read_text(encoding="utf-8").replace(old, sha256_file(plan)), encoding="utf-8")
    return [f"{MANIFEST} was edited after the freeze"]


def manifest_deleted(root):
    (root / MANIFEST).unlink()
    return [f"{MANIFEST} is missing"]


def manifest_and_freeze_record_forged_together(root):
    """A forger who rewrites a manifest line and reseals freeze.json to match: the committed
    records (git HEAD) still differ."""
    from study.prereg.records import seal

    plan = root / "preregistration/plan.md"
    old = sha256_file(plan)
    plan.write_text("# Plan\n\nA different primary contrast.\n", encoding="utf-8")
    manifest = root / MANIFEST
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(old, sha256_file(plan)), encoding="utf-8")
    record_path = root / "preregistration/freeze.json"
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["manifest_sha256"] = sha256_file(manifest)
    record_path.write_text(json.dumps(seal(record)), encoding="utf-8")
    return [f"{MANIFEST} differs from its committed version", "preregistration/freeze.json differs from its committed version"]


def committed_amendment_dropped(root):
    """Committed entries are only ever appended to: dropping one shows against git HEAD."""
    two_amendments(root)
    for args in (["add", "preregistration"], ["commit", "-qm", "amend"]):
        subprocess.run(["git", "-C", str(root), "-c", "user.email=t@e.org", "-c", "user.name=t", *args], check=True)
    rewrite_amendments(root, lambda lines: lines[:1])
    return [f"{AMENDMENTS} no longer begins with its committed entries", "changed: preregistration/limits.yaml"]


def freeze_record_edited(root):
    path = root / "preregistration/freeze.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["git_dirty"] = not record["git_dirty"]
    path.write_text(json.dumps(record), encoding="utf-8")
    return ["preregistration/freeze.json was edited after the freeze"]


CASES = [
    one_byte, whitespace_only, renamed, added, deleted, analysis_source_changed, analysis_source_added,
    enforcement_code_changed, tool_code_changed,
    first_amendment_edited, last_amendment_edited, last_amendment_backdated_and_resealed,
    amendment_edited_and_resealed, entries_swapped,
    entry_removed, last_entry_removed, manifest_digit_edited, manifest_forged_to_cover_a_change,
    manifest_deleted, manifest_and_freeze_record_forged_together, committed_amendment_dropped,
    freeze_record_edited,
]


#: `study run` and `study run-all` as a user would call them on the simulator.
RUN_COMMANDS = [
    ["run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle", "--accounts", "2"],
    ["run-all", "--models", "sim:oracle", "--conditions", "FSM,Remind-loop", "--seeds", "2-3", "--accounts", "2"],
]


@pytest.mark.parametrize("tamper", CASES, ids=[case.__name__ for case in CASES])
def test_tampering_refuses_the_run_check_and_names_the_file(frozen, study_root, tamper):
    check_before_run(frozen)  # holds before the tampering
    expected = tamper(frozen)

    with pytest.raises(PreregViolation) as refused:
        check_before_run(frozen)
    message = str(refused.value)
    for text in expected:
        assert text in message
    assert "study prereg verify" in message
    assert "study prereg amend" in message

    study_root(frozen)
    runner = CliRunner()
    result = runner.invoke(main, ["prereg", "verify"])
    assert result.exit_code == 1
    for text in expected:
        status, _, path = text.partition(": ")
        if status in ("changed", "missing", "added"):
            assert f"{status:8} {path}\n" in result.output  # the verify listing's line
        else:
            assert text in result.output

    out = frozen.parent / "sessions"
    for command in RUN_COMMANDS:
        refused_run = runner.invoke(main, [*command, "--out", str(out)])
        assert refused_run.exit_code == 1, refused_run.output
        assert "the preregistration check failed, nothing was started" in refused_run.output
        for text in expected:
            assert text in refused_run.output
        assert not out.exists()  # nothing started


def test_clean_tree_passes_and_returns_the_freeze_record_hash(frozen):
    record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    assert check_before_run(frozen) == record["sha256"]


def test_amendment_recorded_before_the_change_lets_runs_proceed(frozen):
    plan = frozen / "preregistration/plan.md"
    plan.write_text("# Plan\n\nAmended.\n", encoding="utf-8")
    with pytest.raises(PreregViolation):
        check_before_run(frozen)

    entry = amend([plan], "state the voiding rule", root=frozen)
    assert check_before_run(frozen) == entry["sha256"]

    plan.write_text("# Plan\n\nChanged again, without an amendment.\n", encoding="utf-8")
    with pytest.raises(PreregViolation, match="changed: preregistration/plan.md"):
        check_before_run(frozen)


def test_violation_lists_files_for_programs(frozen):
    added(frozen)
    deleted(frozen)
    one_byte(frozen)
    with pytest.raises(PreregViolation) as refused:
        check_before_run(frozen)
    assert refused.value.changed == ["preregistration/plan.md"]
    assert refused.value.missing == ["preregistration/predictions.yaml"]
    assert refused.value.added == ["preregistration/texts/extra_hint.md"]
    assert refused.value.problems == []


def test_files_outside_the_frozen_set_may_change(frozen):
    (frozen / "study/sim/policies.py").write_text("changed simulator\n", encoding="utf-8")
    (frozen / "analysis/templates/table.tex").write_text("changed template\n", encoding="utf-8")
    (frozen / "analysis/__pycache__").mkdir()
    (frozen / "analysis/__pycache__/scoring.cpython-311.pyc").write_bytes(b"\x00bytecode")
    check_before_run(frozen)


def test_sha256sum_accepts_the_manifest_of_a_clean_tree_and_rejects_a_changed_one(frozen):
    check = ["sha256sum", "--strict", "-c", MANIFEST]
    clean = subprocess.run(check, cwd=frozen, capture_output=True, text=True)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "preregistration/plan.md: OK" in clean.stdout
    one_byte(frozen)
    tampered = subprocess.run(check, cwd=frozen, capture_output=True, text=True)
    assert tampered.returncode == 1
    assert "preregistration/plan.md: FAILED" in tampered.stdout


def test_verify_lists_every_file_or_only_the_problems(frozen, study_root):
    study_root(frozen)
    runner = CliRunner()
    clean = runner.invoke(main, ["prereg", "verify"])
    assert clean.exit_code == 0
    assert "ok       preregistration/README.md\n" in clean.output
    assert "18 ok, 0 changed, 0 missing, 0 added." in clean.output
    assert f"Effective manifest sha256: {check_before_run(frozen)}" in clean.output

    one_byte(frozen)
    short = runner.invoke(main, ["prereg", "verify", "--problems-only"])
    assert short.exit_code == 1
    assert "changed  preregistration/plan.md\n" in short.output
    assert "preregistration/README.md" not in short.output
