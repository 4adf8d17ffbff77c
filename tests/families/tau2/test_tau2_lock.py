"""``requirements-tau2.lock`` installs the ``tau2`` extra on top of ``requirements.lock``
without moving any version the main lock pins (docs/dependencies.md, "The τ²-bench lock")."""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.M)


def _pins(name: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for package, version in PIN.findall((ROOT / name).read_text()):
        found[re.sub(r"[-_.]+", "-", package).lower()].add(version)
    return found


def test_every_package_both_locks_pin_has_the_main_locks_versions():
    main, tau2 = _pins("requirements.lock"), _pins("requirements-tau2.lock")
    moved = {name: (main[name], versions) for name, versions in tau2.items() if name in main and versions != main[name]}
    assert not moved, f"requirements-tau2.lock moves pins of requirements.lock (recompile it): {moved}"


def test_the_tau2_lock_satisfies_the_tau2_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _pins("requirements-tau2.lock")
    for line in project["optional-dependencies"]["tau2"]:
        requirement = Requirement(line)
        versions = pins[requirement.name.lower()]
        assert versions and all(requirement.specifier.contains(v) for v in versions), (line, versions)


def test_every_package_the_tau2_and_inspect_locks_both_pin_has_one_version():
    tau2, inspect = _pins("requirements-tau2.lock"), _pins("requirements-inspect.lock")
    differ = {name: (inspect[name], versions) for name, versions in tau2.items() if name in inspect and versions != inspect[name]}
    assert not differ, f"the two extras' locks pin different versions (recompile requirements-tau2.lock): {differ}"
