"""No τ²-bench workflow, rule module or text holds a task's ground truth (the paper, D.2: "The
workflow contains no task identifiers, hidden state, expected actions or rewards").

Read: every workflow (the templates and the built studies' ``workflows/``), the check modules the
workflows name with the family's modules they read (the controller, Telecom's evidence), and every
text the agent is given (the templates and the studies' ``texts/``). Compared against every task
of each domain (all splits): its id; its expected actions (a name together with the task-specific
values of its arguments); its hidden state (the initialization actions' functions and their
task-specific values, the initialization data); its reward criteria (the environment assertions'
functions and task-specific values, what must be communicated, the natural-language assertions).

A value is task-specific when no domain's public documents (its policy as the agent gets it, the
tools' schemas, the customer's tools' schemas) already hold it: "economy" or "sms" is the
policy's vocabulary, "L1002" or "#W6390527" is one task's. Numbers are not compared (a count such
as 2 is everyone's); numeric task ids (Airline's and Retail's "2", "13") are compared with every
scalar of the workflows and every string constant of the modules, not with prose (the policies,
verbatim the benchmark's own, say "24 hours"); the policies are checked to be the benchmark's.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from study.families.tau2 import tau2_problem

PROBLEM = tau2_problem()
pytestmark = [pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or ""), pytest.mark.xdist_group("tau2")]
ROOT = Path(__file__).resolve().parents[3]
FAMILY = ROOT / "study/families/tau2"
STUDIES = ROOT / "preregistration/studies"
DOMAINS = ("telecom", "airline", "retail")


def workflow_files() -> list[Path]:
    return sorted(FAMILY.glob("workflows_template/*.yaml")) + sorted(STUDIES.glob("tau2-*/workflows/*.yaml"))


def text_files() -> list[Path]:
    return sorted(FAMILY.glob("texts_template/*.md")) + sorted(STUDIES.glob("tau2-*/texts/*.md"))


def module_files() -> list[Path]:
    """The check modules the workflows name, and the family's modules those and the controller read."""
    names = {m for path in workflow_files() for m in yaml.safe_load(path.read_text())["check_modules"]}
    files = {ROOT / (name.replace(".", "/") + ".py") for name in names} | {FAMILY / "controller.py"}
    for path in list(files):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name in [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]:
                    if name and name.startswith("study.families.tau2."):
                        files.add(ROOT / (name.replace(".", "/") + ".py"))
    return sorted(files)


@lru_cache(maxsize=None)
def environment(domain: str):
    from study.families.tau2.conversation import import_tau2

    import_tau2()
    from tau2.registry import registry

    return registry.get_env_constructor(domain)()


@lru_cache(maxsize=None)
def public(domain: str) -> str:
    """What the domain makes public: the policy the agent gets, the agent's and the customer's tools."""
    env = environment(domain)
    tools = list(env.get_tools())
    try:
        tools += list(env.get_user_tools())
    except ValueError:   # airline, retail: the customer has no tools
        pass
    return env.get_policy() + "\n" + json.dumps([t.openai_schema for t in tools])


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _strings(v)]
    return []


@lru_cache(maxsize=None)
def ground_truth(domain: str) -> dict[str, set[str]]:
    """Every task's ground truth, by kind: task-specific strings only (see the module's docstring)."""
    from study.families.tau2 import data

    known = "\n".join(public(d) for d in DOMAINS)   # one domain's task value may be another's public word ("camera")
    found: dict[str, set[str]] = {"task id": set(), "expected action": set(), "hidden state": set(), "reward criterion": set()}

    def specific(values) -> set[str]:
        return {s.strip() for s in _strings(values) if len(s.strip()) >= 3 and s.strip() not in known}

    for task in data.load_tasks(domain, None):
        found["task id"].add(task.id)
        criteria = task.evaluation_criteria
        for action in criteria.actions or []:
            # a name is public (it is a tool's), its task-specific arguments are not
            found["expected action"] |= specific(action.arguments)
        state = task.initial_state
        if state is not None:
            for action in state.initialization_actions or []:
                found["hidden state"] |= specific([action.func_name, action.arguments])
            if state.initialization_data is not None:
                found["hidden state"] |= specific(state.initialization_data.model_dump(mode="json"))
        for assertion in criteria.env_assertions or []:
            found["reward criterion"] |= specific([assertion.func_name, assertion.arguments])
        found["reward criterion"] |= specific(list(criteria.communicate_info or []) + list(criteria.nl_assertions or []))
    return found


