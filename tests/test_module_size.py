"""No source module of the package is longer than 450 lines (the house's rule): a module that
grows past it is split along a seam a reader sees, not cut in two.

Every ``*.py`` under ``study/``, ``analysis/`` and ``sopbench_tools/`` is checked as it is found
when the test runs (a module added on any branch is held to it too), except the vendored
upstream SOP-Bench tasks under ``sopbench_tools/data/``: their ``tools.py`` files are
third-party data, copied byte for byte from ``amazon-science/SOP-Bench`` (their ``SOURCE.md``
says so), not modules of this package, and are never edited here.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("study", "analysis", "sopbench_tools")
#: third-party data: the vendored SOP-Bench tasks (see the module docstring)
VENDORED = ROOT / "sopbench_tools" / "data"
MAX_LINES = 450


def _modules() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py")
                  if not path.is_relative_to(VENDORED))


def test_no_source_module_is_longer_than_450_lines():
    modules = _modules()
    assert len(modules) > 100, "the package's modules are found (else this test checks nothing)"
    long = {path.relative_to(ROOT).as_posix(): n for path in modules
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines (split each along a seam a reader sees): {long}"


def test_the_vendored_tasks_left_out_are_the_upstream_copies():
    """What the rule leaves out is only the vendored data, whose provenance is written down."""
    left_out = sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if p.is_relative_to(VENDORED))
    assert left_out and all(p.name == "tools.py" for p in left_out), left_out
    assert all((VENDORED / "SOURCE.md").is_file() and (p.parent.parent / "SOURCE.md").is_file() for p in left_out)
