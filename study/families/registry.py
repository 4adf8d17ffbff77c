"""The registry of task families: which families there are, and where a reader finds each one's parts.

A foundation (layer 0: the standard library only), so every layer may ask it. It is the one
module outside a family's folder that names the families (tests/test_families.py: no other file
of ``study/`` or ``analysis/`` names a family or a protocol).

A task family is one folder, ``study/families/<family>/`` (``FAMILIES``: its package), holding
everything of it. What a reader needs of a family is a *part*: a module (or subpackage) of the
family's folder named by its *role* (``ROLES``), at the role's layer (docs/architecture.md, "Where
a task family plugs in"):

- ``events`` (layer 1): the family's own log event kinds (``EVENT_TYPES``: kind -> TypedDict),
  which ``study.session_io`` validates like its own;
- ``reading`` (layer 2): how the family's sessions read: the outcome's verdict and details,
  ``study score``'s lines, the running status cell, the record rules the audit applies (which
  kind ends a unit, fresh contexts, the CLI's own tools), the Inspect scores, the viewer's words
  and timeline marks of its kinds;
- ``transcript`` (layer 6): the session's work from its log as plain data (a conversation, a
  run's contexts), for the viewer and the export;
- ``tables`` (layer 6): its tables from its sessions (``study tables --study``), over analysis's
  shared machinery and the logs alone;
- ``family`` (layer 6): ``FAMILY``, what the runner asks (``study.families.base.Family``);
- ``availability`` (layer 6): what the family needs installed beyond the package, for ``study
  doctor``;
- ``evidence`` (layer 6): the outcome re-derived from its evidence, for the audit;
- ``sim`` (layer 7): its simulated agents (``POLICIES``, ``STUDIES``, ``make_policy``; where a
  study's protocol or domain has only some, ``study_policies``), for ``study.sim`` and the
  runner's preflight, whose machinery (``study.sim.acting``) it may use;
- ``inspect`` (layer 10): what the Inspect export carries of a session beyond its scores (a
  conversation's messages as the benchmark has them), with inspect-ai's types, for
  ``study.export``, whose machinery it may use.

Beside its parts, a family's folder may hold ``view.js``: what the viewer's page draws of the
family's sessions (its conversation or contexts, its outcome's tables), registered in the page's
``FAMILY_PAGES`` (``assets``; ``study.view.page`` loads each).

A reader asks ``part(family, role)`` (a family's part, or None where the family has none: the
reader then does its own generic thing) or ``parts(role)`` (every family's), never an import
statement naming a family: a family is added by a line of ``FAMILIES`` and its own folder. The
default family (``DEFAULT_FAMILY``, SOP-Bench's batches: the main study) is the one the readers'
own code reads; it has only a ``family`` part.

Finding whether a part exists imports nothing of the family (its folder is looked at), and a
family package's ``__init__`` imports nothing at import time, so a reading command pays only for
the parts it asks for.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Entry:
    """One family: its package and, when it has one, its own ``study`` subcommand (the name, the
    "module:attribute" of its click group, and the line ``study --help`` shows), which the
    ``study`` group lists without importing it."""

    package: str
    command: str | None = None
    target: str | None = None
    help: str | None = None


#: Every family, by name (the ``family`` of a session's log, of a study.yaml).
FAMILIES: dict[str, Entry] = {
    "sopbench": Entry("study.families.sopbench"),
    "tau2": Entry("study.families.tau2", "tau2", "study.families.tau2.cli:tau2",
                  "The τ²-bench family (the paper's Analysis 2): build its preregistered studies."),
    "workspace": Entry("study.families.workspace", "staged", "study.families.workspace.cli:staged",
                       "The staged protocols (the paper's Analysis 3): build their preregistered studies."),
    "swebench": Entry("study.families.swebench", "swebench", "study.families.swebench.cli:swebench",
                      "The SWE-bench family (the paper's Analysis 1): build its preregistered studies."),
}

#: The family of a log or preregistration that names none: SOP-Bench's batches (the main study).
DEFAULT_FAMILY = "sopbench"

#: Each role and its layer (tests/test_layers.py places ``study.families.<family>.<role>`` there;
#: a family's other modules are at the families' layer, 6).
ROLES: dict[str, int] = {
    "events": 1,
    "reading": 2,
    "transcript": 6,
    "tables": 6,
    "family": 6,
    "availability": 6,
    "evidence": 6,
    "sim": 7,
    "inspect": 10,
}
#: The package a role plugs into, whose modules its parts may import though they share its layer
#: (tests/test_layers.py): the simulator's machinery, the export's.
HOSTS: dict[str, str] = {"sim": "study.sim", "inspect": "study.export"}


class UnknownFamily(ValueError):
    """A family name no package provides."""


def entry(family: str) -> Entry:
    """The registry's entry of ``family``; ``UnknownFamily`` lists the families."""
    found = FAMILIES.get(family) if isinstance(family, str) else None
    if found is None:
        raise UnknownFamily(f"unknown task family {family!r}: the families are {', '.join(FAMILIES)}")
    return found


