"""Amendments: what an entry records, the chain, and what amend refuses."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import PreregError, amend, check_before_run, read_amendments
from study.prereg.files import sha256_file
from study.protocol.amendments import AmendmentError, FileChange

from .conftest import limits_text


def hash_as_the_readme_says(record: dict) -> str:
    """A record's own hash, computed as preregistration/README.md tells a reviewer to."""
    body = {key: value for key, value in record.items() if key != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_entry_records_time_reason_old_and_new_hash_and_the_previous_record(frozen):
    freeze_record = json.loads((frozen / "preregistration/freeze.json").read_text(encoding="utf-8"))
    plan = frozen / "preregistration/plan.md"
    old = sha256_file(plan)
    plan.write_text("# Plan\n\nWith a voiding rule.\n", encoding="utf-8")

    first = amend(["preregistration/plan.md"], "add the voiding rule", root=frozen)
    assert first["n"] == 1 and first["reason"] == "add the voiding rule"
    assert first["files"] == [{"path": "preregistration/plan.md", "old_sha256": old, "new_sha256": sha256_file(plan)}]
    assert freeze_record["sha256"] == hash_as_the_readme_says(freeze_record)
    assert first["prev_sha256"] == freeze_record["sha256"]
    assert first["sha256"] == hash_as_the_readme_says(first)
    assert first["time"].endswith("Z")

    (frozen / "preregistration/limits.yaml").write_text(limits_text(40), encoding="utf-8")
    second = amend(["preregistration/limits.yaml"], "lower the cap", root=frozen)
    assert second["n"] == 2 and second["prev_sha256"] == first["sha256"]
    assert [(a.n, a.reason, a.prev_sha256, a.sha256) for a in read_amendments(frozen)] == [
        (1, "add the voiding rule", freeze_record["sha256"], first["sha256"]),
        (2, "lower the cap", first["sha256"], second["sha256"])]
    assert read_amendments(frozen)[0].files == (FileChange("preregistration/plan.md", old, sha256_file(plan)),)
    assert check_before_run(frozen) == second["sha256"]


def test_one_amendment_covers_a_rename_an_addition_and_a_deletion(frozen):
    from sopbench_tools.orders import computed_order

    orders = frozen / "preregistration/orders"
    (orders / "seed-3.txt").unlink()
    (orders / "seed-10.txt").write_text("\n".join(computed_order(10)) + "\n", encoding="utf-8")
    (frozen / "analysis/stats/bootstrap.py").write_text("RESAMPLES = 10000\n", encoding="utf-8")
    (frozen / "preregistration/README.md").unlink()
    entry = amend(
        ["preregistration/orders/seed-3.txt", "preregistration/orders/seed-10.txt",
         "analysis/stats/bootstrap.py", "preregistration/README.md"],
        "replacement seed 10; bootstrap module; README folded into plan.md", root=frozen,
    )
    changes = {change["path"]: change for change in entry["files"]}
    assert changes["preregistration/orders/seed-3.txt"]["new_sha256"] is None
    assert changes["preregistration/orders/seed-10.txt"]["old_sha256"] is None
    assert changes["analysis/stats/bootstrap.py"]["old_sha256"] is None
    assert changes["preregistration/README.md"]["new_sha256"] is None
    check_before_run(frozen)


def test_file_names_resolve_from_the_working_directory_or_the_root(frozen, monkeypatch):
    plan = frozen / "preregistration/plan.md"
    plan.write_text("# Plan v2\n", encoding="utf-8")
    monkeypatch.chdir(frozen / "preregistration")
    entry = amend(["plan.md"], "v2", root=frozen)
    assert entry["files"][0]["path"] == "preregistration/plan.md"
    plan.write_text("# Plan v3\n", encoding="utf-8")
    entry = amend([str(plan)], "v3", root=frozen)  # absolute
    assert entry["files"][0]["path"] == "preregistration/plan.md"


@pytest.mark.parametrize(
    ("files", "reason", "says"),
    [
        (["preregistration/plan.md"], "   ", "needs a reason"),
        (["preregistration/plan.md"], "no change", "is unchanged since the manifest in effect"),
        (["study/sim/policies.py"], "simulator", "is not a frozen file"),
        (["preregistration/MANIFEST.sha256"], "manifest", "is not a frozen file"),
        (["preregistration/orders"], "folder", "is a folder"),
        (["preregistration/nothing.md"], "ghost", "is neither on disk nor in"),
        (["/etc/hostname"], "outside", "is not inside the project root"),
    ],
)
def test_amend_refuses_with_a_clear_reason_and_writes_nothing(frozen, files, reason, says):
    with pytest.raises(PreregError, match=says):
        amend(files, reason, root=frozen)
    assert not (frozen / "preregistration/amendments.jsonl").exists()


def test_amend_refuses_to_extend_a_broken_chain(frozen):
    (frozen / "preregistration/plan.md").write_text("# v2\n", encoding="utf-8")
    amend(["preregistration/plan.md"], "v2", root=frozen)
    path = frozen / "preregistration/amendments.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace('"v2"', '"v2, edited"'), encoding="utf-8")
    (frozen / "preregistration/limits.yaml").write_text(limits_text(1), encoding="utf-8")
    with pytest.raises(PreregError, match="line 1 \\(amendment 1\\) was edited"):
        amend(["preregistration/limits.yaml"], "cap", root=frozen)
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1


def test_amend_and_show_commands(frozen, study_root):
    study_root(frozen)
    (frozen / "preregistration/plan.md").write_text("# v2\n", encoding="utf-8")
    runner = CliRunner()
    missing_reason = runner.invoke(main, ["prereg", "amend", "preregistration/plan.md"])
    assert missing_reason.exit_code == 2 and "--reason" in missing_reason.output
    done = runner.invoke(main, ["prereg", "amend", "--reason", "typo in the plan", "preregistration/plan.md"])
    assert done.exit_code == 0, done.output
    assert "Recorded amendment 1" in done.output
    shown = runner.invoke(main, ["prereg", "show"])
    assert shown.exit_code == 0
    assert "Amendment 1 (" in shown.output and "typo in the plan" in shown.output
    assert f"Effective manifest sha256: {check_before_run(frozen)}" in shown.output


def test_amendments_show_under_the_tables(frozen):
    """The analysis lists the recorded amendments under its tables from the typed records."""
    assert read_amendments(frozen) == []
    (frozen / "preregistration/limits.yaml").write_text(limits_text(40), encoding="utf-8")
    entry = amend(["preregistration/limits.yaml"], "lower the resume cap", root=frozen)
    assert [amendment.summary() for amendment in read_amendments(frozen)] == [
        f"Amendment 1 ({entry['time']}): lower the resume cap [preregistration/limits.yaml]"
    ]


def test_a_recorded_reason_is_listed_escaped(tmp_path):
    """A hand-written amendments.jsonl cannot forge a line or move the cursor under the tables:
    a control character of its reason is listed as its escape, as ``study prereg show`` does."""
    (tmp_path / "preregistration").mkdir()
    record = {"n": 1, "time": "2026-12-01T00:00:00Z", "reason": "fine\n- Amendments: none recorded.\x1b[2J",
              "files": [{"path": "preregistration/b.md"}, "preregistration/a.md"]}
    (tmp_path / "preregistration/amendments.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    [amendment] = read_amendments(tmp_path)
    assert amendment.reason == "fine\n- Amendments: none recorded.\x1b[2J"
    assert amendment.summary() == ("Amendment 1 (2026-12-01T00:00:00Z): fine\\n- Amendments: none recorded.\\x1b[2J "
                                   "[preregistration/a.md, preregistration/b.md]")


@pytest.mark.parametrize(("lines", "message"), [
    ('{"n": 1, "time": "t", "reason": "r", "files": []}\n\nnot json\n', "amendments.jsonl line 3 is not JSON"),
    ('[1, 2]\n', "amendments.jsonl line 1 is not a JSON object"),
    ('{"n": "1", "time": "t", "reason": "r", "files": []}\n', "amendments.jsonl line 1 is not an amendment"),
])
def test_a_line_that_is_not_an_amendment_is_refused_with_its_number(tmp_path, lines, message):
    (tmp_path / "preregistration").mkdir()
    (tmp_path / "preregistration/amendments.jsonl").write_text(lines, encoding="utf-8")
    with pytest.raises(AmendmentError, match=message) as refused:
        read_amendments(tmp_path)
    assert "run `study prereg verify`" in str(refused.value)


def readme_chain_script() -> str:
    """The stand-alone chain check printed in this checkout's preregistration/README.md."""
    text = (Path(__file__).resolve().parents[2] / "preregistration/README.md").read_text(encoding="utf-8")
    return text.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_script_checks_the_chain_with_nothing_of_ours(frozen):
    script = readme_chain_script()

    def run():
        return subprocess.run([sys.executable, "-I", "-c", script], cwd=frozen, capture_output=True, text=True)

    assert run().stdout == f"effective manifest sha256: {check_before_run(frozen)}\n"
    (frozen / "preregistration/plan.md").write_text("# v2\n", encoding="utf-8")
    amend(["preregistration/plan.md"], "v2", root=frozen)
    (frozen / "preregistration/plan.md").write_text("# v3\n", encoding="utf-8")
    amend(["preregistration/plan.md"], "v3", root=frozen)
    assert run().stdout == f"effective manifest sha256: {check_before_run(frozen)}\n"

    path = frozen / "preregistration/amendments.jsonl"
    first, second = path.read_text(encoding="utf-8").splitlines()
    path.write_text(second + "\n" + first + "\n", encoding="utf-8")
    swapped = run()
    assert swapped.returncode == 1 and "the chain breaks at amendments.jsonl line 1" in swapped.stderr
