"""The files of a preregistered τ²-bench study, written from the family's templates.

``study_files(domain, name)`` gives every file of ``preregistration/studies/<name>/`` (or of a
project's preregistration): ``study.yaml`` (family ``tau2``, numbered by task; the domain, split,
frozen order file, the customer's and the judge's models), ``conditions.yaml`` (Control: the
official policy and the static checklist; FSM: the same checklist through the FSM runtime, its
domain's workflow gating each call and the end of the turn), ``limits.yaml``, ``texts/`` (the
domain's policy verbatim, its checklist, the first message, the continuation message and, with
an FSM, the domain's FSM paragraph, ``texts_template/fsm_paragraph_<domain>.md``, as
``fsm_paragraph.md``), ``workflows/<domain>.yaml``, ``orders/<domain>-<split>.txt`` (the split's
task ids in the order of the sha256 of each id: segments extend it, never reorder it), ``plan.md`` and a
``README.md``. ``study tau2 build`` writes them; ``--check`` says whether the files on disk are
these bytes. Freezing them is ``study prereg freeze``'s, as for every preregistered file.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
TEXTS = HERE / "texts_template"
WORKFLOWS = HERE / "workflows_template"
#: The domains a study can be written for, with the workflow their FSM condition runs (None: no
#: frozen FSM for the domain yet, so its study has the Control condition only).
DOMAINS = ("telecom", "airline", "retail")
#: The paper's models (section 5.2): gpt-5.4-mini for the agent and the customer, the judge too.
PAPER_MODEL = "gpt-5.4-mini"
#: Domains whose rewards never need a judge (Telecom: deterministic action and environment checks).
NO_JUDGE = ("telecom",)


def workflow_of(domain: str) -> Path | None:
    path = WORKFLOWS / f"{domain}.yaml"
    return path if path.is_file() else None


def _study_yaml(domain: str, name: str, split: str, order_file: str) -> str:
    judge = "null    # Telecom's reward is deterministic: no judge" if domain in NO_JUDGE else \
        f"{PAPER_MODEL}    # the NL assertions' judge (the paper's); offline none runs: a task listing NL assertions is not judged"
    return f"""# A preregistered τ²-bench study (the paper's Analysis 2, section 5.2 and appendix D.2), written by
# `study tau2 build --domain {domain}`. Frozen by `study prereg freeze` with the rest of preregistration/.
study: {name}
family: tau2
title: "τ²-bench {domain.capitalize()}: Control against FSM, one conversation per task"
unit: task          # session k is the k-th task of the frozen order (its folder task-<k>)
params:
  domain: {domain}
  split: {split}
  order: {order_file}    # the split's task ids by sha256 of each id; segments extend it, never reorder it
  customer_model: {PAPER_MODEL}   # tau2's user simulator (a models.yaml alias; offline: the simulator's customer)
  customer_args: {{reasoning_effort: medium}}
  judge_model: {judge}
  judge_args: {{reasoning_effort: medium}}
  tau2_seed: 300     # tau2 run's --seed (its default); the conversation runs with trial 0's seed under it
"""


CONDITIONS = """# The two agents of the paper's Analysis 2. Both get the domain's official policy and the same
# static checklist in the first message (texts/first_message.md). FSM adds the FSM runtime: its
# domain's workflow gates every call (deny rules) and the end of the turn while the customer's
# issue is open; under Telecom its controller keeps the line, the symptom and the fault ledger and
# asks for a fresh test after every repair (study/families/tau2/).
schema: 1
cli_settings:
  token_reminder: default
  disable_nonessential_traffic: true
conditions:
  Control:
    sop_in_system_prompt: false
    reminder: false
    resume: false
    workflow: null
    tool_gate: false
    stop_gate: false
    fsm_paragraph: false
    state_in_message: false
"""

FSM_CONDITION = """  FSM:
    sop_in_system_prompt: false
    reminder: false
    resume: false
    workflow: {workflow}
    tool_gate: true
    stop_gate: true
    fsm_paragraph: true
    state_in_message: false
"""

LIMITS = """# The external limits of one τ²-bench conversation (one session). τ²-bench's own step limit
# ends the conversation first; these are the runner's backstops.
schema: 1
spending:
  default: 3
