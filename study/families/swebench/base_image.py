"""The local base image every instance image of the study's own task repo is built FROM.

No image registry is reachable here, so the base comes from Debian's packages:
``debootstrap --variant=minbase --include=<RECIPE's packages> bookworm DIR <mirror>``, then
``tar -C DIR -c . | docker import - NAME``. It is built once per machine and reused: its name
carries a hash of its recipe (:data:`RECIPE`), and :func:`ensure_base_image` builds only when no
image of that name exists. Two builds never run at once (a file lock); a second caller waits for
the first and then finds the image.

This module imports only the standard library, so ``scripts/swebench-base-image`` runs it as a
file with the machine's ``python3`` before the package or its locks are installed (CI starts it
in the background while pip works)::

    scripts/swebench-base-image            # build if missing; print the image name
    scripts/swebench-base-image --name     # only print the name the recipe gives
    scripts/swebench-base-image --wait     # wait for a build in progress; exit 1 if no image

Measured on the 2-core development machine: about 2.5 minutes and 400 MB (docs/swebench.md).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: Everything that decides what the base image holds. Change any of it and the name changes, so
#: every instance image (whose Dockerfile names the base) is rebuilt on a base of the new recipe.
RECIPE = {
    "recipe": 1,
    "tool": "debootstrap",
    "suite": "bookworm",
    "variant": "minbase",
    "arch": "amd64",
    # python3-pytest: the instances' tests; git: the harness applies patches with git apply;
    # patch: the harness's last fallback (`patch --batch --fuzz=5`); python3-venv: a venv for
    # an instance that needs more than the standard library
    "include": ["git", "patch", "python3", "python3-pytest", "python3-venv"],
    "changes": ['ENV LANG=C.UTF-8',
                'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
                'CMD ["/bin/bash"]'],
}
REPOSITORY = "localhost/sweb-study-base"
LOCK = Path(tempfile.gettempdir()) / "sweb-study-base.lock"
MIRROR_ENV = "SWEBENCH_DEBIAN_MIRROR"
FALLBACK_MIRROR = "http://deb.debian.org/debian"


class BaseImageError(RuntimeError):
    """The base image could not be built (the message says why and what to do)."""


def recipe_hash(recipe: dict = RECIPE) -> str:
    """The first 12 hex digits of the sha256 of the recipe as canonical JSON."""
    canonical = json.dumps(recipe, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:12]


def image_name(recipe: dict = RECIPE) -> str:
    """``localhost/sweb-study-base:<recipe hash>``. The ``localhost/`` registry part makes the
    name one no public registry can answer: a missing base fails at once, never pulls a stranger."""
    return f"{REPOSITORY}:{recipe_hash(recipe)}"


def debian_mirror(sources_dir: Path = Path("/etc/apt")) -> str:
    """The Debian archive the machine's apt uses (not its security archive): ``$SWEBENCH_DEBIAN_MIRROR``
    if set, else the first ``URIs:``/``deb`` line of the apt sources naming the suite."""
    if os.environ.get(MIRROR_ENV):
        return os.environ[MIRROR_ENV]
    files = [sources_dir / "sources.list", *sorted((sources_dir / "sources.list.d").glob("*"))]
    suite = RECIPE["suite"]
    for path in files:
        try:
            text = path.read_text()
        except OSError:
            continue
        # deb822 (.sources): a stanza with URIs: and Suites: naming the suite itself
        for stanza in re.split(r"\n\s*\n", text):
            uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
            suites = re.search(r"^Suites:\s*(.+)$", stanza, re.M)
            if uris and suites and suite in suites.group(1).split() and "security" not in uris.group(1):
                return uris.group(1)
        # one-line format: deb [opts] URI SUITE COMPONENTS...
        for match in re.finditer(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", text, re.M):
            if match.group(2) == suite and "security" not in match.group(1):
                return match.group(1)
    return FALLBACK_MIRROR


def image_exists(name: str) -> bool:
    """Whether the docker daemon has an image called ``name``."""
    return subprocess.run(["docker", "image", "inspect", name], capture_output=True).returncode == 0


@contextlib.contextmanager
def _build_lock(lock: Path = LOCK):
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _run(command: list[str] | str, log, **kwargs) -> None:
    log.write(f"$ {command if isinstance(command, str) else ' '.join(command)}\n")
    log.flush()
    done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, **kwargs)
    if done.returncode != 0:
        raise BaseImageError(f"base image: {command if isinstance(command, str) else command[0]} "
                             f"failed with exit {done.returncode} (log: {getattr(log, 'name', '?')})")


def build_base_image(name: str | None = None, log=None, workdir: Path | None = None) -> float:
    """Build the base image now (no existence check): debootstrap, clean, docker import.
    Returns the seconds it took. Needs root, debootstrap and a running dockerd."""
    name = name or image_name()
    log = log or sys.stderr
    if shutil.which("debootstrap") is None and not Path("/usr/sbin/debootstrap").exists():
        raise BaseImageError("base image: debootstrap is missing: run scripts/docker-up (it installs it)")
    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="sweb-study-base-", dir=workdir or "/var/tmp"))
    try:
        env = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin", DEBIAN_FRONTEND="noninteractive")
        _run(["debootstrap", f"--variant={RECIPE['variant']}", f"--arch={RECIPE['arch']}",
              f"--include={','.join(RECIPE['include'])}", RECIPE["suite"], str(root), debian_mirror()],
             log, env=env)
        for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
            for path in (root / leftover).glob("*"):
                if path.is_file():
                    path.unlink()
        changes = [arg for change in RECIPE["changes"] for arg in ("--change", change)]
        changes += ["--change", f"LABEL org.sop-fidelity-study.base-recipe={recipe_hash()}"]
        tar = subprocess.Popen(["tar", "-C", str(root), "--numeric-owner", "-c", "."], stdout=subprocess.PIPE)
        try:
            _run(["docker", "import", *changes, "-", name], log, stdin=tar.stdout)
        finally:
            tar.stdout.close()
            tar.wait()
        if tar.returncode != 0:
            raise BaseImageError(f"base image: tar of {root} failed with exit {tar.returncode}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return time.monotonic() - started


def ensure_base_image(log=None) -> str:
    """The base image's name, built first if no image of that name exists (waiting for another
    build of it in progress). Raises :class:`BaseImageError` with what to do."""
    name = image_name()
    if image_exists(name):
        return name
    with _build_lock():
        if not image_exists(name):
            seconds = build_base_image(name, log=log)
            (log or sys.stderr).write(f"base image {name} built in {seconds:.0f} s\n")
    if not image_exists(name):
        raise BaseImageError(f"base image {name} is missing after its build")
    return name


def wait_for_base_image(timeout: float = 900) -> str:
    """Wait for a build in progress (the lock) and return the name; BaseImageError if there is
    still no image then (none was started: run scripts/swebench-base-image)."""
    name = image_name()
    deadline = time.monotonic() + timeout
    with open(LOCK, "a") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise BaseImageError(f"base image {name}: its build did not finish within {timeout:.0f} s")
                time.sleep(1)
    if not image_exists(name):
        raise BaseImageError(f"base image {name} does not exist: build it with scripts/swebench-base-image")
    return name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="swebench-base-image", description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--name", action="store_true", help="print the image name the recipe gives, nothing else")
    group.add_argument("--wait", action="store_true", help="wait for a build in progress, then check the image")
    parser.add_argument("--timeout", type=float, default=900, help="seconds --wait waits (default 900)")
    args = parser.parse_args(argv)
    try:
        if args.name:
            print(image_name())
        elif args.wait:
            print(wait_for_base_image(args.timeout))
        else:
            print(ensure_base_image())
    except BaseImageError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
