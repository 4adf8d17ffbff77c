"""Versions of a workflow file: kept, chained by sha256, verified.

Accepting a proposal (``study fsm accept``) writes the next version. The versions of
``workflows/bugfix.yaml`` live beside it in ``workflows/.versions/bugfix.yaml/``: ``v0001.yaml``,
``v0002.yaml``, ... (the exact texts) and ``chain.jsonl``, one line per version::

    {"version": 2, "sha256": "<of v0002.yaml's bytes>", "parent": "<version 1's sha256>",
     "proposal": "p2", "at": "2026-...Z", "file": "v0002.yaml"}

Version 1 is the file as it was when the first proposal was accepted (``parent`` null,
``proposal`` null). The workflow file itself always holds the latest version. :meth:`verify`
recomputes every version's sha256, checks that each names its parent's and that the workflow
file is the latest; any edit of a version file, a chain line or the workflow file outside
``accept`` breaks it. The chain is tamper-evident, not tamper-proof: whoever rewrites every
file and line consistently is not detected (keep the latest sha256 somewhere else, e.g. in git).

A frame runs under the version it was entered under (its ``workflow_sha256``):
:meth:`workflow_for` finds that version's text, so a runtime over the current file still carries
an old frame on under its own version until ``study fsm migrate`` moves it.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from study.errors import StudyError
from study.paths import prereg_dir

from .workflow import Workflow, WorkflowError

VERSIONS_DIR = ".versions"
CHAIN_NAME = "chain.jsonl"


class VersionError(StudyError, RuntimeError):
    """The version store cannot be read or written (names the file and what to do)."""


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def utc_stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def is_preregistered(path: Path) -> bool:
    """Whether the workflow file belongs to a preregistration (the study's, or any project's
    ``preregistration/`` folder with a ``conditions.yaml``): it changes only by an amendment."""
    resolved = Path(path).resolve()
    if resolved.is_relative_to(prereg_dir().resolve()):
        return True
    return any(p.name == "preregistration" and (p / "conditions.yaml").is_file() for p in resolved.parents)


@dataclass(frozen=True)
class Version:
    version: int
    sha256: str
    parent: str | None
    proposal: str | None
    at: str
    file: str

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "sha256": self.sha256, "parent": self.parent,
                "proposal": self.proposal, "at": self.at, "file": self.file}


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


class VersionStore:
    """The versions of one workflow file (see the module docstring)."""

    def __init__(self, workflow_file: Path):
        self.workflow_file = Path(workflow_file)
        self.dir = self.workflow_file.parent / VERSIONS_DIR / self.workflow_file.name
        self.chain_path = self.dir / CHAIN_NAME

    def versions(self) -> list[Version]:
        """The chain as recorded ([] before the first accept); VersionError if a line is unreadable."""
        try:
            lines = self.chain_path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out = []
        for n, line in enumerate(lines, start=1):
            try:
                data = json.loads(line)
                out.append(Version(int(data["version"]), str(data["sha256"]),
                                   None if data["parent"] is None else str(data["parent"]),
                                   None if data["proposal"] is None else str(data["proposal"]),
                                   str(data["at"]), str(data["file"])))
            except (ValueError, KeyError, TypeError) as exc:
                raise VersionError(f"{self.chain_path}:{n}: not a version record ({exc}); the chain was edited by hand: restore it") from None
        return out

    def text_of(self, version: Version) -> str:
        path = self.dir / Path(version.file).name
        try:
            return path.read_text(encoding="utf-8")
        except OSError as exc:
            raise VersionError(f"{path}: version {version.version} cannot be read ({exc.strerror or exc})") from None

    def append(self, text: str, proposal: str) -> Version:
        """Record ``text`` as the next version (version 1 is the current file, recorded first if the
        chain is empty) and make it the workflow file's content. The caller validated it."""
        self.dir.mkdir(parents=True, exist_ok=True)
        chain = self.versions()
        if not chain:
            base = self.workflow_file.read_text(encoding="utf-8")
            chain.append(self._write(1, base, None, None))
        new = self._write(chain[-1].version + 1, text, chain[-1].sha256, proposal)
        _atomic_write(self.workflow_file, text)
        return new

    def _write(self, number: int, text: str, parent: str | None, proposal: str | None) -> Version:
        name = f"v{number:04d}.yaml"
        _atomic_write(self.dir / name, text)
        version = Version(number, sha256_text(text), parent, proposal, utc_stamp(), name)
        with open(self.chain_path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(version.to_json(), sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        return version

    def verify(self) -> list[str]:
        """Every break in the chain, as sentences naming the file ([] : the chain holds)."""
        try:
            chain = self.versions()
        except VersionError as exc:
            return [str(exc)]
        problems = []
        parent = None
        for i, v in enumerate(chain, start=1):
            if v.version != i:
                problems.append(f"{self.chain_path}: line {i} is version {v.version}, expected {i} (a version was removed or reordered)")
            if v.parent != parent:
                problems.append(f"{self.chain_path}: version {v.version} names parent {str(v.parent)[:12]}..., "
                                f"but version {i - 1}'s sha256 is {str(parent)[:12]}...")
            try:
                actual = sha256_text(self.text_of(v))
            except VersionError as exc:
                problems.append(str(exc))
            else:
                if actual != v.sha256:
                    problems.append(f"{self.dir / v.file}: sha256 {actual[:12]}... differs from the chain's "
                                    f"{v.sha256[:12]}...: version {v.version} was changed after it was accepted")
            parent = v.sha256
        if chain:
            try:
                live = sha256_text(self.workflow_file.read_text(encoding="utf-8"))
            except OSError as exc:
                problems.append(f"{self.workflow_file}: cannot be read ({exc.strerror or exc})")
            else:
                if live != chain[-1].sha256:
                    problems.append(f"{self.workflow_file}: sha256 {live[:12]}... is not the latest version's "
                                    f"({chain[-1].sha256[:12]}...): the file was edited outside `study fsm accept`")
        return problems

    def number_of(self, sha256: str) -> int | None:
        """The version number whose text has ``sha256`` (None: not a recorded version)."""
        try:
            return next((v.version for v in self.versions() if v.sha256 == sha256), None)
        except VersionError:
            return None

    def workflow_for(self, sha256: str) -> Workflow | None:
        """The recorded version with ``sha256``, loaded (None: no such version, or its text no
        longer has that sha256)."""
        try:
            found = next((v for v in self.versions() if v.sha256 == sha256), None)
            if found is None:
                return None
            text = self.text_of(found)
        except VersionError:
            return None
        if sha256_text(text) != sha256:
            return None
        try:
            return Workflow.from_text(text, file=str(self.dir / found.file))
        except WorkflowError:
            return None


def resolver(workflow_files: list[Path]):
    """``versions(name, sha256) -> Workflow | None`` over the stores of ``workflow_files`` (what
    :class:`study.fsm.FsmRuntime` takes to carry old frames on under their own version)."""
    stores = [VersionStore(p) for p in workflow_files]

    def find(name: str, sha256: str) -> Workflow | None:
        for store in stores:
            wf = store.workflow_for(sha256)
            if wf is not None and wf.name == name:
                return wf
        return None

    return find
