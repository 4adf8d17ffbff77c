"""Which files the preregistration freezes, their sha256, and the manifest's line format.

The frozen set is every file under ``preregistration/`` except the three files that record the
freeze itself (``MANIFEST.sha256``, ``freeze.json``, ``amendments.jsonl``) and its RFC 3161
timestamps (``preregistration/stamps/<n>.tsr|.pem|.json``, see ``stamps.py``), plus every Python
source of the code that decides what a session is and how it is scored: ``analysis/`` (the
metric and the statistics), ``study/fsm/`` (the enforcement: runtime and guards),
``study/runner/`` (how texts are filled in, the hooks, limits and voiding rules),
``study/runtimes/`` (how each agent CLI is started, configured and read: the runtime adapters),
``study/session_io/`` (how session logs are written and read for the analysis),
``study/families/`` (what a session's work is, per task family: its tools, texts and end; every
file there, its data too: a benchmark's task files, a protocol's prompts and templates),
``study/tooling/`` (the tool result and the MCP server every family's tools are served by),
``study/procedure/escape_routes.py`` (the registry of escape routes the scorer counts),
``study/procedure/core.py`` and ``study/procedure/texts.py`` (what a task's procedure and texts are),
``study/errors.py`` (the error root the frozen code raises from), ``study/protocol/`` (the readers
of the preregistration's conditions, limits, models and amendments) and
``sopbench_tools/`` (the tools the agent sees). ``preregistration/runtime.json`` (the Claude Code
CLI, claude-agent-sdk, lock file and Python the study runs on) is frozen like any other file under
``preregistration/``. As in the paper, no run starts once any of it
changed without a recorded amendment. A path is written POSIX-style relative to the project root, so that
``sha256sum -c preregistration/MANIFEST.sha256`` run from the root checks the manifest with
nothing of ours installed.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .errors import PreregError

PREREG_DIR = "preregistration"
ANALYSIS_DIR = "analysis"
#: Folders whose Python sources are frozen (root-relative, POSIX).
FROZEN_CODE_DIRS = (ANALYSIS_DIR, "study/families", "study/fsm", "study/protocol", "study/runner", "study/runtimes",
                    "study/session_io", "study/tooling", "sopbench_tools")
#: Single Python files outside those folders that are frozen too.
FROZEN_CODE_FILES = ("study/procedure/escape_routes.py", "study/procedure/core.py", "study/procedure/texts.py", "study/errors.py")
#: The task manifests (``sopbench_tools/tasks/manifests/*.yaml``): data that defines the tools a
#: session sees (names, schemas, labels, texts), frozen like the code.
TASK_MANIFEST_DIR = "sopbench_tools/tasks/manifests"
#: Folders whose every file is frozen, not only their Python: the task families' data a session
#: runs on (a benchmark's vendored task files, a protocol's prompts, templates and workflows).
FROZEN_DATA_DIRS = ("study/families",)
#: Where the frozen files lie, root-relative: what ``git ls-tree`` lists to find them at a commit.
FROZEN_TOPS = (PREREG_DIR, *FROZEN_CODE_DIRS, *FROZEN_CODE_FILES)
#: The top-level packages the frozen code belongs to (what ``import`` loads it from).
CODE_PACKAGES = ("analysis", "study", "sopbench_tools")
#: The frozen runtime (see ``runtime.py``): a frozen file like any other under preregistration/.
RUNTIME = "preregistration/runtime.json"
MANIFEST = "preregistration/MANIFEST.sha256"
FREEZE_RECORD = "preregistration/freeze.json"
AMENDMENTS = "preregistration/amendments.jsonl"
#: The files that record the freeze; they are not part of the frozen set.
RECORD_FILES = (MANIFEST, FREEZE_RECORD, AMENDMENTS)
#: Where the RFC 3161 timestamps of the freeze are kept (``stamps.py``): records of the freeze too,
#: never frozen. Only the names a stamp is written under are records; any other file there is an
#: ordinary file under preregistration/ (frozen, so ``prereg verify`` reports it as added).
STAMPS_DIR = "preregistration/stamps"
_STAMP_FILE = re.compile(r"^preregistration/stamps/([1-9][0-9]*)\.(tsr|pem|json)$")

#: One manifest line as ``sha256sum`` writes it: hash, two spaces (or space and ``*`` for
#: binary mode, which sha256sum also accepts), path.
_MANIFEST_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def stamp_file(rel: str) -> tuple[int, str] | None:
    """``(n, suffix)`` if ``rel`` (relative to the root) is a file of stamp ``n`` (suffix ``tsr``,
    ``pem`` or ``json``), else None."""
    match = _STAMP_FILE.match(rel)
    return (int(match.group(1)), match.group(2)) if match else None


def is_frozen_path(rel: str) -> bool:
    """True if ``rel`` (relative to the root) belongs to the frozen set's domain."""
    parts = rel.split("/")
    if "__pycache__" in parts or rel in RECORD_FILES or stamp_file(rel) is not None:
        return False
    if parts[0] == PREREG_DIR and len(parts) > 1:
        return True
    if rel in FROZEN_CODE_FILES:
        return True
    if rel.startswith(TASK_MANIFEST_DIR + "/") and rel.endswith(".yaml"):
        return True
    if any(rel.startswith(top + "/") for top in FROZEN_DATA_DIRS) and not rel.endswith((".pyc", ".pyo")):
        return True
    return rel.endswith(".py") and any(rel.startswith(top + "/") for top in FROZEN_CODE_DIRS)


