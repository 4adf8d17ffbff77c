"""No import circles among the project's own modules (``study``, ``analysis``, ``sopbench_tools``).

Every ``.py`` file of the three packages (not ``sopbench_tools/data/``: vendored task code, never
imported as part of the package) is parsed with ``ast``, and each of its imports is resolved to the
package modules it names. An import counts wherever it is written: at the top, inside a function
(a late import is still a dependency) and under ``if TYPE_CHECKING:``. Absolute and relative
imports both resolve:

- ``import a.b.c`` (``as x``): an edge to ``a.b.c``;
- ``from a.b import name``: an edge to ``a.b`` (its ``__init__`` when it is a package: a name it
  re-exports is an import of it), and to ``a.b.name`` too when that is a submodule;
- ``from . import name``, ``from ..x import name``: the same, from the importing module's package.

Imports of modules outside the three packages are left out, and so are imports by a computed
name (``importlib.import_module(...)``, ``__import__(...)``: ``study.cli``'s lazy commands).
Parent packages that Python imports on the way (``a`` and ``a.b`` for ``import a.b.c``) are
not edges: they are already being imported whenever one of their modules runs.

A circle is reported as its chain of files, e.g.
``analysis/evidence.py -> analysis/scoring.py -> analysis/evidence.py``.
"""

from __future__ import annotations

import ast
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("study", "analysis", "sopbench_tools")
SKIPPED = ("sopbench_tools/data",)


# -- the graph ------------------------------------------------------------------------------------

def module_files(root: Path, packages: tuple[str, ...] = PACKAGES,
                 skipped: tuple[str, ...] = SKIPPED) -> dict[str, Path]:
    """Dotted module name -> file, for every module of ``packages`` under ``root``."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root)
            if any(rel.as_posix().startswith(s + "/") for s in skipped):
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _package_of(module: str, path: Path) -> str:
    """The package a module's relative imports start from (a package's own, for ``__init__``)."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules ``module`` (at ``path``) imports, anywhere in its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    named: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = _package_of(module, path)
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            named.add(source)
            named.update(f"{source}.{alias.name}" for alias in node.names if alias.name != "*")
    return {name for name in named if name in modules and name != module}


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES,
                 skipped: tuple[str, ...] = SKIPPED) -> tuple[dict[str, set[str]], dict[str, Path]]:
    modules = module_files(root, packages, skipped)
    return {m: imports_of(m, p, modules) for m, p in modules.items()}, modules


# -- the circles ----------------------------------------------------------------------------------

def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return sorted(found)


def shortest_circle(graph: dict[str, set[str]], start: str, within: set[str]) -> list[str]:
    """The shortest chain ``start -> ... -> start`` inside ``within`` (breadth first)."""
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for child in sorted(graph[node] & within):
            if child == start:
                chain = [node]
                while chain[-1] != start:
                    chain.append(came_from[chain[-1]])
                return [start, *reversed(chain[:-1]), start] if node != start else [start, start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    return []


def circles(graph: dict[str, set[str]], component: list[str]) -> list[list[str]]:
    """The circles of a component: the shortest one through each of its modules, once each."""
    within = set(component)
    seen: set[tuple[str, ...]] = set()
    out = []
    for module in component:
        chain = shortest_circle(graph, module, within)
        ring = chain[:-1]
        turn = ring.index(min(ring))
        key = tuple(ring[turn:] + ring[:turn])
        if key not in seen:
            seen.add(key)
            out.append([*key, key[0]])
    return out


def describe(graph: dict[str, set[str]], modules: dict[str, Path], root: Path,
             component: list[str]) -> str:
    def file(m: str) -> str:
        return modules[m].relative_to(root).as_posix()

    return "\n".join("  " + " -> ".join(map(file, chain)) for chain in circles(graph, component))


# -- the tests ------------------------------------------------------------------------------------

def test_the_project_has_no_import_circle():
    graph, modules = import_graph()
    components = strongly_connected(graph)
    assert not components, "import circles (move what both sides share to a module both can import):\n" + "\n".join(
        describe(graph, modules, ROOT, component) for component in components)


def test_the_graph_counts_every_kind_of_import(tmp_path):
    """The resolver sees late imports, TYPE_CHECKING imports, relative imports, names a package
    re-exports and submodules named in ``from pkg import name``."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "data").mkdir()
    files = {
        "__init__.py": "from .a import A\n",
        "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nclass A: ...\n",
        "b.py": "def f():\n    from pkg.c import C\n",
        "c.py": "from . import A\n",                   # a name the package re-exports: pkg/__init__
        "d.py": "from pkg import sub\n",               # a submodule: pkg/__init__ and pkg.sub
        "e.py": "import pkg.sub.deep as deep\nimport os\n",
        "sub/__init__.py": "",
        "sub/deep.py": "from ..e import x\nfrom .. import d\n",
        "data/tools.py": "import pkg.a\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text, encoding="utf-8")
    graph, modules = import_graph(tmp_path, ("pkg",), ("pkg/data",))
    assert "pkg.data.tools" not in modules
    assert graph == {
        "pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": {"pkg"},
        "pkg.d": {"pkg", "pkg.sub"}, "pkg.e": {"pkg.sub.deep"}, "pkg.sub": set(),
        "pkg.sub.deep": {"pkg.e", "pkg", "pkg.d"},
    }
    components = strongly_connected(graph)
    assert components == [["pkg", "pkg.a", "pkg.b", "pkg.c"], ["pkg.e", "pkg.sub.deep"]]
    assert describe(graph, modules, tmp_path, components[0]) == (
        "  pkg/__init__.py -> pkg/a.py -> pkg/b.py -> pkg/c.py -> pkg/__init__.py")
    assert describe(graph, modules, tmp_path, components[1]) == "  pkg/e.py -> pkg/sub/deep.py -> pkg/e.py"
