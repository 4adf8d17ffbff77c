"""The code that runs is the code that is checked.

``study run`` imports ``study``, ``analysis`` and ``sopbench_tools`` from wherever Python finds
them (the editable checkout, a site-packages install, a ``PYTHONPATH`` entry), while the manifest
it checks belongs to the project root in use (``STUDY_ROOT`` or the checkout). Those can differ:
with ``STUDY_ROOT`` pointing at a pristine copy, checking the copy's files says nothing about the
edited code that actually runs. So the run check also hashes the frozen code files *as imported*
(each package's own folder) and compares them with the manifest in effect at the root.

``code_version(root=None)`` is what every session records: the root's git commit, with
``+dirty`` whenever a frozen file that runs (the root's ``preregistration/`` data and the
imported code) differs from that commit, or a tracked file differs from it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from study.paths import project_root

from .files import (
    CODE_PACKAGES, FROZEN_CODE_DIRS, FROZEN_CODE_FILES, PREREG_DIR, files_under, frozen_paths, sha256_file,
)
from .gitinfo import frozen_blobs, git_blob_id, head_commit, tracked_changes

UNKNOWN = "unknown"


def package_dir(name: str) -> Path | None:
    """The folder package ``name`` is imported from (already imported, or where ``import`` would
    find it), or None if it cannot be found."""
    module = sys.modules.get(name)
    if module is not None and getattr(module, "__file__", None):
        return Path(module.__file__).resolve().parent
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def imported_paths() -> dict[str, Path]:
    """Every frozen code file as imported: manifest path (``study/runner/x.py``) -> file on disk."""
    found: dict[str, Path] = {}
    for name in CODE_PACKAGES:
        folder = package_dir(name)
        if folder is None:
            continue
        base = folder.parent
        tops = [t for t in FROZEN_CODE_DIRS if t.split("/")[0] == name]
        rels = [f for t in tops for f in files_under(base, t)]
        rels += [f for f in FROZEN_CODE_FILES if f.split("/")[0] == name and (base / f).is_file()]
        found.update({rel: base / rel for rel in rels})
    return found


def imported_elsewhere(root: Path) -> dict[str, Path]:
    """The packages imported from somewhere other than ``root``: name -> its folder."""
    root = Path(root).resolve()
    elsewhere = {}
    for name in CODE_PACKAGES:
        folder = package_dir(name)
        if folder is not None and folder != root / name:
            elsewhere[name] = folder
    return elsewhere


def compare_imported(root: Path, effective: dict[str, str]) -> list[tuple[str, str, Path]]:
    """The imported frozen code that differs from the manifest in effect at ``root``:
    ``(status, path, file)`` with status changed, missing (in the manifest, not imported) or
    added (imported, not in the manifest). Packages imported from ``root`` itself are left out
    (the tree check covers them)."""
    elsewhere = imported_elsewhere(root)
    if not elsewhere:
        return []
    on_import = {rel: path for rel, path in imported_paths().items() if rel.split("/")[0] in elsewhere}
    expected = {rel: h for rel, h in effective.items() if rel.split("/")[0] in elsewhere}
    found = []
    for rel in sorted(set(expected) | set(on_import)):
        if rel not in on_import:
            found.append(("missing", rel, elsewhere[rel.split("/")[0]] / rel.partition("/")[2]))
        elif rel not in expected:
            found.append(("added", rel, on_import[rel]))
        elif sha256_file(on_import[rel]) != expected[rel]:
            found.append(("changed", rel, on_import[rel]))
    return found


def running_files(root: Path) -> dict[str, Path]:
    """Every frozen file a run uses: the root's preregistration/ files and the imported code."""
    files = {rel: root / rel for rel in frozen_paths(root) if rel.startswith(PREREG_DIR + "/")}
    files.update(imported_paths())
    return files


def code_version(root: Path | None = None) -> str:
    """The git commit of the project root, ``+dirty`` if the code and data that run differ from
    it (a frozen file, imported or under preregistration/, or any tracked file), or ``unknown``
    outside git."""
    root = Path(root) if root is not None else project_root()
    commit = head_commit(root)
    if commit is None:
        return UNKNOWN
    dirty = tracked_changes(root) or not _frozen_files_match(root, commit)
    return commit + ("+dirty" if dirty else "")


def _frozen_files_match(root: Path, commit: str) -> bool:
    committed = frozen_blobs(root, commit)
    if committed is None:
        return False
    running = running_files(root)
    if set(committed) != set(running):
        return False
    return all(git_blob_id(running[rel].read_bytes()) == blob for rel, blob in committed.items())
