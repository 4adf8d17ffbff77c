"""``requirements-staged.lock`` installs the ``staged`` extra (scikit-learn, for the AutoResearch
protocol) on top of ``requirements.lock`` without moving any version the main lock pins
(docs/dependencies.md, "The staged-protocols lock")."""

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
    main, staged = _pins("requirements.lock"), _pins("requirements-staged.lock")
    moved = {name: (main[name], versions) for name, versions in staged.items() if name in main and versions != main[name]}
    assert not moved, f"requirements-staged.lock moves pins of requirements.lock (recompile it): {moved}"


def test_the_staged_lock_satisfies_the_staged_extra_and_is_hash_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _pins("requirements-staged.lock")
    for line in project["optional-dependencies"]["staged"]:
        requirement = Requirement(line)
        versions = pins[requirement.name.lower()]
        assert versions and all(requirement.specifier.contains(v) for v in versions), (line, versions)
    text = (ROOT / "requirements-staged.lock").read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    assert entries and all("--hash=sha256:" in entry for entry in entries), "every pin carries its hashes"
