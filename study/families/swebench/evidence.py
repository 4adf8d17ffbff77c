"""The SWE-bench family's ``evidence`` part: a session's verdict re-derived from its evidence (issue
50), never read from its ``outcome`` event.

``rederive(session_dir, events, study) -> (fields | None, problems)``:

- the task is the study's frozen list's at the session's position (``session_start.seed``), never
  the log's word; the log's ``order`` must name it, its ``base_commit`` the task's;
- the patch and the process measures are ``measures.measures`` over the session's workspace
  (``workspace/``: the repository and its history, as the session left it), exactly as the run
  computed them at its end;
- the verdict is the official harness's, recomputed from what the grading kept in ``grading/``
  (``grading.regrade``: the harness's own ``get_eval_report`` over the kept test output, no
  docker), on the task repo kept there (a local instance) or the export (a Verified one); the
  patch the harness graded (``predictions.jsonl``) must be the workspace's final patch.

``INFORMATIONAL``: the grading run's id and seconds (recorded, not re-derived; no table counts
them as a verdict). A voided session was never graded: None, and then it must hold no outcome.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from study.session_io.git_evidence import borrowed

INFORMATIONAL = ("grading_run", "grading_s")
WORKSPACE, GRADING = "workspace", "grading"


def rederive(session_dir: Path, events: list[dict[str, Any]], study: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The outcome's fields as the session's evidence gives them, or the problems that stop it."""
    from study.protocol.evidence_study import log_ends, read_family_study
    from study.session_io.vocabulary import status_voids

    from .family import FAMILY, SweBenchStudyError, order_of, source_of

    session_dir = Path(session_dir)
    start, end = log_ends(events)
    read, problems = read_family_study(study, FAMILY.name, lambda d: (source_of(d), order_of(d)),
                                       errors=(SweBenchStudyError,), whose="SWE-bench's", unknown="task")
    if problems:
        return None, problems
    source, order = read
    seed = start.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 1 <= seed <= len(order):
        return None, [f"its position {seed!r} is not one of study {study}'s task list (1-{len(order)})"]
    instance_id = order[seed - 1]
    if start.get("order") != [instance_id]:
        return None, [f"its log names task {start.get('order')!r}, position {seed} of study {study} is {instance_id!r}"]
    if end is not None and status_voids(end.get("status")):
        return None, []
    base = _base_commit(source, instance_id)
    if base is None or start.get("base_commit") != base:
        return None, [f"its log's base commit {start.get('base_commit')!r} is not the task's ({base!r})"]
    workspace, grading = session_dir / WORKSPACE, session_dir / GRADING
    if not (workspace / ".git").is_dir() or borrowed(workspace / ".git") is not None:
        return None, ["its workspace is not a git repository of its own: the patch and the phase log cannot be read"]
    from .measures import WorkspaceError, final_patch, measures

    try:
        patch = final_patch(workspace, base)
        found = measures(workspace, base, patch)
    except WorkspaceError as exc:
        return None, [f"its workspace's history cannot be read: {exc}"]
    graded, problems = _regraded(grading, instance_id, source, patch)
    if graded is None:
        return None, problems
    from .family import tests_passed

    return {"instance_id": instance_id, "tasks": source, "verdict": graded.outcome, "resolved": graded.resolved,
            "reason": graded.reason, **tests_passed(graded.report), **found}, []


def _base_commit(source: str, instance_id: str) -> str | None:
    if source == "local":
        from .task_repo import instances

        found = instances([instance_id])
        return found[0].meta.get("base_commit") if found else None
    from .verified import metadata_of, row

    found = metadata_of(instance_id)
    if found is None:   # an instance the vendored metadata lacks: the export's row (checked against nothing)
        try:
            found = row(instance_id)
        except ValueError:
            return None
    return found.get("base_commit")


def _regraded(grading: Path, instance_id: str, source: str, patch: str) -> tuple[Any, list[str]]:
    from .grading import INFRASTRUCTURE_FAILURE, regrade

    record, predictions = grading / "grade.json", grading / "predictions.jsonl"
    if not record.is_file() or not predictions.is_file():
        return None, ["the grading kept no grade.json and predictions.jsonl (grading/): the verdict cannot be re-derived"]
    try:
        rows = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        return None, [f"grading/predictions.jsonl cannot be read: {exc}"]
    graded = next((r.get("model_patch") for r in rows if isinstance(r, dict) and r.get("instance_id") == instance_id),
                  None)
    if graded is None:
        return None, [f"grading/predictions.jsonl holds no patch of {instance_id}"]
    if hashlib.sha256(str(graded).encode()).hexdigest() != hashlib.sha256(patch.encode()).hexdigest():
        return None, ["the patch the harness graded is not the workspace's final patch"]
    try:
        if source == "local":
            grades = regrade(grading, task_repo=grading / "task-repo")
        else:
            from .verified import export_path, export_problem

            problem = export_problem()
            if problem is not None:
                return None, [f"a Verified session's verdict is re-derived from the dataset's export: {problem}"]
            grades = regrade(grading, dataset=export_path())
    except Exception as exc:    # the kept files are untrusted: any failure to read them is a problem, named
        return None, [f"the harness's kept report cannot be re-derived: {type(exc).__name__}: {exc}"]
    found = grades.get(instance_id)
    if found is None:
        return None, [f"grading/grade.json holds no verdict of {instance_id}"]
    if found.outcome == INFRASTRUCTURE_FAILURE:
        return None, [f"the kept grading is an infrastructure failure ({found.reason}): the session should be voided"]
    return found, []
