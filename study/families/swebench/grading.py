"""Grade a session's final diff with the official SWE-bench harness, on a freshly built image.

:func:`grade` takes the diff (a unified diff against the instance's base commit, as ``git diff
BASE`` in the session's workspace gives it), writes the harness's predictions file, runs
``swebench.harness.run_evaluation`` on the task repo (``harness_entry.py``: one process, in the
grading's own folder, the evaluation container without network) and keeps everything in that
folder: ``predictions.jsonl``, ``harness.log`` (what the harness printed), the harness's run
report ``<model>.<run id>.json`` and its ``logs/`` (the image's Dockerfile and build log, the
instance's ``run_instance.log``, ``patch.diff``, ``eval.sh``, ``test_output.txt`` and
``report.json``), and ``grade.json``, this module's verdicts (with the run id, the harness's exit
code and each patch's sha256). :func:`grade_many` grades several instances in one harness run
(one process start, which costs seconds, for all). :func:`regrade` computes the verdicts again
from those logs alone (no docker), as an audit does.

The verdict is one of three, and an infrastructure failure is never "unresolved":

- ``resolved``: the harness's report says so (every FAIL_TO_PASS and PASS_TO_PASS test passes);
- ``unresolved``: the harness ran the tests and they did not all pass, or the patch is empty, or
  it did not apply, or the tests ran past the time limit (a patch can hang them: SWE-bench counts
  it against the patch, and so does this);
- ``infrastructure_failure``: docker or the harness missing, the image build failed, the harness
  crashed, the container could not be made or run, or the harness's own log classification names
  an environment fault (``swebench.harness.infra_failure``, tier "environment").

The harness force-rebuilds the instance's image before it grades (its task-repo mode), so every
grading runs on a clean image; two gradings of one instance therefore never run at once here (a
file lock per instance), as one would remove the other's image.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .docker_env import docker, docker_problem, harness_problem, machine_lock

RESOLVED, UNRESOLVED, INFRASTRUCTURE_FAILURE = "resolved", "unresolved", "infrastructure_failure"
MODEL = "study"
#: What the harness prints or logs, and what it means (swebench 5.0.2's own strings).
BUILD_FAILED = re.compile(r"BUILD FAILED|FELL BACK to the published image|instance images failed to build")
APPLY_FAILED = ">>>>> Patch Apply Failed"
TIMED_OUT = re.compile(r"Test timed out after \d+ seconds|Timeout error: \d+ seconds exceeded")


@dataclass(frozen=True)
class Grade:
    """A grading's verdict: ``outcome`` (RESOLVED, UNRESOLVED, INFRASTRUCTURE_FAILURE), ``reason``
    (one line), the harness's per-instance report (None when it wrote none) and where it all is."""

    instance_id: str
    outcome: str
    reason: str
    folder: str
    seconds: float = 0.0
    run_id: str = ""
    report: dict | None = field(default=None, repr=False)

    @property
    def resolved(self) -> bool:
        return self.outcome == RESOLVED

    @property
    def infrastructure_failure(self) -> bool:
        return self.outcome == INFRASTRUCTURE_FAILURE


def _instance_dir(folder: Path, run_id: str, instance_id: str) -> Path:
    return folder / "logs" / "run_evaluation" / run_id / MODEL / instance_id


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""


def _summary(report: dict) -> str:
    status = report.get("tests_status") or {}
    parts = []
    for key in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        tests = status.get(key) or {}
        passed, failed = len(tests.get("success", [])), len(tests.get("failure", []))
        parts.append(f"{key} {passed}/{passed + failed}")
    return ", ".join(parts)


_UNSET = object()


def _build_failed(folder: Path, printed: str, instance_id: str) -> bool:
    """Whether the harness tried and failed to build this instance's image (its own words: the
    build log of the image, or the summary naming the instance after "BUILD FAILED")."""
    from .task_repo import image_name

    build_log = folder / "logs" / "image_builder" / image_name(instance_id).replace(":", "__") / "build_image.log"
    if build_log.is_file():
        return "Image built successfully!" not in _read(build_log)
    failed = [line for line in printed.splitlines() if BUILD_FAILED.search(line)]
    return any(instance_id in line for line in failed)


