"""``requirements-swebench.lock`` installs the ``swebench`` extra (the official SWE-bench harness)
on top of ``requirements.lock`` and beside the other extras' locks without moving any version
they pin (docs/dependencies.md, "The SWE-bench lock")."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)
OTHERS = ("requirements.lock", "requirements-inspect.lock", "requirements-tau2.lock", "requirements-staged.lock")


def _pins(name: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for package, version in PIN.findall((ROOT / name).read_text()):
        found[re.sub(r"[-_.]+", "-", package).lower()].add(version)
    return found


@pytest.mark.parametrize("other", OTHERS)
def test_every_package_both_locks_pin_has_the_other_locks_versions(other):
    theirs, ours = _pins(other), _pins("requirements-swebench.lock")
    # a lock with markers pins a package at one version per Python: ours must be among them
    moved = {name: (theirs[name], versions) for name, versions in ours.items()
             if name in theirs and not versions <= theirs[name]}
    assert not moved, f"requirements-swebench.lock moves pins of {other} (recompile it): {moved}"


def test_the_swebench_lock_satisfies_the_extra_and_is_hash_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _pins("requirements-swebench.lock")
    for line in project["optional-dependencies"]["swebench"]:
        requirement = Requirement(line)
        versions = pins[requirement.name.lower()]
        assert versions and all(requirement.specifier.contains(v) for v in versions), (line, versions)
    text = (ROOT / "requirements-swebench.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    assert entries and all("--hash=sha256:" in entry for entry in entries), "every pin carries its hashes"
