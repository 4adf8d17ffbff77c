"""Where a session's task comes from: the package's own instances, or SWE-bench Verified.

A study names its task set's source (``params.tasks``):

- ``local``: the study's own instances (``instances/``, ``task_repo.py``): the repository made
  from text at its base commit, the session's image built here FROM the local base image (named
  by the hash of its Dockerfile, built once per machine and reused), graded by the official
  harness on the task repo written for the instance. Everything is on this machine.
- ``verified``: SWE-bench Verified (``verified.py``): the instance's row (its problem statement,
  and for the grading its patches and tests) from a local export of the dataset
  (``$STUDY_SWEBENCH_DATASET``), its image the harness's published one
  (``swebench/sweb.eval.x86_64.<id>:latest``, pulled from Docker Hub beforehand), the workspace a
  copy of the image's ``/testbed`` (the repository at its base commit, with what the image built
  in it), which the session's container mounts at its own path and at ``/testbed`` (the image's
  installed package points there); graded by the harness on the export. ``verified.unit_problem``
  says in one line what is missing before a real run starts.

:class:`Task` is what the session needs of its instance; the grading data (gold patch, test patch,
test names) is not in it: :func:`grade` and :func:`ground_truth` (the simulator's) fetch them from
the source when they are needed, after the agent's CLI has ended or inside the simulator.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import task_repo
from .docker_env import docker, machine_lock

LOCAL, VERIFIED = "local", "verified"
SOURCES = (LOCAL, VERIFIED)
#: The image of a local instance's sessions: ``<repository>.<instance slug>:<hash of its Dockerfile>``.
SESSION_REPOSITORY = "localhost/sweb-study-session"


@dataclass(frozen=True)
class Task:
    """One instance as a session sees it: nothing of the grading."""

    source: str
    instance_id: str
    repo: str
    base_commit: str
    problem_statement: str
    #: the path the image's installed package points at, mounted to the workspace too (None: none)
    testbed: str | None = None


def task(source: str, instance_id: str) -> Task:
    """The task of ``instance_id`` from ``source`` (ValueError: it has none)."""
    if source == LOCAL:
        found = task_repo.instances([instance_id])
        if not found:
            raise ValueError(f"no instance {instance_id!r} among the study's own instances "
                             f"({', '.join(i.instance_id for i in task_repo.instances())})")
        instance = found[0]
        return Task(LOCAL, instance.instance_id, instance.meta["repo"], instance.meta["base_commit"],
                    instance.problem_statement)
    if source == VERIFIED:
        from . import verified

        row = verified.row(instance_id)
        return Task(VERIFIED, instance_id, row["repo"], row["base_commit"], row["problem_statement"], "/testbed")
    raise ValueError(f"no task source {source!r}: the sources are {', '.join(SOURCES)}")


# -- the workspace --------------------------------------------------------------------------------

def make_workspace(task_: Task, dest: Path, image: str | None = None) -> str:
    """Make ``dest`` the repository at the task's base commit; return the base commit's sha."""
    dest = Path(dest)
    if task_.source == LOCAL:
        return task_repo.make_repository(task_repo.instances([task_.instance_id])[0], dest)
    assert image is not None
    created = docker("create", image, "true", timeout=120).stdout.strip()
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        docker("cp", f"{created}:{task_.testbed}", str(dest), timeout=1800)
    finally:
        docker("rm", "-f", created, check=False, timeout=60)
    sha = task_repo.git(dest, "rev-parse", "HEAD").strip()
    if sha != task_.base_commit:
        raise ValueError(f"the image's {task_.testbed} is at {sha}, not the base commit {task_.base_commit}")
    return sha


# -- the session's image --------------------------------------------------------------------------

def _image_exists(name: str) -> bool:
    return docker("image", "inspect", name, check=False, timeout=60).returncode == 0


def local_image_name(instance_id: str, base_image: str) -> str:
    instance = task_repo.instances([instance_id])[0]
    text = task_repo.dockerfile(instance.meta["base_commit"], base_image, instance_id)
    slug = instance_id.lower().replace("__", "_1776_")
    return f"{SESSION_REPOSITORY}.{slug}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def session_image(task_: Task) -> str:
    """The image the session's commands run in (built first for a local instance, once a machine)."""
    if task_.source == VERIFIED:
        return task_repo.image_name(task_.instance_id)
    from . import base_image

    base = base_image.image_name()
    name = local_image_name(task_.instance_id, base)
    with machine_lock(f"sweb-image-{hashlib.sha256(name.encode()).hexdigest()[:16]}.lock"):
        if _image_exists(name):
            return name
        instance = task_repo.instances([task_.instance_id])[0]
        with tempfile.TemporaryDirectory(prefix="sweb-session-image-") as tmp:
            context = Path(tmp) / "context"
            context.mkdir()
            repo = Path(tmp) / "repo"
            task_repo.make_repository(instance, repo)
            task_repo.git(repo, "bundle", "create", "-q", str(context / "repo.bundle"), "main")
            (context / "Dockerfile").write_text(task_repo.dockerfile(instance.meta["base_commit"], base,
                                                                     task_.instance_id))
            done = subprocess.run(["docker", "build", "--quiet", "--force-rm", "--tag", name, str(context)],
                                  capture_output=True, text=True, env={**os.environ, "DOCKER_BUILDKIT": "0"},
                                  timeout=900)
        if done.returncode != 0:
            raise RuntimeError(f"the session image of {task_.instance_id} did not build: "
                               f"{done.stderr.strip()[-400:]}")
    return name


# -- grading and the simulator's ground truth --------------------------------------------------------

def grade(task_: Task, patch: str, folder: Path):
    """Grade ``patch`` by the official harness, its report and logs kept in ``folder``
    (``grading.Grade``); the task repo (local) is written into ``folder/task-repo`` first."""
    from . import grading

    folder = Path(folder)
    if task_.source == LOCAL:
        from . import base_image

        repo = folder / "task-repo"
        if repo.exists():
            shutil.rmtree(repo)
        task_repo.build_task_repo(repo, base_image.image_name(), [task_.instance_id])
        return grading.grade(task_.instance_id, patch, repo, folder)
    from . import verified

    return grading.grade(task_.instance_id, patch, None, folder, dataset=verified.export_path())


def ground_truth(source: str, instance_id: str) -> dict:
    """What the simulator's agents may read of an instance (never the agent, the FSM or the
    workflow): the fixed files (path -> text) and the files of the test patch (path -> text) of a
    local instance; of a Verified one, the gold and test patches of its row."""
    if source == LOCAL:
        instance = task_repo.instances([instance_id])[0]
        return {"gold_files": instance.files("gold"), "test_files": instance.files("test"),
                "base_files": instance.files("repo"), "wrong_files": instance.files("wrong"),
                "gold_on_host": [str(instance.folder / "gold" / rel) for rel in instance.files("gold")]}
    from . import verified

    row = verified.row(instance_id)
    return {"gold_patch": row.get("patch", ""), "test_patch": row.get("test_patch", "")}