turns: 400
no_decision_minutes: 10
stop_blocks: 20
resumes: 5
resumes_without_decision: 2
wall_time_hours: 1
"""


def _plan(domain: str, n: int, has_fsm: bool) -> str:
    fsm = ("Control and FSM" if has_fsm else "Control (no frozen FSM for this domain yet)")
    return f"""# Study plan: goal fidelity on τ²-bench {domain.capitalize()}

The paper's Analysis 2 (section 5.2, appendix D.2, Table 4), on τ²-bench v1.0.1's {domain} test
split ({n} tasks), with the benchmark's own environment, tools, user simulator and evaluator.

## 1. Question
Does holding the customer's goal and the open faults as state outside the model (the FSM) keep
the agent from abandoning the customer's problem (a transfer to a human while a fault is still
open), and so raise the pass rate?

## 2. Agents and conditions
{fsm}: both get the domain's official policy and the same static checklist; the FSM agent runs the
domain's workflow through the FSM runtime (conditions.yaml).

## 3. Tasks, order, segments
The test split's tasks in the order of the sha256 of each id (orders/); the run proceeds in
segments (e.g. 12, 12, 16 tasks) that extend the task list only: agent, workflow, rules, runtime,
model and scoring are identical in every segment, and no scored task is rerun (a voided session is
rerun from scratch).

## 4. Models
Agent and customer: gpt-5.4-mini at medium reasoning effort (models.yaml); the judge of the
natural-language assertions (where the reward basis has them): gpt-5.4-mini with the unchanged
rubric. One run per task and agent.

## 5. Outcome and analysis
τ²-bench's reward (1 = passed), by its own evaluator. Table 4: tasks, Control passed, FSM passed,
discordant tasks (FSM only / Control only), exact McNemar p (two-sided); transfers to a human
while a fault was open; the share of the agent's turns the controller emitted. A task whose reward
needs a judge that did not run is reported as not judged, never as passed or failed.

## 6. Prediction
FSM passes more tasks than Control, with more discordant tasks favouring FSM (exact McNemar,
two-sided, p < 0.05).
"""


def study_files(domain: str, name: str | None = None, split: str = "test") -> dict[str, str]:
    """Every file of the study of ``domain`` (its folder's relative path -> text)."""
    from .data import frozen_order, task_ids

    if domain not in DOMAINS:
        raise ValueError(f"no τ²-bench study for domain {domain!r}: the domains are {', '.join(DOMAINS)}")
    name = name or f"tau2-{domain}"
    order = frozen_order(task_ids(domain, split))
    order_file = f"orders/{domain}-{split}.txt"
    workflow = workflow_of(domain)
    files = {
        "study.yaml": _study_yaml(domain, name, split, order_file),
        "conditions.yaml": CONDITIONS + (FSM_CONDITION.format(workflow=f"{domain}.yaml") if workflow else ""),
        "limits.yaml": LIMITS,
        order_file: "\n".join(order) + "\n",
        "plan.md": _plan(domain, len(order), workflow is not None),
        "README.md": (f"# τ²-bench {domain} study\n\nWritten by `study tau2 build --domain {domain}`; frozen with the rest "
                      "of preregistration/ by `study prereg freeze`. Run it with `study run-all --study "
                      f"{name} --seeds 1-{len(order)}` (docs/tau2.md).\n"),
    }
    for path in sorted(TEXTS.glob("*.md")):
        if path.name.startswith(("policy_", "checklist_", "fsm_paragraph_")) and not path.stem.endswith(f"_{domain}"):
            continue
        if path.name.startswith("fsm_paragraph_"):   # the domain's paragraph is the study's fsm_paragraph.md
            if workflow is not None:
                files["texts/fsm_paragraph.md"] = path.read_text(encoding="utf-8")
            continue
        files[f"texts/{path.name}"] = path.read_text(encoding="utf-8")
    if workflow is not None:
        files[f"workflows/{domain}.yaml"] = workflow.read_text(encoding="utf-8")
    return files


def differences(root: Path, domain: str, name: str | None = None) -> list[str]:
    """The files of the study's folder that are not the builder's bytes (missing, changed, added)."""
    from study.families.study_files import differences as folder_differences

    return folder_differences(root, study_files(domain, name))
