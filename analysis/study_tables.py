"""``study tables --study NAME``: the tables of another study than the main one, from its logs.

A study's family says which of the paper's tables its sessions make (``FAMILY_TABLES``): τ²-bench
studies Table 4 (``analysis.tau2``), the staged protocols Tables 5 and 10 (``analysis.staged``).
Several studies of one family are tabulated together (``--study tau2-telecom,tau2-airline``: one
Table 4 with a row per domain). The tables are rendered in every format the main study's are
(``analysis.render``), with every column defined under them; the sessions left out are listed
with their reasons (stderr; ``exclusions.md`` and ``.csv`` beside the tables with ``--out``).
"""

from __future__ import annotations

import csv
import importlib
import io
from pathlib import Path

from study.protocol.studies import MAIN, load_study

from .study_sessions import StudySessions, load_study_sessions

#: family -> "module:function" making that family's tables from a ``StudySessions``.
FAMILY_TABLES = {
    "tau2": "analysis.tau2:tables",
    "workspace": "analysis.staged:tables",
    # TEMPORARY until the family registry lands (readers then ask the family's `tables` part)
    "swebench": "study.families.swebench.tables:tables",
}


class StudyTablesError(ValueError):
    """Studies that cannot be tabulated together, or of a family without tables: what to do."""


def family_of(studies: list[str]) -> str:
    """The one family of ``studies`` (refused: the main study, studies of different families)."""
    if MAIN in studies:
        raise StudyTablesError("the main study's tables are `study tables` without --study")
    families = {load_study(name).family for name in studies}
    if len(families) != 1:
        raise StudyTablesError(f"--study names studies of several families ({', '.join(sorted(families))}): "
                               "tabulate each family on its own")
    family = families.pop()
    if family not in FAMILY_TABLES:
        raise StudyTablesError(f"the {family} family has no tables of its own")
    return family


def study_tables(root: Path, studies: list[str], *, include_exploratory: bool = False,
                 allow_simulated: bool = False) -> tuple[list, StudySessions]:
    """The tables of ``studies`` (one family) from the sessions below ``root``."""
    family = family_of(studies)
    found = load_study_sessions(root, studies, include_exploratory=include_exploratory,
                                allow_simulated=allow_simulated)
    module, function = FAMILY_TABLES[family].split(":")
    return getattr(importlib.import_module(module), function)(found), found


def exclusion_lines(found: StudySessions) -> list[str]:
    return [f"excluded: {path}: {why.reason}" for path, why in found.excluded]


def exclusions_markdown(found: StudySessions) -> str:
    lines = ["# Sessions left out", "", "| session | reason |", "| --- | --- |"]
    lines += [f"| {path} | {why.reason.replace('|', '/')} |" for path, why in found.excluded]
    return "\n".join(lines) + "\n"


def exclusions_csv(found: StudySessions) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["session", "kind", "reason"])
    for path, why in found.excluded:
        writer.writerow([path, str(why.kind), why.reason])
    return out.getvalue()