def _occurs(value: str, text: str) -> bool:
    """``value`` in ``text`` as a whole (not inside a longer word or number)."""
    if value not in text:   # most values: a substring test spares the pattern
        return False
    left = r"(?<![\w])" if value[0].isalnum() or value[0] == "_" else ""
    right = r"(?![\w])" if value[-1].isalnum() or value[-1] == "_" else ""
    return re.search(left + re.escape(value) + right, text) is not None


def leaks(text: str, scalars: set[str] | None = None) -> list[str]:
    """The ground truth of any domain found in ``text`` (and, for numeric task ids, among ``scalars``)."""
    out = []
    for domain in DOMAINS:
        for kind, values in ground_truth(domain).items():
            for value in values:
                if kind == "task id" and value.isdigit():
                    if scalars is not None and value in scalars:
                        out.append(f"{domain} {kind} {value!r}")
                elif _occurs(value, text):
                    out.append(f"{domain} {kind} {value!r}")
    return out


def _yaml_scalars(value) -> set[str]:
    if isinstance(value, dict):
        return {s for k, v in value.items() for s in _yaml_scalars(k) | _yaml_scalars(v)}
    if isinstance(value, list):
        return {s for v in value for s in _yaml_scalars(v)}
    return {str(value)}


def test_the_ground_truth_is_collected_from_every_task_of_every_domain():
    from study.families.tau2 import data

    # the comparison is not empty: every task's id, and values of each kind a leak would show
    for domain in DOMAINS:
        truth = ground_truth(domain)
        assert len(truth["task id"]) == len(data.load_tasks(domain, None))
        assert truth["expected action"], domain
    assert {"L1002", "B1234321", "turn_airplane_mode_on", "assert_service_status"} <= set().union(*ground_truth("telecom").values())
    assert "#W6390527" in ground_truth("retail")["expected action"]                    # an order id
    assert "noah_muller_9847" in ground_truth("airline")["expected action"]            # a user id
    assert "Economy" not in ground_truth("airline")["expected action"] and "economy" in public("airline")


@pytest.mark.parametrize("path", workflow_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_workflow_holds_a_task_id_an_expected_action_hidden_state_or_a_reward(path):
    text = path.read_text(encoding="utf-8")
    assert leaks(text, _yaml_scalars(yaml.safe_load(text))) == []


@pytest.mark.parametrize("path", module_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_rule_module_holds_a_task_id_an_expected_action_hidden_state_or_a_reward(path):
    text = path.read_text(encoding="utf-8")
    constants = {n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert leaks(text, constants) == []


@pytest.mark.parametrize("path", text_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_text_the_agent_reads_holds_a_task_id_an_expected_action_hidden_state_or_a_reward(path):
    text = path.read_text(encoding="utf-8")
    assert leaks(text) == []
    match = re.fullmatch(r"policy_(\w+)\.md", path.name)
    if match:   # a policy is the benchmark's own, verbatim (so its numbers are the benchmark's)
        assert text.strip() == environment(match.group(1)).get_policy().strip()


def test_every_workflow_and_module_is_read_and_every_domain_has_its_workflow():
    assert {p.stem for p in FAMILY.glob("workflows_template/*.yaml")} == set(DOMAINS)
    assert {p.parent.parent.name for p in STUDIES.glob("tau2-*/workflows/*.yaml")} == {f"tau2-{d}" for d in DOMAINS}
    names = {p.name for p in module_files()}
    assert {"telecom_rules.py", "telecom_evidence.py", "controller.py", "airline_retail_rules.py"} <= names


def test_a_leak_is_found(tmp_path):
    """The checks can fail: a task id, an order id and a hidden fault planted in a workflow are found."""
    text = "\n".join(["rules:", "  - {tool: get_order_details, args: {order_id: {equals: '#W6390527'}}}",
                      "  - {when: break_apn_mms_setting, task: '13'}",
                      "# [mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|"
                      "break_app_both_permissions|unseat_sim_card|user_abroad_roaming_enabled_off[PERSONA:Hard]"])
    found = leaks(text, _yaml_scalars(yaml.safe_load(text)))
    assert "retail expected action '#W6390527'" in found
    assert "telecom hidden state 'break_apn_mms_setting'" in found
    assert "airline task id '13'" in found and "retail task id '13'" in found
    assert any(f.startswith("telecom task id '[mms_issue]") for f in found)


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_tool_of_the_domain_is_in_its_workflow(domain):
    from study.fsm import Workflow

    workflow = Workflow.load(FAMILY / f"workflows_template/{domain}.yaml")
    tools = {t.name for t in environment(domain).get_tools()} | {"send_message_to_customer"}
    assert set(workflow.tools) == tools