def is_code_path(rel: str) -> bool:
    """True for a frozen path that is code (imported), not preregistration data."""
    return is_frozen_path(rel) and not rel.startswith(PREREG_DIR + "/")


def frozen_paths(root: Path) -> list[str]:
    """The frozen files now on disk under ``root``, sorted, as root-relative POSIX paths."""
    found = [rel for rel in FROZEN_CODE_FILES if (root / rel).is_file()]
    for top in (PREREG_DIR, *FROZEN_CODE_DIRS):
        found += files_under(root, top)
    return sorted(found)


def files_under(base: Path, top: str) -> list[str]:
    """The frozen files under ``base / top`` as POSIX paths relative to ``base`` (the project
    root, or the folder an imported package lives in)."""
    found = []
    folder = base / top
    if not folder.is_dir():
        return found
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        rel = path.relative_to(base).as_posix()
        if is_frozen_path(rel):
            if "\n" in rel or "\\" in rel:
                raise PreregError(
                    f"{rel!r}: a frozen file's name may not contain a newline or a backslash "
                    "(sha256sum would escape it); rename the file."
                )
            found.append(rel)
    return found


def hash_tree(root: Path) -> dict[str, str]:
    """sha256 of every frozen file now on disk: root-relative path -> hex digest."""
    return {rel: sha256_file(root / rel) for rel in frozen_paths(root)}


def format_manifest(hashes: dict[str, str]) -> str:
    """The manifest text in ``sha256sum`` format, sorted by path."""
    return "".join(f"{hashes[rel]}  {rel}\n" for rel in sorted(hashes))


def parse_manifest(text: str) -> tuple[dict[str, str], list[str]]:
    """Parse a manifest: (path -> sha256, problems naming each unreadable line)."""
    hashes: dict[str, str] = {}
    problems = []
    for number, line in enumerate(text.splitlines(), start=1):
        match = _MANIFEST_LINE.match(line)
        if not match:
            problems.append(f"{MANIFEST} line {number}: not a 'sha256  path' line: {line[:80]!r}")
            continue
        digest, rel = match.groups()
        if rel in hashes:
            problems.append(f"{MANIFEST} line {number}: {rel} is listed twice")
        hashes[rel] = digest
    return hashes, problems


def analysis_code_sha256(hashes: dict[str, str]) -> str:
    """The aggregate hash of the analysis code: sha256 of the manifest lines of ``analysis/``.

    A reviewer reproduces it with
    ``grep -E '^[0-9a-f]{64}  analysis/' preregistration/MANIFEST.sha256 | sha256sum``.
    """
    analysis = {rel: h for rel, h in hashes.items() if rel.startswith(ANALYSIS_DIR + "/")}
    return sha256_bytes(format_manifest(analysis).encode("utf-8"))
