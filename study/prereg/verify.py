"""Compare the tree with the manifest in effect, and the check every run makes first.

The manifest in effect is the freeze (``MANIFEST.sha256``, sealed by ``freeze.json``) with the
amendments of ``amendments.jsonl`` applied in order (``chain.py``). ``verify()`` reports:

- every frozen file under the project root as ok, changed, missing or added;
- every problem with the records themselves (a manifest edited after the freeze, an amendment
  edited, removed or reordered), each naming its file and line;
- the records' git history (``history.py``): rewritten and committed records;
- the frozen code *as imported*, when Python imports it from somewhere other than the root
  (``imported.py``): the code that runs is the code that is checked;
- the runtime (``runtime.py``): the CLI, SDK and lock in effect against those installed;
- the sessions under ``<root>/sessions`` that record a manifest hash the chain never produced.

``check_before_run()`` turns any of these into a ``PreregViolation``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from study.paths import SESSIONS, project_root

from .chain import Link, read_chain
from .errors import NotFrozen, PreregError, PreregViolation
from .files import FREEZE_RECORD, MANIFEST, PREREG_DIR, hash_tree
from .gitinfo import committed_bytes
from .history import History, check_history
from .imported import compare_imported, imported_elsewhere
from .records import amendment_lines
from .runtime import RuntimeCheck, check_runtime

__all__ = ["Link", "Report", "check_before_run", "verify", "violation_message"]


@dataclass
class Report:
    """The outcome of ``verify()``."""

    root: Path
    freeze: dict[str, Any] | None
    #: The amendment entries that could be read, in file order.
    amendments: list[dict[str, Any]]
    #: The chain's records in order, up to the first break: the freeze, then each amendment.
    links: list[Link]
    #: ``(status, path)`` for every file in the manifest in effect or on disk, sorted by path.
    statuses: list[tuple[str, str]]
    #: What is wrong with the manifest, freeze.json or amendments.jsonl, each naming its file.
    problems: list[str]
    #: The manifest in effect: path -> sha256.
    effective: dict[str, str] = field(default_factory=dict)
    #: The git history of the records (the freeze commit, rewrites).
    history: History = field(default_factory=History)
    #: ``(status, path, file)`` for imported frozen code that differs from the manifest in effect.
    imported: list[tuple[str, str, Path]] = field(default_factory=list)
    #: package -> folder, for the packages imported from somewhere other than the root.
    imported_from: dict[str, Path] = field(default_factory=dict)
    #: The runtime in effect against the one installed (None if the chain is broken).
    runtime: RuntimeCheck | None = None
    #: Sessions under <root>/sessions that ran under a manifest the chain never produced.
    sessions: list[str] = field(default_factory=list)

    def paths(self, status: str) -> list[str]:
        return [path for s, path in self.statuses if s == status]

    @property
    def chain_intact(self) -> bool:
        return not self.problems

    @property
    def effective_sha256(self) -> str | None:
        """The hash of the last record of an intact chain (what sessions record), else None."""
        return self.links[-1].sha256 if self.chain_intact and self.links else None

    @property
    def failures(self) -> list[str]:
        """Everything besides the file statuses that makes the check fail, in order."""
        runtime = self.runtime.problems if self.runtime else []
        return [*self.problems, *self.history.problems, *self.sessions, *runtime]

    @property
    def notes(self) -> list[str]:
        return [*self.history.notes, *(self.runtime.notes if self.runtime else [])]

    @property
    def ok(self) -> bool:
        return (not self.failures and not self.imported
                and all(status == "ok" for status, _ in self.statuses))


def verify(root: Path | None = None) -> Report:
    """Check the frozen files, the chain of records, their history, the imported code, the
    runtime and the sessions' manifests under ``root`` (default: the project).

    Raises ``NotFrozen`` if there is no freeze at all.
    """
    from .session_checks import foreign_manifests

    root = Path(root) if root is not None else project_root()
    if not (root / MANIFEST).exists() and not (root / FREEZE_RECORD).exists() and not amendment_lines(root):
        if committed_bytes(root, FREEZE_RECORD) is not None:
            raise PreregViolation(
                f"The records of the freeze ({MANIFEST}, {FREEZE_RECORD}) are missing, but git HEAD holds them: "
                f"they are never deleted; restore them with `git checkout HEAD -- {PREREG_DIR}/`.",
                problems=[f"{FREEZE_RECORD} is missing, but git HEAD holds it"],
            )
        raise NotFrozen(
            f"The preregistration in {root / PREREG_DIR} is not frozen: there is no {MANIFEST}. "
            "Freeze it with `study prereg freeze` once the plan is final."
        )
    chain = read_chain(root)
    problems = list(chain.problems)
    try:
        on_disk = hash_tree(root)
    except PreregError as exc:
        problems.append(str(exc))
        on_disk = {}
    effective = chain.effective
    statuses = []
    for path in sorted(set(effective) | set(on_disk)):
        if path not in on_disk:
            statuses.append(("missing", path))
        elif path not in effective:
            statuses.append(("added", path))
        else:
            statuses.append(("ok" if effective[path] == on_disk[path] else "changed", path))
    report = Report(root, chain.freeze, chain.amendments, chain.links, statuses, problems, effective)
    report.history = check_history(root, chain.freeze, chain.manifest)
    report.imported_from = imported_elsewhere(root)
    report.imported = compare_imported(root, effective)
    if report.chain_intact:
        report.runtime = check_runtime(root, effective)
        report.sessions = foreign_manifests(root / SESSIONS, report.links)
    return report


def violation_message(report: Report) -> str:
    """The message of a refused run: every changed, missing or added file and each problem."""
    lines = ["What differs from the frozen preregistration:"]
    for status in ("changed", "missing", "added"):
        for path in report.paths(status):
            lines.append(f"  {status}: {path}")
    if report.imported:
        lines.append(f"  The code Python imports ({imported_from(report)}) is not the code the manifest in "
                     f"effect at {report.root} lists:")
        lines += [f"  {status} in the imported code: {path} ({file})" for status, path, file in report.imported]
    for problem in report.failures:
        lines.append(f"  {problem}")
    lines.append(
        "See every file's status with `study prereg verify`. If a change is intended, record it "
        "before running with `study prereg amend --reason \"why\" FILE...`; otherwise restore the "
        "file (e.g. `git checkout -- FILE`)."
    )
    return "\n".join(lines)


def imported_from(report: Report) -> str:
    return ", ".join(f"{name} from {folder}" for name, folder in sorted(report.imported_from.items()))


def check_before_run(root: Path | None = None) -> str:
    """The check ``study run`` and ``study run-all`` make before anything starts.

    Returns the effective manifest hash (to record in the session), or raises
    ``PreregViolation`` (``NotFrozen`` if there is no freeze) naming every changed, missing or
    added file (under the root, and in the code as imported), every broken record, every
    rewrite in the records' history, and a runtime (CLI, SDK, lock) other than the one in effect,
    with both versions.
    """
    report = verify(root)
    if not report.ok:
        raise PreregViolation(
            violation_message(report),
            changed=report.paths("changed"),
            missing=report.paths("missing"),
            added=report.paths("added"),
            problems=[*report.failures, *(f"{s} in the imported code: {p}" for s, p, _ in report.imported)],
        )
    return report.effective_sha256
