"""The locked environment: the lock file, the versions it pins, and the versions installed.

The lock (``requirements.lock`` at the checkout's root) pins every package the install brings,
with the sha256 of every distribution file, for every supported Python version and platform (a
universal resolution: a package that needs another version on another Python has one line per
version, each with an environment marker). ``pip install --require-hashes -r requirements.lock``
installs it; ``docs/dependencies.md`` says how it is made and updated.

Used by ``study doctor`` (does this install match the lock?) and by the frozen runtime
(``preregistration/runtime.json`` records ``lock_sha256()``).
"""

from __future__ import annotations

import hashlib
import os
import re
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

__all__ = [
    "LOCK_FILE", "LOCK_ENV", "lock_path", "lock_sha256", "locked_versions", "installed_versions",
    "lock_mismatches",
]

#: The lock file's name, at the root of the checkout.
LOCK_FILE = "requirements.lock"

#: Environment variable naming another lock file (for tests that need a different lock).
LOCK_ENV = "STUDY_LOCK_FILE"

# "name==version" optionally followed by "; marker", then an optional line continuation.
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:;(?P<marker>[^\\]*))?")


def lock_path() -> Path:
    """The lock file: ``$STUDY_LOCK_FILE`` if set, else ``requirements.lock`` beside the package.

    The lock belongs to the code, not to a study tree, so ``STUDY_ROOT`` does not move it.
    """
    env = os.environ.get(LOCK_ENV)
    if env:
        return Path(env).resolve()
    from study.paths import checkout_root

    return checkout_root() / LOCK_FILE


def lock_sha256(path: Path | None = None) -> str | None:
    """The sha256 (hex) of the lock file's bytes, or None if there is no lock file (e.g. an
    install from a wheel, outside the checkout)."""
    path = path or lock_path()
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def _pins(text: str) -> list[tuple[str, str, str | None]]:
    pins = []
    for line in text.splitlines():
        match = _PIN.match(line)
        if match:
            marker = (match["marker"] or "").strip() or None
            pins.append((canonicalize_name(match["name"]), match["version"], marker))
    return pins


def locked_versions(path: Path | None = None, environment: dict[str, str] | None = None) -> dict[str, str]:
    """Package name (normalized, PEP 503) -> version the lock pins for this Python and platform.

    ``environment`` overrides marker variables (e.g. ``{"python_full_version": "3.12.0"}``) to
    ask what another interpreter would get. Lines whose marker does not hold are left out.
    Raises FileNotFoundError if there is no lock file.
    """
    path = path or lock_path()
    versions: dict[str, str] = {}
    for name, version, marker in _pins(path.read_text(encoding="utf-8")):
        if marker is not None and not Marker(marker).evaluate(environment):
            continue
        if name in versions and versions[name] != version:
            raise ValueError(f"{path}: {name} is pinned to both {versions[name]} and {version} "
                             "for this Python; regenerate the lock (docs/dependencies.md)")
        versions[name] = version
    return versions


def installed_versions(names: list[str] | None = None) -> dict[str, str]:
    """Package name (normalized) -> installed version (importlib.metadata).

    With ``names``, only those (a name that is not installed is left out); else every
    distribution on the path (the first one found wins, as for imports).
    """
    if names is not None:
        found = {}
        for name in names:
            try:
                found[canonicalize_name(name)] = metadata.version(name)
            except metadata.PackageNotFoundError:
                pass
        return found
    found = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), dist.version)
    return found


def lock_mismatches(path: Path | None = None) -> list[tuple[str, str, str | None]]:
    """Every locked package whose installed version differs: (name, locked, installed or None),
    sorted by name. Empty when this install matches the lock."""
    locked = locked_versions(path)
    installed = installed_versions(list(locked))
    return sorted((name, version, installed.get(name)) for name, version in locked.items()
                  if not _same_version(version, installed.get(name)))


def _same_version(locked: str, installed: str | None) -> bool:
    if installed is None:
        return False
    try:
        return Version(locked) == Version(installed)
    except InvalidVersion:
        return locked == installed
