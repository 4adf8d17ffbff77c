"""The build script: the committed workflows and reminder are exactly what it generates from the SOP."""

from __future__ import annotations

from click.testing import CliRunner

from fsm_helpers import REPO
from sopbench_tools.dataset import load_task
from study.cli import main
from study.fsm import Workflow
from study.fsm import build_referral_workflow as build


def test_committed_files_are_up_to_date():
    result = CliRunner().invoke(main, ["fsm", "build-referral", "--check"])
    assert result.exit_code == 0, result.output


def test_check_names_a_changed_or_missing_file(tmp_path):
    assert CliRunner().invoke(main, ["fsm", "build-referral", "--root", str(tmp_path)]).exit_code == 0
    (tmp_path / build.REMINDER_FILE).write_text("edited\n")
    (tmp_path / build.STOP_ONLY_FILE).unlink()
    result = CliRunner().invoke(main, ["fsm", "build-referral", "--check", "--root", str(tmp_path)])
    assert result.exit_code == 1
    assert f"{tmp_path / build.REMINDER_FILE}: differs" in result.output
    assert f"{tmp_path / build.STOP_ONLY_FILE}: missing" in result.output


def test_reminder_copies_the_decision_section_and_critical_rules_verbatim():
    sop = load_task().sop
    reminder = (REPO / "preregistration" / build.REMINDER_FILE).read_text()
    section = sop[sop.index("5.7 Determine Risk Severity"):sop.index("\n6. Output")].strip("\n")
    critical = sop[sop.rindex("\nCRITICAL:") + 1:].strip("\n")
    assert reminder.startswith(section)
    assert critical in reminder and "no need to stop, summarise, pause or rush" in reminder
    assert "6. Output" not in reminder  # the output-format section is not part of the reminder


def test_generated_workflows_match_the_paper():
    files = build.generated_files()
    main_wf = Workflow.from_text(files[build.MAIN_FILE], "main.yaml")
    assert (main_wf.initial, main_wf.exit, set(main_wf.pause)) == ("S_investigate", "S_done", set())
    assert set(main_wf.transitions) == {("S_investigate", "S_decide"), ("S_decide", "S_investigate"), ("S_investigate", "S_done")}
    investigate = main_wf.states["S_investigate"].permissions.permitted_tools(main_wf.tools)
    decide = main_wf.states["S_decide"].permissions.permitted_tools(main_wf.tools)
    assert "submit_decision" not in investigate and "record_analysis" in investigate
    assert set(decide) == {"submit_decision", "list_batch", "list_decisions", "determine_enforcement_action"}
    bound_text = files[build.BOUND_FILE]
    assert "EXPLORATORY - NOT PART OF THE PREREGISTERED SET" in bound_text.splitlines()[3]
    stop_only = Workflow.from_text(files[build.STOP_ONLY_FILE], "stop.yaml")
    assert list(stop_only.states) == ["S_work", "S_done"]
    assert stop_only.states["S_work"].permissions.permitted_tools(stop_only.tools) == list(stop_only.tools)
