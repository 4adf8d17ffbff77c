"""``study task list`` and ``study task check``."""

from __future__ import annotations

from click.testing import CliRunner

from sopbench_tools.tasks import MANIFEST_DIR
from study.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_list_names_every_task_and_why_four_cannot_run():
    result = run("task", "list")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert sum(1 for line in lines if not line.startswith("    ")) == 14
    assert "referral_abuse_detection_v2 (preregistered): runnable; 200 accounts by account_id" in result.output
    assert [line.split(":")[0] for line in lines if "NOT RUNNABLE" in line] == [
        "aircraft_inspection", "email_intent", "order_fulfillment", "patient_intake"]
    assert result.output.count("    why: ") == 4
    assert "content_flagging: runnable; 168 posts by content_id" in result.output


def test_the_lists_verdict_is_what_study_run_gives_for_every_vendored_task():
    from sopbench_tools.tasks import task_names
    from study.runner.preflight import PreflightError, check_task

    lines = run("task", "list").output.splitlines()
    verdicts = {}
    for n, line in enumerate(lines):
        if not line.startswith("    "):
            name = line.split(":")[0].removesuffix(" (preregistered)")
            why = lines[n + 1].removeprefix("    why: ") if n + 1 < len(lines) and lines[n + 1].startswith("    ") else None
            verdicts[name] = ("NOT RUNNABLE" in line, why)
    assert sorted(verdicts) == task_names()
    for name in task_names():
        try:
            check_task(name)
            refused = None
        except PreflightError as exc:
            refused = " ".join(str(exc).removeprefix(f"--task {name} cannot run here: ").split())
        assert verdicts[name] == (refused is not None, refused), name


def test_check_compares_the_tools_with_tools_py_and_reports_notes():
    result = run("task", "check", "order_fulfillment")
    assert result.exit_code == 0, result.output
    assert "120 (tool, item) pairs: 120 equal results, 0 equal errors" in result.output
    assert "note: calculate_shipping: no argument names the item" in result.output
    assert "oracle: not run (the study cannot run the task: the study attributes every call" in result.output
    assert "note: not runnable: the study attributes every call to one order by its order_id argument or by an item argument" in result.output
    assert result.output.rstrip().endswith("ok (the study cannot run the task, see the note)")


def test_check_of_the_preregistered_task_counts_its_documented_difference():
    result = run("task", "check", "referral_abuse_detection_v2", "--items", "10", "--no-oracle")
    assert result.exit_code == 0, result.output
    assert "60 (tool, item) pairs: 50 equal results, 0 equal errors, 10 documented differences" in result.output


def test_an_unlisted_file_in_the_folder_fails_the_check(tmp_path):
    import shutil

    from sopbench_tools.tasks import DATA_DIR

    shutil.copytree(DATA_DIR / "sopbench" / "order_fulfillment", tmp_path / "order_fulfillment")
    (tmp_path / "order_fulfillment" / "notes.txt").write_text("x")
    text = (MANIFEST_DIR / "order_fulfillment.yaml").read_text().replace("folder: sopbench/order_fulfillment",
                                                                       "folder: order_fulfillment")
    (tmp_path / "order_fulfillment.yaml").write_text(text)
    result = run("task", "check", str(tmp_path / "order_fulfillment.yaml"), "--items", "2")
    assert result.exit_code == 1
    assert "PROBLEM: notes.txt is in the folder but not in the manifest's files table (add `notes.txt: " in result.output


def test_a_manifest_that_cannot_load_exits_2_with_its_lines(tmp_path):
    text = (MANIFEST_DIR / "dangerous_goods.yaml").read_text().replace("backend: upstream", "backend: magic")
    (tmp_path / "dangerous_goods.yaml").write_text(text)
    result = run("task", "check", str(tmp_path / "dangerous_goods.yaml"))
    assert result.exit_code == 2
    assert "dangerous_goods.yaml:" in result.output and "backend 'magic' is not one of columns, upstream" in result.output
    assert run("task", "check", "nope").exit_code == 2


def test_check_runs_the_oracle_under_fsm_through_the_real_cli_on_an_own_manifest(tmp_path):
    from sopbench_tools.tasks import DATA_DIR

    text = (MANIFEST_DIR / "dangerous_goods.yaml").read_text().replace(
        "folder: sopbench/dangerous_goods", f"folder: {DATA_DIR / 'sopbench' / 'dangerous_goods'}")
    (tmp_path / "dangerous_goods.yaml").write_text(text)
    result = run("task", "check", str(tmp_path / "dangerous_goods.yaml"), "--items", "2")
    assert result.exit_code == 0, result.output
    assert "  oracle under FSM (real CLI, simulated): FC 2 of 2 products, 2 decided, " in result.output


def test_pythons_byte_code_cache_in_a_task_folder_is_not_an_unlisted_file(tmp_path):
    import shutil

    from sopbench_tools.tasks import DATA_DIR

    shutil.copytree(DATA_DIR / "sopbench" / "order_fulfillment", tmp_path / "order_fulfillment")
    (tmp_path / "order_fulfillment" / "__pycache__").mkdir()
    (tmp_path / "order_fulfillment" / "__pycache__" / "tools.cpython-311.pyc").write_bytes(b"x")
    text = (MANIFEST_DIR / "order_fulfillment.yaml").read_text().replace("folder: sopbench/order_fulfillment",
                                                                       "folder: order_fulfillment")
    (tmp_path / "order_fulfillment.yaml").write_text(text)
    result = run("task", "check", str(tmp_path / "order_fulfillment.yaml"), "--items", "2")
    assert result.exit_code == 0 and "PROBLEM" not in result.output, result.output