_HAS: dict[tuple[str, str], bool] = {}


def has_part(family: str, role: str) -> bool:
    """Whether ``family`` has a part of ``role`` (``<folder>/<role>.py`` or ``<role>/``), found
    without importing the family's package (only ``study.families``, whose ``__init__`` is light)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}: the roles are {', '.join(ROLES)}")
    key = (family, role)
    if key not in _HAS:
        spec = importlib.util.find_spec(entry(family).package)
        places = list(spec.submodule_search_locations or []) if spec is not None else []
        _HAS[key] = any(os.path.isfile(os.path.join(place, f"{role}.py"))
                        or os.path.isfile(os.path.join(place, role, "__init__.py")) for place in places)
    return _HAS[key]


def part(family: str, role: str) -> ModuleType | None:
    """The module of ``family``'s part of ``role``, or None where the family has none.
    ``UnknownFamily`` for a name that is no family."""
    if not has_part(family, role):
        return None
    return importlib.import_module(f"{entry(family).package}.{role}")


def part_of(family: object, role: str) -> ModuleType | None:
    """``part`` for a family name read from a session's records (untrusted: any value): None for
    anything that is not a family's name too."""
    if not isinstance(family, str) or family not in FAMILIES:
        return None
    return part(family, role)


def parts(role: str) -> list[tuple[str, ModuleType]]:
    """(family, module) of every family that has a part of ``role``, in ``FAMILIES``' order."""
    return [(name, module) for name in FAMILIES if (module := part(name, role)) is not None]


def role_modules(role: str) -> tuple[str, ...]:
    """The names of every module of ``role`` in the families' folders, their protocols' subfolders
    included (``workspace.autoresearch.reading``), found without importing any: what a cache
    names among the sources its kept values depend on (``study.caching.sources_digest``)."""
    found = []
    for name in FAMILIES:
        spec = importlib.util.find_spec(entry(name).package)
        for place in (spec.submodule_search_locations or []) if spec is not None else []:
            subs = sorted(d for d in os.listdir(place) if os.path.isfile(os.path.join(place, d, "__init__.py")))
            for prefix, folder in [("", place), *((f"{d}.", os.path.join(place, d)) for d in subs)]:
                if os.path.isfile(os.path.join(folder, f"{role}.py")) or \
                        os.path.isfile(os.path.join(folder, role, "__init__.py")):
                    found.append(f"{entry(name).package}.{prefix}{role}")
    return tuple(found)


def assets(name: str) -> list[tuple[str, str]]:
    """(family, path) of every family's file ``name`` in its folder (the viewer's ``view.js``:
    what the family's sessions' pages draw of their own), in ``FAMILIES``' order; found without
    importing anything of the families."""
    found = []
    for family, e in FAMILIES.items():
        spec = importlib.util.find_spec(e.package)
        for place in (spec.submodule_search_locations or []) if spec is not None else []:
            path = os.path.join(place, name)
            if os.path.isfile(path):
                found.append((family, path))
                break
    return found


def commands() -> dict[str, tuple[str, str]]:
    """The families' own ``study`` subcommands: name -> ("module:attribute", help)."""
    return {e.command: (e.target, e.help or "") for e in FAMILIES.values() if e.command and e.target}


__all__ = ["DEFAULT_FAMILY", "Entry", "FAMILIES", "HOSTS", "ROLES", "UnknownFamily", "assets", "commands", "entry", "has_part", "part",
           "part_of", "parts", "role_modules"]
