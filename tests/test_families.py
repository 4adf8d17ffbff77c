"""A task family is one folder: nothing else of the package names it, and its registry finds it.

The readers ask a family's registry (``study.families.registry``) for what only the family knows,
so the next family touches nothing outside its folder but the registry's list (issue 48):

- no file of ``study/`` or ``analysis/`` outside a family's folder and the registry names a family
  or one of its protocols (code, docstrings, comments, the viewer's scripts alike: the names as
  the code and the docs spell them; ``workspace``, a common word, only where a family's name is
  compared with it);
- docs/architecture.md's table of roles is the registry's;
- a family's package imports nothing when it is imported, so asking for one of its parts (its
  ``reading``, say) costs only that part;
- a reader that finds no part does its own generic thing.

The layer rule of the parts (a part at its role's layer) is ``tests/test_layers.py``'s.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from study.families import registry
from study.transcripts import outcomes

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def _spellings(name: str) -> str:
    """A name in every spelling the code and the docs give it: ``month-end-close`` as
    ``month_end_close`` and ``Month-end close`` too (case is ignored)."""
    return r"[-_ ]".join(re.escape(word) for word in re.split(r"[-_ ]", name))


def _protocols() -> list[str]:
    """Every family's protocols, as their readings name them."""
    found = []
    for _family, reading in registry.parts("reading"):
        found += list(getattr(reading, "PROTOCOLS", {})) or [getattr(reading, "PROTOCOL", "")]
    return [p for p in found if p]


#: The families and protocols by their names (the registry's, their readings'), and as the docs
#: write them: τ²-bench, a month-end close, SWE-bench (the family issue "swebench" adds).
NAMES = sorted({*(name for name in registry.FAMILIES if name not in (registry.DEFAULT_FAMILY, "workspace")),
                *_protocols(), "τ²", "month-end", "swebench", "swe-bench"})
NAMED = re.compile("|".join(_spellings(name) for name in NAMES), re.IGNORECASE)
#: ``workspace`` is also the folder an agent works in: only a comparison with it names the family.
COMPARED = re.compile(r"""[=!]=\s*["']workspace["']|["']workspace["']\s*[=!]=|in \([^)]*["']workspace["']""")


def _outside_the_families() -> list[Path]:
    folders = [ROOT / Path(*entry.package.split(".")) for entry in registry.FAMILIES.values()]
    files = []
    for top in ("study", "analysis"):
        for path in sorted((ROOT / top).rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".pyo"):
                continue
            if path == ROOT / "study" / "families" / "registry.py" or any(path.is_relative_to(f) for f in folders):
                continue
            files.append(path)
    return files


def test_the_names_searched_for_are_the_families_and_their_protocols():
    assert {"tau2", "autoresearch", "month-end-close", "τ²", "month-end", "swebench"} <= set(NAMES)
    assert NAMED.search("study.families.workspace.month_end_close") and NAMED.search("Month-end close")
    assert NAMED.search("a τ²-bench study") and NAMED.search("AutoResearch's rows") and NAMED.search("SWE-bench")
    assert not NAMED.search("the agent's workspace (a git repository)") and COMPARED.search('if family == "workspace":')


def test_no_file_outside_a_familys_folder_names_a_family_or_a_protocol():
    """The acceptance of issue 48: `grep -rliE "tau2|τ²|autoresearch|month.end|swebench"` over
    study/ and analysis/ outside the families' folders and the registry finds nothing."""
    files = _outside_the_families()
    assert len(files) > 200, "the package's files are found (else this test checks nothing)"
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue        # not text (no file of the package is, today)
        for number, line in enumerate(text.splitlines(), 1):
            if NAMED.search(line) or (path.suffix in (".py", ".js") and COMPARED.search(line)):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:120]}")
    assert not found, ("a family or a protocol named outside its folder (ask its part through "
                       "study.families.registry instead):\n" + "\n".join(found))


_ROLE_ROW = re.compile(r"^\| `(\w+)` \| (\d+) \| ")


def test_the_docs_table_of_roles_is_the_registrys():
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = _ROLE_ROW.match(line.strip())
        if match:
            rows[match.group(1)] = int(match.group(2))
    assert rows == registry.ROLES


def test_a_familys_package_imports_nothing_when_it_is_imported():
    """The registry finds a part without paying for the rest of the family: the families' package
    imports only the registry at import time, and each family's package nothing of the project."""
    def imported(path: Path) -> list[str]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = []
        for node in tree.body:      # the top level only: what runs when the package is imported
            if isinstance(node, ast.ImportFrom):
                names.append("." * node.level + (node.module or ""))
            elif isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
        return names

    assert imported(ROOT / "study" / "families" / "__init__.py") == ["__future__", "typing", ".registry"]
    for entry in registry.FAMILIES.values():
        names = imported(ROOT / Path(*entry.package.split(".")) / "__init__.py")
        assert all(n in ("__future__", "typing") for n in names), (entry.package, names)


def test_every_family_has_its_family_part_and_its_parts_are_where_the_registry_says():
    from study.families import family

    for name in registry.FAMILIES:
        assert family(name).name == name
    for role in registry.ROLES:
        for module in registry.role_modules(role):
            path = ROOT / Path(*module.split("."))
            assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), module
    assert registry.role_modules("reading") == ("study.families.tau2.reading", "study.families.workspace.reading",
                                                "study.families.workspace.autoresearch.reading",
                                                "study.families.workspace.month_end_close.reading",
                                                "study.families.swebench.reading")


def test_a_reader_that_finds_no_part_does_its_generic_thing():
    assert registry.part(registry.DEFAULT_FAMILY, "reading") is None
    assert registry.part_of("no-such-family", "reading") is None and registry.part_of(["tau2"], "reading") is None
    with pytest.raises(registry.UnknownFamily, match="the families are sopbench, tau2, workspace"):
        registry.part("no-such-family", "reading")
    assert outcomes.verdict({"family": "sopbench", "protocol": "p"}) == {"text": "outcome of p", "class": "none",
                                                                        "cells": []}
    assert outcomes.verdict({"family": "workspace", "protocol": "p"})["text"] == "outcome of p"
    assert outcomes.details({"family": "x"}, []) == {"protocol": None, "headline": "outcome of x", "class": "none",
                                                     "facts": []}
