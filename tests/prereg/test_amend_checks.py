"""An amendment freezes only files that load as the study reads them, with a one-line reason.

Each refusal is exit 2 with one line, and records nothing: the amendment chain is untouched.
"""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from study.cli import main
from study.prereg import PreregError, amend, check_before_run, read_amendments
from study.prereg.records import append_amendment, seal

from .conftest import limits_text

AMENDMENTS = "preregistration/amendments.jsonl"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def assert_refused(result, says: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert says in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_the_shell_redirect_recipe_no_longer_freezes_an_empty_order(frozen, study_root):
    """`study orders --seed 10 > preregistration/orders/seed-10.txt`: the shell creates the empty
    file first; the command refuses with one line (no traceback) and amend refuses the empty file."""
    study_root(frozen)
    target = frozen / "preregistration/orders/seed-10.txt"
    target.write_text("", encoding="utf-8")   # what the redirect leaves before the command runs
    printed = invoke("orders", "--seed", "10")
    assert printed.exit_code == 2 and "study prereg add-seed 10" in printed.output
    assert "Traceback" not in printed.output
    refused = invoke("prereg", "amend", "--reason", "replacement seed 10", "preregistration/orders/seed-10.txt")
    assert_refused(refused, "preregistration/orders/seed-10.txt does not load as the study reads it")
    assert not (frozen / AMENDMENTS).exists()


@pytest.mark.parametrize(("rel", "content", "says"), [
    ("preregistration/limits.yaml", "resumes: [\n", "not valid YAML"),
    ("preregistration/limits.yaml", limits_text().replace("resumes: 50", "resumes: -1"), "must be a finite number > 0"),
    ("preregistration/conditions.yaml", "conditions: {FSM: [unclosed\n", "not valid YAML"),
    ("preregistration/models.yaml", "models: {}\n", "malformed models table"),
    ("preregistration/predictions.yaml", "a: b: c\n", "not valid YAML"),
    ("preregistration/workflows/referral_abuse_per_account.yaml", "initial: [\n", "malformed YAML"),
    ("preregistration/texts/first_message.md", "Process the accounts.\n", "lacks the placeholder {n_accounts}"),
    ("preregistration/texts/reminder.md", "  \n", "the text is empty"),
    ("preregistration/plan.md", b"\xff\xfe plan", "not UTF-8 text"),
    ("preregistration/runtime.json", "[1, 2]", "not a JSON object"),
    ("preregistration/orders/seed-2.txt", "A1\nA2\n", "is not an order of the"),
    ("preregistration/orders/seed-02.txt", "A1\n", "an order file is named seed-<s>.txt"),
    ("analysis/scoring.py", "def fc(:\n", "a syntax error at line 1"),
    ("sopbench_tools/tasks/manifests/broken.yaml", "task: [\n", "malformed YAML"),
])
def test_amend_refuses_a_file_its_loader_rejects(frozen, rel, content, says):
    path = frozen / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(PreregError, match="does not load as the study reads it") as refused:
        amend([rel], "an edit", root=frozen)
    assert says in str(refused.value)
    assert not (frozen / AMENDMENTS).exists()


def test_amend_refuses_to_delete_a_file_the_study_needs_and_a_symlink(frozen):
    (frozen / "preregistration/predictions.yaml").unlink()
    with pytest.raises(PreregError, match="the study cannot run without it"):
        amend(["preregistration/predictions.yaml"], "drop the predictions", root=frozen)
    link = frozen / "preregistration/texts/extra.md"
    os.symlink("/etc/hostname", link)
    with pytest.raises(PreregError, match="not a regular file"):
        amend(["preregistration/texts/extra.md"], "a linked text", root=frozen)
    assert not (frozen / AMENDMENTS).exists()


def test_a_valid_edit_of_the_limits_is_still_recorded(frozen):
    (frozen / "preregistration/limits.yaml").write_text(limits_text(40), encoding="utf-8")
    entry = amend(["preregistration/limits.yaml"], "lower the resume cap", root=frozen)
    assert check_before_run(frozen) == entry["sha256"]


def test_add_seed_writes_the_formula_order_and_records_it_in_one_step(frozen, study_root):
    from sopbench_tools.orders import computed_order

    study_root(frozen)
    done = invoke("prereg", "add-seed", "10", "--reason", "replace seed 4 (plan, section 7)")
    assert done.exit_code == 0, done.output
    order = (frozen / "preregistration/orders/seed-10.txt").read_text(encoding="utf-8")
    assert order == "\n".join(computed_order(10)) + "\n"
    [entry] = read_amendments(frozen)
    assert entry.files[0].path == "preregistration/orders/seed-10.txt"
    assert check_before_run(frozen) == entry.sha256

    again = invoke("prereg", "add-seed", "10", "--reason", "twice")
    assert_refused(again, "seed-10.txt already exists")
    bad_reason = invoke("prereg", "add-seed", "11", "--reason", "two\nlines")
    assert bad_reason.exit_code == 2
    assert not (frozen / "preregistration/orders/seed-11.txt").exists()
    assert len(read_amendments(frozen)) == 1


def test_the_seed_error_recommends_add_seed():
    from study.runner.preflight import PreflightError, check_seed

    with pytest.raises(PreflightError) as refused:
        check_seed(10, exploratory=False)
    assert 'study prereg add-seed 10 --reason "..."' in str(refused.value)
    assert "orders --seed" not in str(refused.value)


@pytest.mark.parametrize(("reason", "says"), [
    ("fix\nAmendment 2 (2026-01-01): forged", "U+000A"),
    ("raise the cap \x1b[2K\x1b[1A", "U+001B"),
    ("tab\there", "U+0009"),
    ("bidi \u202e override", "U+202E"),
    ("x" * 1001, "at most 1000 characters"),
])
def test_amend_refuses_a_reason_that_is_not_one_printable_line(frozen, study_root, reason, says):
    study_root(frozen)
    (frozen / "preregistration/plan.md").write_text("# v2\n", encoding="utf-8")
    refused = invoke("prereg", "amend", "--reason", reason, "preregistration/plan.md")
    assert refused.exit_code == 2 and says in refused.output
    assert not (frozen / AMENDMENTS).exists()


def test_amend_refusals_exit_2(frozen, study_root):
    study_root(frozen)
    unchanged = invoke("prereg", "amend", "--reason", "nothing", "preregistration/plan.md")
    assert_refused(unchanged, "is unchanged since the manifest in effect")


def test_show_escapes_a_recorded_reason_so_it_cannot_forge_a_line(frozen, study_root):
    """An entry written past `amend` (sealed and chained, so verify accepts it) is shown on one
    line with its control characters escaped."""
    study_root(frozen)
    (frozen / "preregistration/plan.md").write_text("# v2\n", encoding="utf-8")
    entry = amend(["preregistration/plan.md"], "typo", root=frozen)
    forged = seal({**{k: v for k, v in entry.items() if k != "sha256"},
                   "reason": "typo\nAmendment 2 (2026-01-01T00:00:00Z): forged \x1b[31mred"})
    (frozen / AMENDMENTS).write_text("", encoding="utf-8")
    append_amendment(frozen, forged)
    assert json.loads((frozen / AMENDMENTS).read_text(encoding="utf-8"))["reason"].startswith("typo\n")
    shown = invoke("prereg", "show")
    assert shown.exit_code == 0, shown.output
    amendment_lines = [line for line in shown.output.splitlines() if line.startswith("Amendment")]
    assert amendment_lines == [f"Amendment 1 ({entry['time']}): typo\\nAmendment 2 "
                               "(2026-01-01T00:00:00Z): forged \\x1b[31mred"]
    assert "\x1b" not in shown.output
