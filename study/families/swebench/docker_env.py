"""Is docker here, and the official harness? One line each when not, saying what to do.

Everything the family runs in docker asks :func:`docker_problem` first, so a machine without
docker gives one line naming the install (``scripts/docker-up``), never a traceback, and a
grading on it is an *infrastructure failure*, never "unresolved".
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
DOCKER_UP = ROOT / "scripts" / "docker-up"
HARNESS_VERSION = "5.0.2"
HARNESS_INSTALL = "pip install --require-hashes -r requirements-swebench.lock"


def docker_problem(env: dict[str, str] | None = None, buildx: bool = True) -> str | None:
    """None when the docker client is installed, its daemon answers and (``buildx``) ``docker
    buildx`` answers; else one line saying what is missing and what to run."""
    env = dict(os.environ if env is None else env)
    if shutil.which("docker", path=env.get("PATH")) is None:
        return ("docker is not installed: run scripts/docker-up (it installs Debian's docker.io and "
                "starts dockerd), or install Docker yourself")
    try:
        info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], env=env,
                              capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "the docker daemon did not answer within 30 s: check dockerd, or run scripts/docker-up"
    if info.returncode != 0:
        said = (info.stderr.strip().splitlines() or ["no answer"])[-1]
        return f"the docker daemon does not answer ({said}): run scripts/docker-up (as root)"
    if buildx:
        done = subprocess.run(["docker", "buildx", "version"], env=env, capture_output=True, text=True)
        if done.returncode != 0:
            return ("docker buildx is missing (the official harness builds images with it): run "
                    "scripts/docker-up, which installs a shim when no buildx is to be had")
    return None


def harness_problem() -> str | None:
    """None when the official harness (``swebench`` at the locked version) imports; else one line."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        found = version("swebench")
    except PackageNotFoundError:
        return f"the official SWE-bench harness is not installed: {HARNESS_INSTALL}"
    if found != HARNESS_VERSION:
        return f"swebench {found} is installed, the study locks {HARNESS_VERSION}: {HARNESS_INSTALL}"
    return None


def docker(*args: str, check: bool = True, timeout: float | None = 120,
           input: str | None = None) -> subprocess.CompletedProcess:
    """Run the docker client; its completed process (CalledProcessError when ``check`` and it failed)."""
    return subprocess.run(["docker", *args], capture_output=True, text=True, check=check,
                          timeout=timeout, input=input)


@contextlib.contextmanager
def machine_lock(name: str) -> Iterator[None]:
    """Hold the machine-wide lock ``name`` (a file of the temporary folder, locked with flock) while
    the block runs: work the one docker daemon does for every process of the machine (an image
    built, an instance graded), which two sessions must not do at once."""
    with open(Path(tempfile.gettempdir()) / name, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
