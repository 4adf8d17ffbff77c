"""The checks ``study audit`` makes on an analysed session beyond its manifest hash, and the
sessions check of ``study prereg verify``.

- **Runtime**: the session's runtime fields equal the runtime in effect when it started (the
  ``runtime.json`` of the manifest in effect then, read from the tree or from git history): for a
  Claude Code session its ``cli_version``, ``sdk_version`` and ``lock_sha256`` (the last two are
  recorded since schema 2, and their absence in an older log is a note), for a Codex CLI session
  its ``cli_version`` (the frozen ``codex_version``), ``runtime_lock_sha256`` (the frozen
  ``codex_lock_sha256``) and ``lock_sha256`` (``runtime.SESSION_FIELDS``).
- **Code version**: the session's ``code_version`` is a commit of this repository whose frozen
  files equal the manifest in effect when it started (the freeze commit, or a later commit that
  changed frozen files only through amendments). ``+dirty`` is flagged: the code that ran
  differed from its commit, so git cannot confirm it.
- **Foreign manifests** (``verify``): a confirmatory session under ``<root>/sessions`` that
  recorded a manifest hash the chain never produced (the freeze was replaced or rewritten
  after it ran).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from study.session_io.folders import find_sessions
from study.session_io.meta import read_meta

from .chain import Link
from .files import RUNTIME
from .gitinfo import blob_sha256, frozen_blobs, head_commit, is_commit
from .runtime import REFUSING, SESSION_FIELDS, runtime_for_hash

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_DIRTY = ("+dirty", "-dirty")
#: Runtime fields sessions record only since schema 2: their absence in an older log is a note.
_RECORDED_SINCE_SCHEMA_2 = ("sdk_version", "lock_sha256")


@dataclass
class SessionChecks:
    """Caches what several sessions share (runtimes by hash, commits' frozen files)."""

    root: Path
    git: bool = True
    _runtimes: dict[str, Any] = field(default_factory=dict)
    _commits: dict[tuple[str, str], list[str] | None] = field(default_factory=dict)

    @classmethod
    def for_root(cls, root: Path) -> SessionChecks:
        return cls(Path(root), git=head_commit(Path(root)) is not None)

    def runtime(self, link: Link) -> dict[str, Any] | None:
        sha = link.files.get(RUNTIME)
        if sha not in self._runtimes:
            self._runtimes[sha] = runtime_for_hash(self.root, sha)
        return self._runtimes[sha]

    def check_runtime(self, link: Link, start: dict, meta: dict, problems: list[str], notes: list[str]) -> None:
        runtime = self.runtime(link)
        if runtime is None:
            notes.append(f"{link.label} records no readable runtime ({RUNTIME}): CLI and SDK versions not checked")
            return
        on = start.get("runtime") or meta.get("runtime") or "claude-code"
        fields = SESSION_FIELDS.get(on)
        if fields is None:
            problems.append(f"ran on runtime {on!r}, which this package does not know: its runtime cannot be checked")
            return
        for name, frozen in fields.items():
            words = REFUSING[frozen]
            what = f"the {words}" if frozen.endswith("sha256") else f"the {words} version"
            recorded = start.get(name) or meta.get(name)
            if not recorded:
                if name in _RECORDED_SINCE_SCHEMA_2 and on == "claude-code":
                    notes.append(f"no {name} recorded (a log from before it was recorded): {what} is not checked")
                else:
                    problems.append(f"no {name} recorded: {what} cannot be checked")
            elif frozen not in runtime:
                problems.append(f"ran on {words} {recorded}, but the runtime in effect when it started "
                                f"({link.label}) records no {words}")
            elif recorded != runtime.get(frozen):
                ran = "ran with the" if frozen.endswith("sha256") else "ran on"
                problems.append(f"{ran} {words} {recorded}, but the runtime in effect when it started "
                                f"({link.label}) is {runtime.get(frozen)}")


    def check_code_version(self, link: Link, version: Any, problems: list[str], notes: list[str]) -> None:
        if not isinstance(version, str) or version in ("", "unknown"):
            return  # reported by the audit as "no code version recorded"
        if version.endswith(_DIRTY):
            problems.append(f"code_version {version}: the frozen files that ran differed from commit "
                            f"{version[:12]}, so git cannot confirm the code it ran")
            return
        if not self.git:
            notes.append(f"code_version {version[:12]} not checked: {self.root} is not a git checkout")
            return
        differ = self._differing(version, link)
        if differ is None:
            problems.append(f"code_version {version[:12]} is not a commit of the repository at {self.root}: "
                            "the code it ran cannot be checked")
        elif differ:
            shown = ", ".join(differ[:3]) + (f" and {len(differ) - 3} more" if len(differ) > 3 else "")
            problems.append(f"code_version {version[:12]}: its frozen files differ from the manifest in effect "
                            f"when it started ({link.label}): {shown}")

    def _differing(self, version: str, link: Link) -> list[str] | None:
        key = (version, link.sha256)
        if key not in self._commits:
            self._commits[key] = _frozen_differences(self.root, version, link.files)
        return self._commits[key]


def _frozen_differences(root: Path, version: str, manifest: dict[str, str]) -> list[str] | None:
    """The frozen paths whose content at commit ``version`` differs from ``manifest`` (missing and
    extra ones included), or None if the repository has no such commit."""
    commit = is_commit(root, version)
    if commit is None:
        return None
    blobs = frozen_blobs(root, commit) or {}
    digests = blob_sha256(root, sorted(set(blobs.values())))
    at_commit = {path: digests.get(blob) for path, blob in blobs.items()}
    return sorted(p for p in set(at_commit) | set(manifest) if at_commit.get(p) != manifest.get(p))


def foreign_manifests(sessions_root: Path, links: list[Link]) -> list[str]:
    """Confirmatory sessions under ``sessions_root`` whose recorded manifest hash is none of the
    chain's records. Exploratory and simulated sessions are left out: they are not formal runs,
    and a re-freeze before any formal run is allowed."""
    if not sessions_root.is_dir():
        return []
    known = {link.sha256 for link in links}
    found = []
    for folder in find_sessions(sessions_root):
        read = read_meta(folder)
        meta = read.to_dict() if read is not None else {}
        below = folder.relative_to(sessions_root).parts
        if meta.get("exploratory") or meta.get("simulated") or "exploratory" in below:
            continue
        recorded = meta.get("manifest_sha256")
        if isinstance(recorded, str) and _HEX64.match(recorded) and recorded not in known:
            found.append(
                f"sessions/{'/'.join(below)} ran under manifest {recorded[:16]}…, which this chain never "
                "produced (neither the freeze nor an amendment): the freeze was replaced or its records "
                "rewritten after the session ran; see `study audit`"
            )
    return found
