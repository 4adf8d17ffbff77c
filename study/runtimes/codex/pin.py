"""The pinned Codex CLI: one exact version from the npm registry, installed with integrity hashes
into a folder the project controls, never on the user's PATH.

``npm/package.json`` names the version (``@openai/codex``, a small JavaScript launcher whose
platform binary arrives as a registry package of its own, e.g. ``@openai/codex-linux-x64``) and
``npm/package-lock.json`` pins every package of every platform with its sha512 integrity hash.
``install()`` copies both into the install folder and runs ``npm ci`` there (``--ignore-scripts``:
nothing of the packages runs at install time), which refuses any file whose hash is not the
lock's; it then checks that the installed version is the pinned one. The lock's sha256 is part of
the frozen runtime (``preregistration/runtime.json``: ``codex_version``, ``codex_lock_sha256``)
and of every Codex session's record (``runtime_lock_sha256``).

The install folder is ``$STUDY_CODEX_DIR`` if set, else ``.runtimes/codex/`` in the checkout
(beside the Python lock; ``STUDY_ROOT`` does not move it: it belongs to the code). Sessions run
the platform binary directly (``binary_path``), with the two variables the npm launcher would
set, so no Node.js process stands between the runner and the CLI; Node.js and npm are needed to
install only.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

NPM_DIR = Path(__file__).resolve().parent / "npm"
PACKAGE = "@openai/codex"
#: Environment variable naming another install folder (tests, or a shared install).
DIR_ENV = "STUDY_CODEX_DIR"
#: What the npm launcher would set for the binary (``@openai/codex/bin/codex.js``): the package
#: manager that owns the install (Codex words its update hints by it) and the package's root.
MANAGED_BY = "CODEX_MANAGED_BY_NPM"
PACKAGE_ROOT = "CODEX_MANAGED_PACKAGE_ROOT"

#: (sys.platform prefix, machine) -> (npm platform package, Rust target triple), as the launcher maps them.
_TARGETS = {
    ("linux", "x86_64"): ("@openai/codex-linux-x64", "x86_64-unknown-linux-musl"),
    ("linux", "aarch64"): ("@openai/codex-linux-arm64", "aarch64-unknown-linux-musl"),
    ("darwin", "x86_64"): ("@openai/codex-darwin-x64", "x86_64-apple-darwin"),
    ("darwin", "arm64"): ("@openai/codex-darwin-arm64", "aarch64-apple-darwin"),
}

INSTALL_HINT = "install it with `study runtime install codex` (needs Node.js and npm; Claude Code needs neither)"


def pinned_version() -> str:
    """The Codex CLI version the package pins (``npm/package.json``)."""
    return json.loads((NPM_DIR / "package.json").read_text(encoding="utf-8"))["dependencies"][PACKAGE]


def lock_sha256() -> str:
    """The sha256 of the committed npm lock (``npm/package-lock.json``)."""
    return hashlib.sha256((NPM_DIR / "package-lock.json").read_bytes()).hexdigest()


def install_dir() -> Path:
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env).expanduser().resolve()
    from study.paths import checkout_root

    return checkout_root() / ".runtimes" / "codex"


def target() -> tuple[str, str] | None:
    """This machine's (npm platform package, target triple), or None where Codex ships no binary."""
    system = "darwin" if sys.platform == "darwin" else "linux" if sys.platform.startswith("linux") else sys.platform
    machine = platform.machine().lower()
    machine = {"amd64": "x86_64", "arm64": "aarch64" if system == "linux" else "arm64"}.get(machine, machine)
    return _TARGETS.get((system, machine))


def package_root(folder: Path | None = None) -> Path:
    return (folder or install_dir()) / "node_modules" / PACKAGE


def binary_path(folder: Path | None = None) -> Path | None:
    """The installed platform binary, or None (not installed, or no binary for this machine)."""
    found = target()
    if found is None:
        return None
    package, triple = found
    path = (folder or install_dir()) / "node_modules" / package / "vendor" / triple / "bin" / "codex"
    return path if path.is_file() else None


def installed_version(folder: Path | None = None) -> str | None:
    """The version of the installed ``@openai/codex`` package (its package.json), or None."""
    try:
        return json.loads((package_root(folder) / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None


def installed_lock_sha256(folder: Path | None = None) -> str | None:
    try:
        return hashlib.sha256(((folder or install_dir()) / "package-lock.json").read_bytes()).hexdigest()
    except OSError:
        return None


def problem(folder: Path | None = None) -> str | None:
    """Why the pinned Codex CLI cannot run here (one line saying what to do), or None."""
    folder = folder or install_dir()
    if target() is None:
        return f"Codex CLI ships no binary for {sys.platform}/{platform.machine()}"
    version = installed_version(folder)
    if version is None or binary_path(folder) is None:
        return f"Codex CLI {pinned_version()} is not installed in {folder}: {INSTALL_HINT}"
    if version != pinned_version():
        return (f"{folder} holds Codex CLI {version}, but the study pins {pinned_version()}: "
                f"reinstall it with `study runtime install codex`")
    if installed_lock_sha256(folder) != lock_sha256():
        return (f"{folder} was installed from another npm lock than study/runtimes/codex/npm/package-lock.json: "
                "reinstall it with `study runtime install codex`")
    return None


def binary_env(folder: Path | None = None) -> dict[str, str]:
    """The variables the npm launcher sets for the binary."""
    return {MANAGED_BY: "1", PACKAGE_ROOT: str(package_root(folder).resolve())}


class InstallError(RuntimeError):
    """The pinned Codex CLI could not be installed (the message says why and what to do)."""


def install(folder: Path | None = None, *, npm: str | None = None, quiet: bool = True) -> Path:
    """Install the pinned Codex CLI into ``folder`` with ``npm ci`` (integrity-checked); return
    the binary's path. Raises InstallError saying what to do."""
    folder = folder or install_dir()
    npm = npm or shutil.which("npm")
    if npm is None:
        raise InstallError("npm is not on PATH: install Node.js (which brings npm), e.g. `apt-get install nodejs npm`, "
                           "then run `study runtime install codex` again; Claude Code sessions need neither")
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(NPM_DIR / name, folder / name)
    command = [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--include=optional"]
    if quiet:
        command.append("--loglevel=error")
    try:
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InstallError(f"`npm ci` in {folder} failed to run: {exc}") from None
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise InstallError(f"`npm ci` in {folder} failed (exit {done.returncode}): {tail}")
    trouble = problem(folder)
    if trouble is not None:
        raise InstallError(trouble)
    path = binary_path(folder)
    assert path is not None
    return path


def binary_version(folder: Path | None = None, timeout_s: float = 30.0) -> str | None:
    """The version the installed binary prints (``codex --version`` says ``codex-cli 0.169.0``)."""
    path = binary_path(folder)
    if path is None:
        return None
    try:
        out = subprocess.run([str(path), "--version"], capture_output=True, text=True, timeout=timeout_s,
                             env={**os.environ, **binary_env(folder)})
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = out.stdout.split()
    return words[-1] if out.returncode == 0 and words else None
