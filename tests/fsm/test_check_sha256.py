"""A guard's check script is checked against its frozen sha256 before every run (issue 46): a
changed, missing or replaced script refuses the transition with a reason and is never run; the
staged protocols' workflows name their check scripts' digests, which are the package's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from study.fsm import FsmRuntime, Workflow, WorkflowError
from study.fsm.checks import GuardContext, run_shell_check

REPO = Path(__file__).resolve().parents[2]
CHECK = "import sys\nprint('checked')\nsys.exit(0)\n"

WORKFLOW = """\
workflow: Checked
tools: [note]
initial: S_a
exit: S_b
states:
  S_a: {allow: [note]}
  S_b: {allow: [note]}
transitions:
  - from: S_a
    to: S_b
    guard: {hard: [{command: "python3 ../checks/check.py", sha256: {"../checks/check.py": "DIGEST"}}]}
"""


def _context() -> GuardContext:
    return GuardContext(workflow="W", state="S_a", target="S_b", history=[], variables={}, params={})


def _layout(tmp_path: Path, text: str = CHECK) -> tuple[Path, str]:
    work = tmp_path / "workspace"
    work.mkdir()
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "check.py").write_text(text)
    return work, hashlib.sha256(text.encode()).hexdigest()


def test_a_check_whose_script_matches_its_digest_runs(tmp_path):
    work, digest = _layout(tmp_path)
    result = run_shell_check("python3 ../checks/check.py", 10, _context(), work, sha256=(("../checks/check.py", digest),))
    assert result.ok and result.message == "checked"


@pytest.mark.parametrize("change", ["edited", "emptied", "removed"])
def test_a_changed_check_script_is_not_run_and_refuses_with_a_reason(tmp_path, change):
    work, digest = _layout(tmp_path)
    marker = tmp_path / "ran"
    script = tmp_path / "checks" / "check.py"
    if change == "edited":
        script.write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    elif change == "emptied":
        script.write_text("")          # what `git diff --output=../checks/check.py` leaves on a clean tree
    else:
        script.unlink()
    result = run_shell_check("python3 ../checks/check.py", 10, _context(), work, sha256=(("../checks/check.py", digest),))
    assert not result.ok and not marker.exists()
    assert result.message.startswith("guard command `python3 ../checks/check.py` was not run: the check it runs has "
                                     "changed since the workflow was frozen (../checks/check.py ")
    assert ("cannot be read" if change == "removed" else f"not the frozen {digest[:12]}") in result.message


def test_the_runtime_refuses_the_transition_when_the_frozen_check_changed(tmp_path):
    work, digest = _layout(tmp_path)
    (tmp_path / "wf.yaml").write_text(WORKFLOW.replace("DIGEST", digest))
    wf = Workflow.load(tmp_path / "wf.yaml")
    rt = FsmRuntime(tmp_path / "fsm", {wf.name: wf}, shell_cwd=work)
    rt.enter(wf.name)
    (tmp_path / "checks" / "check.py").write_text("import sys\nsys.exit(0)\n")
    moved = rt.transition("S_b", rt.self_check("S_b")["token"])
    assert not moved.ok and "has changed since the workflow was frozen" in moved.reason and rt.state == "S_a"
    (tmp_path / "checks" / "check.py").write_text(CHECK)
    assert rt.transition("S_b", rt.self_check("S_b")["token"]).ok


@pytest.mark.parametrize("value", ['{"../checks/check.py": "abc"}', '"0123"', '{"": "%s"}' % ("0" * 64)])
def test_a_malformed_sha256_is_refused_with_its_line(tmp_path, value):
    (tmp_path / "wf.yaml").write_text(WORKFLOW.replace('{"../checks/check.py": "DIGEST"}', value))
    with pytest.raises(WorkflowError) as caught:
        Workflow.load(tmp_path / "wf.yaml")
    assert "'sha256' must map each file the command runs" in str(caught.value)


@pytest.mark.parametrize("protocol, script", [("autoresearch", "stage_check.py"), ("month_end_close", "check_step.py")])
def test_the_staged_workflows_name_the_digest_of_the_check_script_the_run_copies(protocol, script):
    """Every guard of the protocol's workflow names the check script's sha256, and it is the package's
    script's (which the run's builder copies into checks/): a change of the script needs the
    workflow's digest changed too, so a re-freeze."""
    folder = REPO / "study" / "families" / "workspace" / protocol
    wf = Workflow.load(folder / "workflow.yaml")
    digest = hashlib.sha256((folder / script).read_bytes()).hexdigest()
    checks = [check for t in wf.transitions.values() for check in t.hard]
    assert checks and all(check.sha256 == ((f"../checks/{script}", digest),) for check in checks)
