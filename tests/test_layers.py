"""The packages are layered: a package imports only the foundations and packages of lower layers.

The rule is ``FOUNDATIONS`` and ``LAYERS`` below, and nowhere else: ``docs/architecture.md``
shows the same table (a test checks that the two agree), and each package's ``__init__``
docstring says its role and its layer in its first two lines (checked too).

Every import counts, as in ``test_import_graph.py`` (whose resolver this uses): at the top, late
ones inside functions, and those under ``if TYPE_CHECKING:``. An import of a module of the same
package is always allowed (``test_import_graph`` keeps those free of circles). The ``study.cli``
package's ``__init__`` (the ``study`` group) names its commands by strings only
(``"study.runner.cli:run"``), so it sits at the top without importing them.

A violation is reported as ``file: imports X (layer a) from layer b``.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_spec = importlib.util.spec_from_file_location("_import_graph", Path(__file__).with_name("test_import_graph.py"))
_graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_graph)
import_graph = _graph.import_graph

#: Modules every layer may import (layer 0). They import only one another. ``study`` is the
#: package's face alone (its ``__init__``), not everything below it.
FOUNDATIONS = (
    "study",
    "study.errors",
    "study.paths",
    "study.caching",
    "study.cli.vocabulary",
    "study.cli.legacy",
    "study.protocol.preregistered",
)

#: package -> layer. A package may import the foundations and packages of lower layers; packages
#: of one layer do not import one another. Lowest first; docs/architecture.md has the same table.
LAYERS = {
    "study.session_io": 1,
    "study.tooling": 1,
    "study.protocol": 2,
    "sopbench_tools": 3,
    "study.transcripts": 3,
    "study.procedure": 4,
    "study.fsm": 5,
    "analysis": 5,
    "study.families": 6,
    "study.sim": 7,
    "study.runtimes": 7,
    "study.prereg": 8,
    "study.runner": 9,
    "study.cli": 10,
    "study.view": 10,
    "study.demo": 10,
    "study.doctor": 10,
    "study.project": 10,
    "study.export": 10,
}

#: The only modules at the top of study/: the face, the error root and the paths.
FACE = ("__init__.py", "errors.py", "paths.py")

DOC = ROOT / "docs" / "architecture.md"


def may_import(layer: int) -> str:
    """What a package of ``layer`` may import, in the words of the doc's table and the docstrings."""
    if layer == 0:
        return "the other foundations only"
    if layer == 1:
        return "the foundations only"
    if layer == 2:
        return "the foundations and layer 1"
    return f"the foundations and layers 1-{layer - 1}"


# -- the rule -------------------------------------------------------------------------------------

def _within(module: str, name: str) -> bool:
    return module == name or module.startswith(name + ".")


#: A family's simulated agents (its folder's ``sim`` part) sit at the simulator's layer, whose
#: acting machinery they use (the family face of issue 48). TEMPORARY: the registry of task families
#: (its ROLES) places every family's parts once it lands.
FAMILY_SIM_PARTS = ("study.families.swebench.sim",)


def place_of(module: str) -> tuple[str, int] | None:
    """The foundation or package ``module`` belongs to, and its layer (None: it has none)."""
    for name in FOUNDATIONS:
        if module == name or (name != "study" and _within(module, name)):
            return name, 0
    for name in FAMILY_SIM_PARTS:
        if _within(module, name):
            return "study.sim", LAYERS["study.sim"]
    owners = [name for name in LAYERS if _within(module, name)]
    if not owners:
        return None
    name = max(owners, key=len)
    return name, LAYERS[name]


def violations(graph: dict[str, set[str]], modules: dict[str, Path], root: Path) -> list[str]:
    found = []
    for module in sorted(graph):
        file = modules[module].relative_to(root).as_posix()
        place = place_of(module)
        if place is None:
            found.append(f"{file}: {module} is in no layer: add its package to LAYERS (tests/test_layers.py) "
                         "and to docs/architecture.md")
            continue
        owner, layer = place
        for imported in sorted(graph[module]):
            target = place_of(imported)
            if target is None:
                continue        # reported as the module itself
            other, other_layer = target
            if other == owner:
                continue
            if layer == 0 and other_layer == 0:
                continue
            if other_layer == 0 or other_layer < layer:
                continue
            found.append(f"{file}: imports {imported} (layer {other_layer}) from layer {layer}")
    return found


# -- the tests ------------------------------------------------------------------------------------

def test_every_package_imports_only_lower_layers_and_the_foundations():
    graph, modules = import_graph()
    found = violations(graph, modules, ROOT)
    assert not found, ("imports against the layers (docs/architecture.md; move what both sides need "
                       "down to where both may import it):\n  " + "\n  ".join(found))


def test_study_has_three_modules_at_its_top_and_everything_else_in_packages():
    top = sorted(p.name for p in (ROOT / "study").iterdir() if p.suffix == ".py")
    assert top == sorted(FACE), f"study/ holds modules beyond its face {FACE}: {sorted(set(top) - set(FACE))}"