def verdict(folder: Path, run_id: str, instance_id: str, exit_code: int,
            report: dict | None | object = _UNSET) -> tuple[str, str, dict | None]:
    """(outcome, reason, report) from what a harness run left in ``folder`` and its exit code;
    ``report`` replaces the harness's per-instance report.json (a re-grade's own)."""
    folder = Path(folder)
    printed = _read(folder / "harness.log")
    instance_dir = _instance_dir(folder, run_id, instance_id)
    report_file = instance_dir / "report.json"
    if report is _UNSET:
        report = json.loads(report_file.read_text()).get(instance_id) if report_file.is_file() else None
    if _build_failed(folder, printed, instance_id):
        return INFRASTRUCTURE_FAILURE, "the instance image did not build (logs/image_builder/*/build_image.log)", report
    if exit_code != 0:
        last = (printed.strip().splitlines() or ["no output"])[-1][:300]
        return INFRASTRUCTURE_FAILURE, f"the harness exited with {exit_code}: {last}", report
    run_reports = sorted(folder.glob(f"{MODEL}.{run_id}.json"))
    run_report = json.loads(run_reports[0].read_text()) if run_reports else {}
    if instance_id in run_report.get("empty_patch_ids", []):
        return UNRESOLVED, "empty patch", report
    if report is not None:
        if report.get("resolved"):
            return RESOLVED, f"resolved: {_summary(report)}", report
        if report.get("infra_failure"):
            return INFRASTRUCTURE_FAILURE, f"environment fault in the test log: {report.get('infra_failure_reason')}", report
        if not report.get("patch_successfully_applied"):
            return UNRESOLVED, "no test results in the log (the tests did not run to their end)", report
        return UNRESOLVED, f"unresolved: {_summary(report)}", report
    log = _read(instance_dir / "run_instance.log")
    if APPLY_FAILED in log:
        return UNRESOLVED, "the patch did not apply to the base commit", None
    if TIMED_OUT.search(log) or TIMED_OUT.search(_read(instance_dir / "test_output.txt")):
        return UNRESOLVED, "the tests ran past the time limit", None
    errors = [line for line in log.splitlines() if " - ERROR - " in line or "Error" in line]
    said = errors[-1][-300:] if errors else "no report and no error in the log"
    return INFRASTRUCTURE_FAILURE, f"the harness wrote no report: {said}", None


