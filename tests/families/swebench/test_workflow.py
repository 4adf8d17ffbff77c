"""The SWEDebug workflow draft and the two prompt drafts (study/families/swebench/): the workflow
validates, has the paper's shape (4 states, seven inline shell checks, no script) and, run by the
FSM runtime over a real workspace, refuses a source edit before FIX, a move with the notes
missing, with uncommitted changes or with a Python file changed, and lets the procedure through
when it is followed. The prompts carry the four steps, ask for no tests and hold nothing of the
grading."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import yaml

from study.families.swebench import prompts, task_repo
from study.fsm import FsmRuntime, Workflow
from study.fsm.builtin_tools import actions_of

INSTANCE = next(i for i in task_repo.instances() if i.folder.name == "calendarkit-12")


def test_the_workflow_validates_and_has_the_papers_shape():
    done = subprocess.run([sys.executable, "-m", "study.cli", "fsm", "validate", str(prompts.WORKFLOW)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    spec = yaml.safe_load(prompts.WORKFLOW.read_text())
    assert list(spec["states"]) == ["S_investigate", "S_root_cause", "S_fix", "S_done"]
    checks = [check for t in spec["transitions"] for check in t["guard"]["hard"]]
    assert len(checks) == 7 and all(set(check) == {"command"} for check in checks), "seven inline shell checks"
    assert "check_modules" not in spec and not re.search(r"\.(sh|py)\b(?!\")", " ".join(c["command"] for c in checks).replace("*.py", ""))


def _git(ws, *args):
    return subprocess.run(["git", "-c", "user.name=agent", "-c", "user.email=agent@example.invalid", *args],
                          cwd=ws, capture_output=True, text=True, check=True).stdout


def _move(rt, target):
    return rt.transition(target, rt.self_check(target)["token"])


def _gate(rt, ws, tool, **args):
    return rt.gate_builtin(tool, args, actions_of(tool, args, str(ws), str(ws)))


def test_the_workflow_holds_the_procedure_over_a_real_workspace(tmp_path):
    ws = tmp_path / "ws"
    base = task_repo.make_repository(INSTANCE, ws)
    wf = Workflow.load(prompts.WORKFLOW)
    rt = FsmRuntime(tmp_path / "fsm", {wf.name: wf}, {"base": base}, shell_cwd=ws)
    rt.enter("SWEDebug")
    source = str(ws / "calendarkit" / "days.py")
    assert not _gate(rt, ws, "Edit", file_path=source, old_string="<", new_string="<=").allowed
    assert not _gate(rt, ws, "Write", file_path=str(ws / "repro.py"), content="").allowed
    assert _gate(rt, ws, "Write", file_path=str(ws / "investigation.md"), content="").allowed
    assert _gate(rt, ws, "Bash", command="python3 -m pytest -q | tail -1").allowed

    refused = _move(rt, "S_root_cause")
    assert not refused.ok and "investigation.md" in refused.reason
    (ws / "investigation.md").write_text("business_days and date_range drop the last day\n")
    refused = _move(rt, "S_root_cause")
    assert not refused.ok and "not clean" in refused.reason
    _git(ws, "add", "investigation.md")
    _git(ws, "commit", "-qm", "Investigation")
    assert _move(rt, "S_root_cause").ok

    (ws / "calendarkit" / "days.py").write_text((ws / "calendarkit" / "days.py").read_text().replace("< end", "<= end"))
    (ws / "root_cause.md").write_text("iter_days excludes its end\n")
    _git(ws, "commit", "-qam", "sneak the fix in")
    _git(ws, "add", "root_cause.md")
    _git(ws, "commit", "-qm", "Root cause")
    refused = _move(rt, "S_fix")
    assert not refused.ok and "Python file changed" in refused.reason
    _git(ws, "checkout", base, "--", "calendarkit/days.py")
    _git(ws, "commit", "-qam", "back out")
    assert _move(rt, "S_fix").ok

    assert _gate(rt, ws, "Edit", file_path=source, old_string="<", new_string="<=").allowed
    (ws / "calendarkit" / "days.py").write_text((ws / "calendarkit" / "days.py").read_text().replace("< end", "<= end"))
    assert not _move(rt, "S_done").ok
    _git(ws, "commit", "-qam", "Include the last day of a range")
    assert _move(rt, "S_done").ok and rt.stop_gate().allowed


@pytest.mark.parametrize("condition", prompts.CONDITIONS)
def test_the_prompts_give_the_procedure_ask_no_tests_and_hold_nothing_of_the_grading(condition):
    text = prompts.render(condition, INSTANCE.problem_statement, INSTANCE.meta["FAIL_TO_PASS"] + INSTANCE.meta["PASS_TO_PASS"])
    assert INSTANCE.problem_statement.strip() in text
    template = prompts.template(condition)
    assert not re.search(r"\btests?\b", template, re.I), "neither prompt asks for tests"
    assert "investigation.md" in template and "root_cause.md" in template and "commit" in template
    assert "do not modify source code yet" in template.lower() or "without modifying source code yet" in template.lower()
    gold = task_repo.diff_of(INSTANCE, "gold")
    added = [line[1:].strip() for line in gold.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert not any(line and line in text for line in added)
    for name in INSTANCE.meta["FAIL_TO_PASS"]:
        assert name.split("::")[1] not in text
    if condition == "Plain":
        assert [m.group(1) for m in re.finditer(r"^(\d)\. (\w+)", template, re.M)] == ["1", "2", "3", "4"]
    else:
        assert "SWEDebug" in template and "self_check" in template


def test_a_prompt_refuses_an_issue_naming_a_graded_test():
    with pytest.raises(ValueError, match="graded tests"):
        prompts.render("Plain", "see tests/test_ranges.py::test_single_day_range", ["tests/test_ranges.py::test_single_day_range"])
