"""The study's own SWE-bench task repo: small real repositories with real bugs, made from text.

SWE-bench Verified needs a dataset hub and a registry of images, neither reachable here; the
official harness also grades a *task repo* (``swebench/task/repo.py``: one folder per instance
with task.yaml, tests.json, problem_statement.md, gold.patch, test.patch, eval.sh, Dockerfile),
which is what this module writes, from the sources kept in ``instances/``:

- ``instances/<name>/instance.yaml``: the instance's metadata (id, repo, version, dates,
  difficulty), the base commit's history (which files each commit adds, with a fixed author and
  dates) and the test names (FAIL_TO_PASS, PASS_TO_PASS);
- ``repo/`` the tree at the base commit; ``gold/`` the fixed source files; ``test/`` the test
  files after the test patch; ``wrong/`` a plausible fix that is not one (for the grading tests);
  ``problem_statement.md``, the issue as a user wrote it.

The repository is made with git under a fixed author, committer and dates, with no user or system
git configuration read, so its base commit's sha is the same on every machine
(:func:`make_repository`); the patches are ``git diff`` of the overlays against it. Each
instance's image is built by the harness from its Dockerfile: ``FROM`` the local base image
(``base_image.py``), the repository cloned from a git bundle into ``/testbed`` at the base commit
(the build context holds only the bundle: ``.dockerignore``), nothing else, so it builds in
seconds. The image name is the one the harness derives, ``swebench/sweb.eval.x86_64.<id with
"__" as "_1776_">:latest`` (``swebench.task.checks.expected_image``).

The agent's workspace is :func:`make_repository` of ``repo/`` alone: nothing of gold/, test/,
wrong/ or the test names reaches it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

INSTANCES = Path(__file__).resolve().parent / "instances"
NAMESPACE = "swebench"
DATASET = "study/swebench-fixtures"
SPLIT = "test"
LOG_PARSER = "parse_log_pytest"
EVAL_TYPE = "pass_and_fail"
#: the heredoc delimiter of the official eval scripts
EOF_MARK = "EOF_114329324912"


@dataclass(frozen=True)
class Instance:
    """One instance's sources (a folder of ``instances/``)."""

    folder: Path
    meta: dict

    @property
    def instance_id(self) -> str:
        return self.meta["instance_id"]

    @property
    def problem_statement(self) -> str:
        return (self.folder / "problem_statement.md").read_text()

    def files(self, overlay: str) -> dict[str, str]:
        """Path (relative, posix) -> text of every file under ``overlay`` (repo, gold, test, wrong)."""
        root = self.folder / overlay
        return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*"))
                if p.is_file() and "__pycache__" not in p.parts}


def instances(names: list[str] | None = None) -> list[Instance]:
    """The instances kept in ``instances/`` (or those whose folder or id is in ``names``)."""
    found = [Instance(d, yaml.safe_load((d / "instance.yaml").read_text()))
             for d in sorted(INSTANCES.iterdir()) if (d / "instance.yaml").is_file()]
    if names is not None:
        found = [i for i in found if i.folder.name in names or i.instance_id in names]
    return found


def image_name(instance_id: str, namespace: str = NAMESPACE) -> str:
    """The image name the harness derives for an instance (as ``swebench.task.checks.expected_image``)."""
    return f"{namespace}/sweb.eval.x86_64.{instance_id}:latest".lower().replace("__", "_1776_")


# -- git, isolated and deterministic ------------------------------------------------------------

