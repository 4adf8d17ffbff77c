"""Helpers shared by the FSM tests (importable because conftest.py puts this folder on sys.path)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from sopbench_tools.tool_definitions import DATA_TOOLS
from study.fsm import CheckResult, FsmRuntime, Workflow, register_check

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / "preregistration" / "workflows"
MAIN = WORKFLOWS / "referral_abuse_per_account.yaml"
STOP_ONLY = WORKFLOWS / "stop_only.yaml"
BOUND = WORKFLOWS / "exploratory" / "fsm_bound.yaml"


@register_check("tests_notes_written")
def _notes_written(ctx) -> CheckResult:
    """Test check: passes once write_note succeeded at least once."""
    if any(e.get("tool") == "write_note" and e.get("ok") for e in ctx.history):
        return CheckResult(True, "notes found")
    return CheckResult(False, "write a note first (write_note)")


#: A small workflow with nothing of SOP-Bench: the runtime must work for any workflow.
GENERIC = """\
workflow: Review
description: read, then submit
tools: [read_doc, read_index, write_note, submit, list_docs]
variables: {doc: null}
initial: S_read
exit: S_done
pause: [S_wait]
states:
  S_read:
    instructions: Read the document and write a note.
    exit_conditions: [You wrote a note.]
    allow: [read_*, write_note, list_docs]
    deny: [{tool: read_doc, args: {doc: {equals: secret}}, reason: "the secret document is off limits"}]
  S_submit:
    allow: [submit, list_docs]
  S_wait:
    allow: [list_docs]
  S_done: {}
transitions:
  - from: S_read
    to: S_submit
    guard:
      hard:
        - check: tests_notes_written
  - {from: S_submit, to: S_read}
  - {from: S_read, to: S_wait}
  - {from: S_wait, to: S_read}
  - {from: S_read, to: S_done}
"""


def generic_workflow(text: str = GENERIC, tmp_path: Path | None = None) -> Workflow:
    if tmp_path is None:
        return Workflow.from_text(text, "generic.yaml")
    path = tmp_path / "generic.yaml"
    path.write_text(text)
    return Workflow.load(path)


def make_runtime(tmp_path: Path, wf: Workflow, batch: list[str] | None = None, **kw: Any) -> FsmRuntime:
    rt = FsmRuntime(tmp_path / "frames", {wf.name: wf}, {"batch": batch or ["A1", "A2"]}, **kw)
    rt.enter(wf.name)
    return rt


def investigate(account: str, tools: Iterable[str] = DATA_TOOLS) -> list[tuple[str, dict, bool]]:
    """Successful data calls for ``account``."""
    return [(t, {"account_id": account}, True) for t in tools]


def record(account: str) -> tuple[str, dict, bool]:
    return ("record_analysis", {"account_id": account, "step4_action": "No Action"}, True)


def decide(account: str) -> tuple[str, dict, bool]:
    return ("submit_decision", {"account_id": account, "action": "No Action"}, True)


def observe_all(rt: FsmRuntime, calls: Iterable[tuple[str, dict, bool]]) -> None:
    for tool, args, ok in calls:
        rt.observe(tool, args, ok)


def move(rt: FsmRuntime, target: str):
    """self_check + transition; returns the TransitionResult."""
    token = rt.self_check(target)["token"]
    return rt.transition(target, token)