def _write_record(folder: Path, grades: dict[str, Grade], extra: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    record = dict(extra, grades={i: {k: v for k, v in asdict(g).items() if k != "report"} for i, g in grades.items()})
    (folder / "grade.json").write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


def grade(instance_id: str, patch: str, task_repo: Path | None, folder: Path, *, timeout: int = 900,
          network: bool = False, env: dict[str, str] | None = None, dataset: Path | None = None) -> Grade:
    """Grade ``patch`` for ``instance_id`` of ``task_repo`` with the official harness; keep its
    report and logs in ``folder`` (made if missing; one grading a folder). ``timeout`` is the
    harness's limit on the tests, in seconds; ``network`` gives the evaluation container the
    default network instead of none. ``dataset`` instead of ``task_repo``: a local export of a
    SWE-bench dataset (``.jsonl``, ``.json``, ``.parquet``), the harness's own images (SWE-bench
    Verified). Never raises for the environment: a missing docker or harness, a failed build, a
    crash are an INFRASTRUCTURE_FAILURE verdict."""
    return grade_many({instance_id: patch}, task_repo, folder, timeout=timeout, network=network, env=env,
                      dataset=dataset)[instance_id]


def grade_many(patches: dict[str, str], task_repo: Path | None, folder: Path, *, timeout: int = 900,
               network: bool = False, env: dict[str, str] | None = None,
               dataset: Path | None = None) -> dict[str, Grade]:
    """:func:`grade` for several instances (one patch each) in one harness run: one process
    start for all (it costs several seconds), each instance's verdict its own."""
    if (task_repo is None) == (dataset is None):
        raise ValueError("grade a task repo or a dataset export, one of them")
    folder = Path(folder).resolve()
    task_repo = Path(task_repo).resolve() if task_repo is not None else None
    dataset = Path(dataset).resolve() if dataset is not None else None
    folder.mkdir(parents=True, exist_ok=True)
    ids = sorted(patches)
    run_id = f"g{time.strftime('%Y%m%d%H%M%S')}-{uuid.uuid4().hex[:6]}"
    started = time.monotonic()
    extra = {"run_id": run_id, "task_repo": str(task_repo) if task_repo else None,
             "dataset": str(dataset) if dataset else None, "harness": "swebench 5.0.2",
             "network": "default" if network else "none", "timeout": timeout, "harness_exit": None,
             "patch_sha256": {i: hashlib.sha256(patches[i].encode()).hexdigest() for i in ids}}
    problem = docker_problem(env) or harness_problem()
    if problem:
        grades = {i: Grade(i, INFRASTRUCTURE_FAILURE, problem, str(folder), 0.0, run_id) for i in ids}
        _write_record(folder, grades, extra)
        return grades
    predictions = folder / "predictions.jsonl"
    predictions.write_text("".join(json.dumps({"instance_id": i, "model_name_or_path": MODEL,
                                               "model_patch": patches[i]}) + "\n" for i in ids))
    command = [sys.executable, "-m", "study.families.swebench.harness_entry",
               *(["--task-repo", str(task_repo)] if task_repo is not None else ["--dataset", str(dataset)]),
               "--predictions", str(predictions), "--run-id", run_id, "--timeout", str(timeout),
               "--network", "default" if network else "none"]
    for i in ids:
        command += ["--instance", i]
    run_env = dict(os.environ if env is None else env)
    # the harness process imports this package: the same checkout as the caller's
    root = str(Path(__file__).resolve().parents[3])
    run_env["PYTHONPATH"] = os.pathsep.join(p for p in (root, run_env.get("PYTHONPATH")) if p)
    limit = timeout * len(ids) + 600
    with contextlib.ExitStack() as locks, open(folder / "harness.log", "w") as log:
        for i in ids:   # sorted: two batches never wait for each other in a circle
            locks.enter_context(machine_lock(f"sweb-grade-{i}.lock"))
        try:
            exit_code = subprocess.run(command, cwd=folder, env=run_env, stdout=log, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, timeout=limit).returncode
        except subprocess.TimeoutExpired:
            exit_code = -1
            log.write(f"\nthe harness ran past {limit} s and was stopped\n")
        finally:
            _remove_containers(run_id)
    seconds = round(time.monotonic() - started, 1)
    grades = {}
    for i in ids:
        outcome, reason, report = verdict(folder, run_id, i, exit_code)
        grades[i] = Grade(i, outcome, reason, str(folder), seconds, run_id, report)
    if any("did not build" in g.reason for g in grades.values()):
        # a failed classic build keeps its last intermediate image, untagged: remove those of the
        # study's instances (their label), never anything else
        from .task_repo import IMAGE_LABEL

        docker("image", "prune", "-f", "--filter", f"label={IMAGE_LABEL}", check=False, timeout=120)
    extra["harness_exit"] = exit_code
    _write_record(folder, grades, extra)
    return grades


def _remove_containers(run_id: str) -> None:
    """Remove any container of this run the harness left (it removes its own; this is the net)."""
    try:
        found = docker("ps", "-aq", "--filter", f"name=.{run_id}", check=False, timeout=30).stdout.split()
        if found:
            docker("rm", "-f", *found, check=False, timeout=60)
    except (OSError, subprocess.SubprocessError):
        pass


def regrade(folder: Path, task_repo: Path | None = None, dataset: Path | None = None) -> dict[str, Grade]:
    """Every verdict of a grading again, from what it kept in ``folder``, each report recomputed
    with the harness's own ``get_eval_report`` over its ``test_output.txt`` (no docker): what an
    audit runs. The instances' specs come from ``task_repo`` or ``dataset`` (an export), as they
    were graded. Instance id -> Grade."""
    from swebench.harness.grading import get_eval_report
    from swebench.harness.utils import make_test_spec

    def instance(instance_id: str) -> dict:
        if task_repo is not None:
            from swebench.task.repo import load_task_repo

            return load_task_repo(task_repo, [instance_id])[0]
        from swebench.harness.utils import load_swebench_dataset

        return load_swebench_dataset(str(dataset), "test", [instance_id])[0]

    folder = Path(folder)
    recorded = json.loads((folder / "grade.json").read_text())
    run_id, exit_code = recorded["run_id"], recorded["harness_exit"]
    grades = {}
    for instance_id, was in recorded["grades"].items():
        if exit_code is None:   # refused before the harness ran (docker or the harness missing)
            grades[instance_id] = Grade(instance_id, was["outcome"], was["reason"], str(folder), 0.0, run_id)
            continue
        test_output = _instance_dir(folder, run_id, instance_id) / "test_output.txt"
        report = None
        if test_output.is_file():
            predictions = [json.loads(line) for line in (folder / "predictions.jsonl").read_text().splitlines()]
            prediction = next(p for p in predictions if p["instance_id"] == instance_id)
            spec = make_test_spec(instance(instance_id))
            report = get_eval_report(spec, prediction, str(test_output), include_tests_status=True)[instance_id]
        outcome, reason, report = verdict(folder, run_id, instance_id, exit_code, report)
        grades[instance_id] = Grade(instance_id, outcome, reason, str(folder), 0.0, run_id, report)
    return grades
