"""The preregistered studies of a project: the main study, and the studies of other task families.

The main study is the preregistration itself (``preregistration/``: the referral batch of the
paper's main experiment, or a project's own SOP-Bench task). Every other study lives in a folder
of its own below it, ``preregistration/studies/<name>/``, frozen by the same manifest and changed
only through the same amendments:

- ``study.yaml``: the study's ``family`` (one of ``study.families.registry``'s), a
  ``title``, how its sessions are numbered (``unit``: ``seed`` or ``task``) and the family's own
  parameters (``params``: the domains and their frozen task orders, the protocol, the customer's
  model, ...);
- ``conditions.yaml``, ``limits.yaml`` (and optionally ``models.yaml``; else the main study's),
  ``texts/``, ``workflows/``, ``plan.md``, ``predictions.yaml``: as the main study's.

``load_study(name)`` reads one (None or ``MAIN``: the main study) and refuses a malformed
``study.yaml`` with the file, the line and what to do; ``study_names()`` lists them. Nothing here
knows a family: a family reads its own ``params``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from study.errors import StudyError
from study.families.registry import DEFAULT_FAMILY, FAMILIES
from study.paths import prereg_dir

from .yaml_file import read_yaml_file

#: The name of the main study (the preregistration's own folder).
MAIN = "main"
#: Where the other studies' folders are, below the preregistration.
STUDIES_DIR = "studies"
STUDY_FILE = "study.yaml"
#: How a study's sessions are numbered: by seed (``seed-<n>``) or by the position of a task in a
#: frozen task order (``task-<k>``).
UNITS = ("seed", "task")
#: The families a study of its own may be of (the main study is the default family's).
OTHER_FAMILIES = tuple(name for name in FAMILIES if name != DEFAULT_FAMILY)
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,40}")


class StudyDefinitionError(StudyError, ValueError):
    """A study that does not exist, or a malformed study.yaml."""


@dataclass(frozen=True)
class StudyDef:
    """One preregistered study."""

    name: str
    family: str
    root: Path                       # its folder: conditions.yaml, limits.yaml, texts/, workflows/ ...
    title: str = ""
    unit: str = "seed"
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def main(self) -> bool:
        return self.name == MAIN

    def file(self, name: str) -> Path:
        """A file of the study's folder."""
        return self.root / name

    def models_file(self) -> Path:
        """The study's models.yaml, else the main study's (the aliases are the project's)."""
        own = self.root / "models.yaml"
        return own if own.is_file() or self.main else prereg_dir() / "models.yaml"

    def unit_folder(self, unit: int) -> str:
        """The session folder's leaf for unit ``unit`` (``seed-3``, ``task-07``)."""
        return f"task-{unit:02d}" if self.unit == "task" else f"seed-{unit}"


def is_study_name(name: object) -> bool:
    """Whether ``name`` is a study's name (``--study``'s rule, and every family's
    ``build``'s): lower-case ASCII letters, digits and dashes, 1-41 characters, not
    beginning with a dash, never ``main`` (the main study's) and never a path."""
    return isinstance(name, str) and _NAME.fullmatch(name) is not None and name != MAIN


def studies_root() -> Path:
    return prereg_dir() / STUDIES_DIR


def study_names() -> list[str]:
    """Every study of the project: the main one first, then the others by name."""
    root = studies_root()
    others = sorted(p.name for p in root.iterdir() if (p / STUDY_FILE).is_file()) if root.is_dir() else []
    return [MAIN, *others]


def load_study(name: str | None = None) -> StudyDef:
    """The study called ``name`` (None or ``main``: the main study, whose family is SOP-Bench's)."""
    if name is None or name == MAIN:
        return StudyDef(MAIN, DEFAULT_FAMILY, prereg_dir(), title="the main study", unit="seed")
    if not _NAME.fullmatch(name):
        raise StudyDefinitionError(f"{name!r} is not a study name: {_known()}")
    path = studies_root() / name / STUDY_FILE
    if not path.is_file():
        raise StudyDefinitionError(f"no study {name!r} in {studies_root()}: {_known()}")
    raw = read_yaml_file(path, StudyDefinitionError)
    if not isinstance(raw, dict):
        raise StudyDefinitionError(f"{path}: must be a mapping with family, title, unit and params")
    unknown = sorted(set(raw) - {"study", "family", "title", "unit", "params"})
    if unknown:
        raise StudyDefinitionError(f"{path}: unknown keys {unknown}; a study.yaml has study, family, title, unit, params")
    if raw.get("study", name) != name:
        raise StudyDefinitionError(f"{path}: names study {raw.get('study')!r} but lies in the folder of {name!r}")
    family = raw.get("family")
    if not isinstance(family, str) or not family:
        raise StudyDefinitionError(f"{path}: family must name a task family ({', '.join(OTHER_FAMILIES)})")
    unit = raw.get("unit", "seed")
    if unit not in UNITS:
        raise StudyDefinitionError(f"{path}: unit must be one of {', '.join(UNITS)}, not {unit!r}")
    params = raw.get("params") or {}
    if not isinstance(params, dict):
        raise StudyDefinitionError(f"{path}: params must be a mapping of the family's parameters")
    return StudyDef(name, family, path.parent, title=str(raw.get("title") or ""), unit=unit, params=params)


def _known() -> str:
    return "the studies are " + ", ".join(study_names())


__all__ = ["MAIN", "STUDIES_DIR", "STUDY_FILE", "StudyDef", "StudyDefinitionError", "is_study_name", "load_study",
           "study_names", "studies_root"]
