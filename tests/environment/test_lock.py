"""The lock: this install matches it, it covers every supported Python, and it agrees with the
ranges in pyproject.toml (issue 11: "the README's install yields exactly the locked versions")."""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from study.runtimes import lock as environment
from study.runtimes.lock import installed_versions, lock_mismatches, lock_path, lock_sha256, locked_versions

ROOT = Path(__file__).resolve().parents[2]
#: Every Python minor the lock must serve (requires-python >= 3.11).
PYTHONS = ["3.11.0", "3.12.0", "3.13.0", "3.14.0"]
PLATFORMS = [
    {"sys_platform": "linux", "platform_system": "Linux"},
    {"sys_platform": "darwin", "platform_system": "Darwin"},
    {"sys_platform": "win32", "platform_system": "Windows"},
]


def _environment(python: str, platform: dict[str, str]) -> dict[str, str]:
    return {"python_full_version": python, "python_version": python.rsplit(".", 1)[0], **platform}


def _declared() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [Requirement(r) for r in project["dependencies"] + project["optional-dependencies"]["test"]]


def test_installed_versions_equal_the_lock():
    locked = locked_versions()
    assert len(locked) > 50
    mismatches = lock_mismatches()
    assert mismatches == [], ("installed versions differ from requirements.lock (name, locked, installed); "
                              "install with: pip install --require-hashes -r requirements.lock")
    installed = installed_versions(list(locked))
    assert set(installed) == set(locked)


def test_the_lock_is_the_checkout_file_and_its_hash():
    assert lock_path() == ROOT / environment.LOCK_FILE
    assert lock_sha256() == hashlib.sha256((ROOT / "requirements.lock").read_bytes()).hexdigest()


def test_every_pin_has_hashes():
    blocks = (ROOT / "requirements.lock").read_text().split("\n")
    pins = [i for i, line in enumerate(blocks) if "==" in line and not line.startswith((" ", "#"))]
    assert pins
    for i in pins:
        assert blocks[i].rstrip().endswith("\\") and "--hash=sha256:" in blocks[i + 1], blocks[i]


@pytest.mark.parametrize("python", PYTHONS)
@pytest.mark.parametrize("platform", PLATFORMS, ids=lambda p: p["sys_platform"])
def test_the_lock_serves_every_supported_python_within_the_declared_ranges(python, platform):
    locked = locked_versions(environment=_environment(python, platform))
    for requirement in _declared():
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{name} is declared in pyproject.toml but not locked for Python {python}"
        assert requirement.specifier.contains(locked[name], prereleases=True), (
            f"{name}=={locked[name]} (locked for Python {python}) is outside the declared {requirement}")


def test_a_missing_lock_and_another_lock(tmp_path, monkeypatch):
    monkeypatch.setenv(environment.LOCK_ENV, str(tmp_path / "none.lock"))
    assert lock_sha256() is None
    other = tmp_path / "other.lock"
    other.write_text("click==8.0.0 \\\n    --hash=sha256:00\nnumpy==1.0 ; sys_platform == 'nowhere' \\\n"
                     "    --hash=sha256:00\n")
    monkeypatch.setenv(environment.LOCK_ENV, str(other))
    assert lock_path() == other
    assert locked_versions() == {"click": "8.0.0"}
    assert lock_mismatches() == [("click", "8.0.0", installed_versions(["click"])["click"])]
    assert lock_sha256() == hashlib.sha256(other.read_bytes()).hexdigest()


def test_the_readme_and_ci_install_from_the_lock():
    readme = (ROOT / "README.md").read_text()
    quick_start = readme.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(quick_start) == 2  # two commands: install and run the demo; the tests
    assert quick_start[0] == ("pip install --require-hashes -r requirements.lock && pip install --no-deps -e . && "
                              "study runtime install codex --optional && study demo")
    assert quick_start[1].startswith("python -m pytest -q ")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip_install --require-hashes -r requirements.lock\n" in ci and "pip_install --no-deps -e .\n" in ci
    assert "study runtime install codex\n" in ci   # the Codex CLI from its committed npm lock
    assert ci.rstrip().endswith("python -m pytest -q")


def _requirements_hashes() -> dict[tuple[str, str], set[str]]:
    """(name, version) -> the sha256 hashes requirements.lock allows for that pin."""
    pins: dict[tuple[str, str], set[str]] = {}
    current = None
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        if "==" in line and not line.startswith((" ", "#")):
            name, version = line.split(";")[0].split("==")
            current = (canonicalize_name(name), version.strip(" \\"))
            pins.setdefault(current, set())
        elif "--hash=sha256:" in line and current is not None:
            pins[current].add(line.split("--hash=sha256:")[1].strip(" \\"))
    return pins


def test_pylock_toml_pins_the_same_packages_as_requirements_lock():
    """pylock.toml (PEP 751, the standard lock name tools look for next to pyproject.toml) is
    made by the same resolution: the same packages at the same versions, every file hash one that
    requirements.lock allows (uv leaves out wheels no supported Python can install)."""
    packages = tomllib.loads((ROOT / "pylock.toml").read_text())["packages"]
    locked = _requirements_hashes()
    pylock = {(canonicalize_name(p["name"]), p["version"]): p for p in packages}
    assert set(pylock) == set(locked)
    for pin, package in pylock.items():
        files = [package["sdist"]] if "sdist" in package else []
        hashes = {f["hashes"]["sha256"] for f in files + package.get("wheels", [])}
        assert hashes and hashes <= locked[pin], pin
