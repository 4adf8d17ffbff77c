"""The τ² rules see a public view only, structurally (issue 46, item 2).

A Telecom task is played under FSM, with its controller, by the simulator's oracle. Then every
object reachable from the FSM runtime, from the workflow's observers, rule checks and guard
checks, and from the controller is walked (attributes, slots, containers, weak registries, the
cells, defaults and referenced globals of functions, bound methods): none is the task, its
evaluation criteria, its user scenario or initial state, the session's work, tau2's conversation,
orchestrator or environment, and no string among them holds the task's id. The same walk from the
work finds the task (the walk can see it). Skipped, with the install line, without the extra.
"""

from __future__ import annotations

import functools
import json
import types
import weakref
from pathlib import Path

import pytest

from study.families.tau2 import tau2_problem

PROBLEM = tau2_problem()
pytestmark = [pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or ""), pytest.mark.xdist_group("tau2")]
ROOT = Path(__file__).resolve().parents[3]
FAMILY = ROOT / "study/families/tau2"
TASK = "[service_issue]airplane_mode_on|overdue_bill_suspension[PERSONA:None]"
_ATOMS = (str, bytes, int, float, bool, complex, type(None), Path)


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def reachable(*roots: object, limit: int = 500_000) -> list[object]:
    """Every object reachable from ``roots`` through data: not through modules or classes (code)."""
    seen: set[int] = set()
    out: list[object] = []
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        out.append(obj)
        assert len(out) < limit, "the walk does not end"
        if isinstance(obj, _ATOMS) or isinstance(obj, (types.ModuleType, type)):
            continue
        if isinstance(obj, dict):
            stack += list(obj.keys()) + list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack += list(obj)
        elif isinstance(obj, (weakref.WeakValueDictionary, weakref.WeakKeyDictionary)):
            stack += list(obj.items())
        elif isinstance(obj, weakref.ref):
            stack.append(obj())
        elif isinstance(obj, types.FunctionType):
            stack += [c.cell_contents for c in obj.__closure__ or () if c.cell_contents is not None]
            stack += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
            glob = obj.__globals__
            stack += [glob[n] for n in _code_names(obj.__code__) if n in glob]
        elif isinstance(obj, types.MethodType):
            stack += [obj.__self__, obj.__func__]
        elif isinstance(obj, functools.partial):
            stack += [obj.func, obj.args, obj.keywords]
        else:
            attrs = getattr(obj, "__dict__", None)
            if isinstance(attrs, dict):
                stack.append(attrs)
            for klass in type(obj).__mro__:
                for slot in getattr(klass, "__slots__", ()) if isinstance(getattr(klass, "__slots__", ()), tuple) else ():
                    if hasattr(obj, slot):
                        stack.append(getattr(obj, slot))
    return out


def _forbidden_types() -> tuple[type, ...]:
    from tau2.data_model.tasks import EvaluationCriteria, InitialState, Task, UserScenario
    from tau2.environment.environment import Environment
    from tau2.orchestrator.orchestrator import Orchestrator
    from tau2.user.user_simulator import UserSimulator

    from study.families.tau2.conversation import Conversation
    from study.families.tau2.work import Tau2Work

    return Task, EvaluationCriteria, UserScenario, InitialState, Environment, Orchestrator, UserSimulator, Conversation, Tau2Work


def findings(objects: list[object], task_id: str) -> list[str]:
    forbidden = _forbidden_types()
    found = []
    for obj in objects:
        if isinstance(obj, forbidden):
            found.append(f"a {type(obj).__name__}")
        elif isinstance(obj, str) and (task_id in obj or task_id.split("]", 1)[1].split("[", 1)[0] in obj):
            found.append(f"the task id in {obj[:80]!r}")
        elif isinstance(obj, dict) and {"evaluation_criteria", "user_scenario", "initial_state"} & set(map(str, obj)):
            found.append("a task as a dict")
    return found


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    from study.families.tau2 import data
    from study.families.tau2.controller import TelecomController
    from study.families.tau2.conversation import ModelEndpoint
    from study.families.tau2.work import Tau2Work
    from study.fsm import FsmRuntime, Workflow
    from study.sim.server import SimServer
    from study.families.tau2.sim.agents import make_agent
    from study.families.tau2.sim.customer import Customer
    from study.families.tau2.sim.direct import play

    tmp = tmp_path_factory.mktemp("public-view")
    task = data.load_task("telecom", TASK).model_dump(mode="json")
    with SimServer(Customer(task)) as sim:
        controller = TelecomController()
        work = Tau2Work("telecom", TASK, ModelEndpoint("sim-customer", base_url=sim.base_url),
                        texts=FAMILY / "texts_template", controller=controller, session_dir=tmp)
        wf = Workflow.load(FAMILY / "workflows_template/telecom.yaml")
        fsm = FsmRuntime(tmp / "fsm", {wf.name: wf}, variables=work.fsm_variables())
        fsm.enter(wf.name)
        result = play(work, make_agent("goal-abandoner", task), fsm=fsm)
    return work, fsm, controller, wf, result, tmp


def test_the_conversation_ran_under_the_rules(played):
    work, fsm, _controller, _wf, result, _tmp = played
    assert result.outcome["reward"] == 1.0 and result.denied    # the goal-abandoner's transfer was denied
    assert len(work.record.events) > 10 and fsm.frames()[-1]["variables"]["record"] == work.record.key
    json.dumps(work.record.events)                               # plain data only


def test_nothing_reachable_from_the_fsm_its_checks_or_the_controller_holds_the_task(played):
    from study.fsm import rule_checks

    work, fsm, controller, wf, _result, tmp = played
    observers = [rule_checks.observer(name) for name in wf.observers]
    rule_fns = [rule_checks._RULE_CHECKS[r.check.name] for s in wf.states.values() for r in s.permissions.deny if r.check]
    guards = [check.registered for t in wf.transitions.values() for check in t.hard]
    objects = reachable(fsm, controller, observers, rule_fns, guards)
    assert any(isinstance(o, type(work.record)) for o in objects)          # the walk reaches the public record
    assert len(objects) > 200
    assert findings(objects, TASK) == []
    frames = "".join(p.read_text(encoding="utf-8") for p in (tmp / "fsm").rglob("*") if p.is_file())
    assert frames and TASK not in frames and "overdue_bill_suspension" not in frames


def test_the_walk_finds_the_task_where_it_is(played):
    work, *_ = played
    found = findings(reachable(work), TASK)
    assert "a Task" in found and "a Tau2Work" in found and any(f.startswith("the task id") for f in found)