def _git_env(author: dict | None = None, date: str | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C", TZ="UTC")
    if author:
        env.update(GIT_AUTHOR_NAME=author["name"], GIT_AUTHOR_EMAIL=author["email"],
                   GIT_COMMITTER_NAME=author["name"], GIT_COMMITTER_EMAIL=author["email"])
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return env


def git(repo: Path, *args: str, author: dict | None = None, date: str | None = None) -> str:
    """Run git in ``repo`` with no user or system configuration; its output (raises on failure)."""
    done = subprocess.run(["git", "-c", "core.autocrlf=false", "-c", "core.fileMode=true",
                           "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", *args],
                          cwd=repo, env=_git_env(author, date), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done.stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o644)


def make_repository(instance: Instance, dest: Path) -> str:
    """Make ``dest`` a git repository holding ``repo/`` committed as the instance's history says,
    its work tree clean at the base commit; return that commit's sha (the same everywhere)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    tree = instance.files("repo")
    committed: set[str] = set()
    git(dest, "init", "-q")
    for commit in instance.meta["history"]:
        files = {rel: tree[rel] for rel in commit["files"]}
        _write(dest, files)
        git(dest, "add", "--", *files)
        git(dest, "commit", "-q", "--no-verify", "-m", commit["message"],
            author=instance.meta["author"], date=commit["date"])
        committed |= set(files)
    left = sorted(set(tree) - committed)
    if left:
        raise ValueError(f"{instance.folder.name}: repo/ files no commit of the history adds: {left}")
    sha = git(dest, "rev-parse", "HEAD").strip()
    if instance.meta.get("base_commit") not in (None, sha):
        raise ValueError(f"{instance.folder.name}: the base commit is {sha}, not the "
                         f"{instance.meta['base_commit']} instance.yaml records")
    return sha


_diffs: dict[str, str] = {}


def diff_of(instance: Instance, overlay: str) -> str:
    """The unified diff (``git diff``) that turns the base tree into base + ``overlay`` (kept per
    content: the same sources give the same diff without making the repository again)."""
    content = json.dumps([instance.meta, instance.files("repo"), instance.files(overlay)], sort_keys=True)
    key = hashlib.sha256(content.encode()).hexdigest()
    if key not in _diffs:
        _diffs[key] = _make_diff(instance, overlay)
    return _diffs[key]


def _make_diff(instance: Instance, overlay: str) -> str:
    with tempfile.TemporaryDirectory(prefix="sweb-diff-") as tmp:
        repo = Path(tmp) / "repo"
        make_repository(instance, repo)
        _write(repo, instance.files(overlay))
        git(repo, "add", "-A")
        return git(repo, "diff", "--cached", "--no-color", "--no-ext-diff", "HEAD")


def _diff_files(patch: str) -> list[str]:
    return [line.split(" b/", 1)[1] for line in patch.splitlines() if line.startswith("diff --git ")]


# -- the task folder ----------------------------------------------------------------------------

def eval_script(base_commit: str, test_patch: str, test_names: list[str]) -> str:
    """eval.sh as the official ones are made: reset the test files, apply the test patch, run the
    tests between the two markers the harness grades by, reset the test files again. It runs the
    test files of the test patch and those of every graded test (``test_names``,
    ``path::name``), so no FAIL_TO_PASS or PASS_TO_PASS test is missing from the log."""
    patched = _diff_files(test_patch)
    tests = " ".join(patched)
    run = " ".join(sorted(set(patched) | {name.split("::", 1)[0] for name in test_names}))
    return "\n".join([
        "#!/bin/bash",
        "set -uxo pipefail",
        "cd /testbed",
        "git status",
        "git show --stat",
        f"git -c core.fileMode=false diff {base_commit}",
        f"git checkout {base_commit} -- {tests}",
        f"git apply -v - <<'{EOF_MARK}'",
        test_patch.rstrip("\n"),
        EOF_MARK,
        ": '>>>>> Start Test Output'",
        f"python3 -m pytest -rA -p no:cacheprovider {run}",
        ": '>>>>> End Test Output'",
        f"git checkout {base_commit} -- {tests}",
        "",
    ])


#: Every image (and every intermediate image of a failed build) of the study's instances has it.
IMAGE_LABEL = "org.sop-fidelity-study.instance"


def dockerfile(base_commit: str, base_image: str, instance_id: str = "") -> str:
    return "\n".join([
        f"FROM {base_image}",
        f"LABEL {IMAGE_LABEL}={instance_id or 'yes'}",
        "COPY repo.bundle /tmp/repo.bundle",
        "RUN git clone --quiet /tmp/repo.bundle /testbed \\",
        f" && git -C /testbed checkout --quiet --detach {base_commit} \\",
        " && git -C /testbed remote remove origin \\",
        " && rm /tmp/repo.bundle \\",
        f' && test "$(git -C /testbed rev-parse HEAD)" = {base_commit}',
        "WORKDIR /testbed",
        "",
    ])


def task_record(instance: Instance, base_commit: str) -> dict:
    """task.yaml's content (the instance's metadata the harness reads)."""
    meta = instance.meta
    return {
        "instance_id": instance.instance_id, "repo": meta["repo"], "version": str(meta["version"]),
        "base_commit": base_commit, "environment_setup_commit": base_commit,
        "created_at": meta["created_at"], "difficulty": meta["difficulty"],
        "split": SPLIT, "datasets": [DATASET], "image": image_name(instance.instance_id),
        "log_parser": LOG_PARSER, "eval_type": EVAL_TYPE,
    }


def write_task(instance: Instance, tasks_dir: Path, base_image: str) -> Path:
    """Write one instance's task folder (and its build context: repo.bundle, .dockerignore)."""
    folder = Path(tasks_dir) / instance.instance_id
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="sweb-task-") as tmp:
        repo = Path(tmp) / "repo"
        base_commit = make_repository(instance, repo)
        git(repo, "bundle", "create", "-q", str(folder / "repo.bundle"), "main")
    gold, test = diff_of(instance, "gold"), diff_of(instance, "test")
    (folder / "task.yaml").write_text(yaml.safe_dump(task_record(instance, base_commit), sort_keys=True))
    (folder / "tests.json").write_text(json.dumps(
        {"FAIL_TO_PASS": instance.meta["FAIL_TO_PASS"], "PASS_TO_PASS": instance.meta["PASS_TO_PASS"]},
        indent=2) + "\n")
    (folder / "problem_statement.md").write_text(instance.problem_statement)
    (folder / "gold.patch").write_text(gold)
    (folder / "test.patch").write_text(test)
    (folder / "eval.sh").write_text(eval_script(base_commit, test, instance.meta["FAIL_TO_PASS"]
                                                + instance.meta["PASS_TO_PASS"]))
    (folder / "Dockerfile").write_text(dockerfile(base_commit, base_image, instance.instance_id))
    # only the bundle is the image's: the patches beside it never reach the daemon
    (folder / ".dockerignore").write_text("*\n!repo.bundle\n")
    return folder


def build_task_repo(out: Path, base_image: str, names: list[str] | None = None) -> Path:
    """Write the task repo (``sweb.yaml`` and ``tasks/<id>/``) of the instances into ``out``."""
    out = Path(out)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    (out / "sweb.yaml").write_text(yaml.safe_dump({"datasets": [DATASET], "splits": [SPLIT]}))
    for instance in instances(names):
        write_task(instance, out / "tasks", base_image)
    return out


def build_image(task_repo_dir: Path, instance_id: str) -> str:
    """Build the instance's image from its task folder with ``docker build`` (the agent's session
    runs in it; grading builds its own afresh through the harness); return its name."""
    folder = Path(task_repo_dir) / "tasks" / instance_id
    name = image_name(instance_id)
    done = subprocess.run(["docker", "build", "--quiet", "--tag", name, str(folder)], capture_output=True,
                          text=True, env={**os.environ, "DOCKER_BUILDKIT": "0"})
    if done.returncode != 0:
        raise RuntimeError(f"the image of {instance_id} did not build: {done.stderr.strip()[-500:]}")
    return name
