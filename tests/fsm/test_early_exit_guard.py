"""The SOP's early exit in the guard of Eq. 4 (``exit_on_refusal`` in a task manifest): a refusal
of an exit tool for the recorded item stands for that tool and the required tools after it; a
refusal of any other tool, or for another item, stands for nothing."""

from __future__ import annotations

import pytest

from fsm_helpers import make_runtime, move, observe_all
from sopbench_tools.tasks import load_task
from study.fsm.task_build import main_workflow_file, task_files
from study.fsm.workflow import Workflow

V, AUTH, SESSION, STATUS = "validateAccount", "getAuthenticationDetails", "createSessionAndOpenTicket", "checkAccountStatus"


@pytest.fixture(scope="module")
def customer_service_wf(tmp_path_factory) -> Workflow:
    task = load_task("customer_service")
    path = tmp_path_factory.mktemp("wf") / "main.yaml"
    path.write_text(task_files(task)[main_workflow_file(task)], encoding="utf-8")
    return Workflow.load(path)


def call(tool: str, item: str, ok: bool = True) -> tuple[str, dict, bool]:
    return (tool, {"account_id": item}, ok)


CASES = [
    ("an invalid id: getAuthenticationDetails refused", [call(V, "A1"), call(AUTH, "A1", False)], True, []),
    ("a failed authentication: the session refused", [call(V, "A1"), call(AUTH, "A1"), call(SESSION, "A1", False)], True, []),
    ("a refusal of a tool that is no exit counts for nothing",
     [call(V, "A1"), call(AUTH, "A1"), call(SESSION, "A1"), call(STATUS, "A1", False)], False, [STATUS]),
    ("the validation is still required before an exit", [call(AUTH, "A1", False)], False, [V]),
    ("another account's refusal counts for nothing", [call(V, "A1"), call(AUTH, "A2", False)], False, [AUTH, SESSION, STATUS]),
]


@pytest.mark.parametrize("case,history,ok,missing", CASES, ids=[c[0] for c in CASES])
def test_a_refusal_of_an_exit_tool_ends_the_items_procedure(tmp_path, customer_service_wf, case, history, ok, missing):
    rt = make_runtime(tmp_path, customer_service_wf, ["A1", "A2"])
    observe_all(rt, history + [("record_analysis", {"account_id": "A1"}, True)])
    result = move(rt, "S_decide")
    assert result.ok is ok, result.reason
    for tool in missing:
        assert tool in result.reason.split("before its record_analysis: ", 1)[1].split(" were")[0].split(" was")[0]