def test_every_package_has_a_layer_and_every_layer_a_package():
    packages = {f"study.{p.name}" for p in (ROOT / "study").iterdir() if (p / "__init__.py").is_file()}
    packages |= {"analysis", "sopbench_tools"}
    named = set(LAYERS) | {f for f in FOUNDATIONS if (ROOT / Path(*f.split("."))).is_dir()}
    assert packages - named == set(), "packages without a layer (add them to LAYERS and docs/architecture.md)"
    assert {p for p in LAYERS if p not in packages} == set(), "LAYERS names packages that do not exist"
    for name in FOUNDATIONS:
        path = ROOT / Path(*name.split("."))
        assert path.is_dir() or path.with_suffix(".py").is_file(), f"foundation {name} does not exist"


def test_the_rule_sees_an_import_from_a_higher_layer_and_allows_the_foundations(tmp_path):
    files = {
        "study/__init__.py": "",
        "study/errors.py": "",
        "study/session_io/__init__.py": "",
        "study/session_io/log.py": "from study.errors import StudyError\nfrom . import other\n",
        "study/session_io/other.py": "def f():\n    from study.runner.x import y\n",
        "study/runner/__init__.py": "",
        "study/runner/x.py": "from study.session_io.log import A\nimport study.view.page\n",
        "study/view/__init__.py": "",
        "study/view/page.py": "from study.runner import x\n",
        "study/stray.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    graph, modules = import_graph(tmp_path, ("study",), ())
    assert violations(graph, modules, tmp_path) == [
        "study/runner/x.py: imports study.view.page (layer 10) from layer 9",
        "study/session_io/other.py: imports study.runner.x (layer 9) from layer 1",
        "study/stray.py: study.stray is in no layer: add its package to LAYERS (tests/test_layers.py) "
        "and to docs/architecture.md",
    ]


# -- the doc and the docstrings say the same ---------------------------------------------------

_ROW = re.compile(r"^\| (\d+) \| `([\w.]+)` \| (.+?) \| (.+?) \|$")


def doc_table() -> dict[str, tuple[int, str, str]]:
    """The layer table of docs/architecture.md: package -> (layer, owns, may import)."""
    rows: dict[str, tuple[int, str, str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = _ROW.match(line.strip())
        if match:
            layer, name, owns, allowed = match.groups()
            assert name not in rows, f"docs/architecture.md names {name} twice"
            rows[name] = (int(layer), owns.strip(), allowed.strip())
    return rows


def test_the_docs_table_is_the_rule():
    rows = doc_table()
    assert {name: layer for name, (layer, _, _) in rows.items()} == {**dict.fromkeys(FOUNDATIONS, 0), **LAYERS}
    wrong = {name: allowed for name, (layer, _, allowed) in rows.items() if allowed != may_import(layer)}
    assert not wrong, f"the 'may import' column must read as may_import(layer) says: {wrong}"


def _docstring_lines(name: str) -> list[str]:
    path = ROOT / Path(*name.split(".")) / "__init__.py"
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.splitlines()


def test_each_packages_docstring_says_its_role_and_layer_in_two_lines():
    rows = doc_table()
    wrong = []
    for name, layer in LAYERS.items():
        lines = _docstring_lines(name)
        role = rows[name][1] if name in rows else None
        expected = [role, f"Layer {layer}: may import {may_import(layer)} (docs/architecture.md)."]
        got = [line.replace("``", "`") for line in lines[:2]]
        if got != expected or (len(lines) > 2 and lines[2].strip()):
            wrong.append(f"{name}: {got!r} should be {expected!r}, then a blank line")
    assert not wrong, "\n".join(wrong)


# -- the task families keep to themselves ---------------------------------------------------------

#: Each task family's own code (study.families.<family>, its simulated models study.sim.<family>)
#: and the packages that are one family's alone.
FAMILY_PACKAGES = {
    "sopbench": ("study.families.sopbench", "sopbench_tools"),
    "tau2": ("study.families.tau2", "study.sim.tau2"),
    "workspace": ("study.families.workspace", "study.sim.workspace.family", "study.sim.workspace_plans"),
}
# study.sim.workspace's other modules are the simulator's one machinery for scripted agents that act
# (the actions, each runtime's wire form, the responder, the executor): any family's agents use it.


def _family_of(module: str) -> str | None:
    for family, packages in FAMILY_PACKAGES.items():
        if any(module == p or module.startswith(p + ".") for p in packages):
            return family
    return None


def test_the_task_families_never_import_one_another():
    """SOP-Bench's code does not learn about τ²-bench nor the other way round, nor either about the
    workspace family: a module of one family imports no module of another (the runner reaches each
    through the family seam, study.families.base)."""
    graph, _modules = import_graph()
    crossing = sorted(f"{module} imports {imported}" for module, imports in graph.items()
                      for imported in imports
                      if _family_of(module) and _family_of(imported) and _family_of(module) != _family_of(imported))
    assert not crossing, "\n".join(crossing)


def test_the_runner_and_the_adapters_import_no_family_but_through_its_registry():
    """The runner, the runtime adapters and the analysis name no family's package: they read the
    ``Work`` a family gives (study.families, study.families.base) and the logs."""
    graph, _modules = import_graph()
    layered = ("study.runner", "study.runtimes", "analysis")
    found = sorted(f"{module} imports {imported}" for module, imports in graph.items()
                   if module.startswith(layered) for imported in imports
                   if imported.startswith("study.families.") and imported != "study.families.base")
    # the one exception: the runner's texts module re-exports the SOP-Bench family's texts for the
    # callers that have always found them there (study/runner/texts.py)
    assert found == ["study.runner.texts imports study.families.sopbench.texts"], "\n".join(found)
