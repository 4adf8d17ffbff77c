"""Each extra's lock (``requirements-<extra>.lock``) installs its extra on top of
``requirements.lock`` and beside the other extras' locks without moving any version they pin, and
pins every file by its sha256 (docs/dependencies.md: the Inspect, τ²-bench, staged-protocols and
SWE-bench locks). CI installs them one on top of another (``.ci/run``), so a pin one lock moves
would be another lock's broken install."""

from __future__ import annotations

import itertools
import re
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)
EXTRAS = ("inspect", "tau2", "staged", "swebench")
MAIN = "requirements.lock"


def _lock(extra: str) -> str:
    return f"requirements-{extra}.lock"


def _pins(name: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for package, version in PIN.findall((ROOT / name).read_text()):
        found[re.sub(r"[-_.]+", "-", package).lower()].add(version)
    return found


def test_every_extra_of_pyproject_has_its_lock_here():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    locked = {extra for extra in project["optional-dependencies"] if (ROOT / _lock(extra)).is_file()}
    assert locked == set(EXTRAS)


@pytest.mark.parametrize("extra", EXTRAS)
def test_an_extras_lock_moves_no_version_the_main_lock_pins(extra):
    main, ours = _pins(MAIN), _pins(_lock(extra))
    # a lock with markers pins a package at one version per Python: ours must be among them
    moved = {name: (main[name], versions) for name, versions in ours.items() if name in main and not versions <= main[name]}
    assert not moved, f"{_lock(extra)} moves pins of {MAIN} (recompile it): {moved}"


@pytest.mark.parametrize("one,other", list(itertools.combinations(EXTRAS, 2)))
def test_two_extras_locks_pin_one_version_of_what_both_pin(one, other):
    a, b = _pins(_lock(one)), _pins(_lock(other))
    differ = {name: (a[name], b[name]) for name in a.keys() & b.keys() if not (a[name] <= b[name] or b[name] <= a[name])}
    assert not differ, f"{_lock(one)} and {_lock(other)} pin different versions (recompile the later one): {differ}"


@pytest.mark.parametrize("extra", EXTRAS)
def test_an_extras_lock_satisfies_its_extra_and_is_hash_pinned(extra):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _pins(_lock(extra))
    for line in project["optional-dependencies"][extra]:
        requirement = Requirement(line)
        versions = pins[requirement.name.lower()]
        assert versions and all(requirement.specifier.contains(v) for v in versions), (line, versions)
    text = (ROOT / _lock(extra)).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    assert entries and all("--hash=sha256:" in entry for entry in entries), f"every pin of {_lock(extra)} carries its hashes"
