"""What a session's workspace says at its end: the graded patch and the paper's process measures.

Everything here reads the workspace's files and its git history alone (git run with no user or
system configuration and no repository setting able to run a program), so the run's end and an
audit's re-derivation (``evidence.py``) compute the same:

- :func:`final_patch`: the patch graded, ``git diff BASE`` of the whole work tree (tracked and
  untracked files, as ``git add -A`` sees them, in an index of its own: the agent's index is left
  alone), **without the two notes** the procedure asks for (``investigation.md`` and
  ``root_cause.md`` at the repository's root, when the base commit has no file of that name).
  They are process artefacts, not part of the fix: kept in the patch they would make every attempt
  that wrote notes a non-empty patch (the paper's empty patches are attempts without a change to
  the repository) and would reach the harness as new files (harmless to its tests). They stay in
  the workspace and its history, where the phase log reads them.
- :func:`new_tests`: the functions named ``test_*`` the patch adds (a ``def`` on an added line of
  a ``.py`` file): the paper's "new tests" (SWE-bench replaces the test files with the gold tests
  when it grades, so this measure does not affect resolution).
- :func:`phase_log` and :func:`procedure`: the phases the commits since the base complete, in
  order: *investigate* (a commit that adds or changes ``investigation.md``), *root cause*
  (``root_cause.md``), *fix* (a commit that changes a Python file). The procedure is followed when
  all three are completed in that order, each in a commit after the previous phase's, with no
  Python file changed by any commit before the root cause's (the paper's "procedure followed":
  investigate, root cause and fix completed in order by the phase log derived from the commit
  history; the FSM's guards hold the same line: no ``.py`` change before FIX).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

NOTES = ("investigation.md", "root_cause.md")
INVESTIGATE, ROOT_CAUSE, FIX = "investigate", "root_cause", "fix"
#: At most this many commits are listed in the outcome's phase log (the verdict reads them all).
LOG_CAP = 200
#: A function named test_* on an added line of a patch.
_TEST_DEF = re.compile(r"^\+\s*(?:async\s+)?def\s+(test_\w*)\s*\(")
#: No repository setting may run a program while this module reads a workspace.
_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "diff.external=",
         "-c", "core.pager=cat", "-c", "core.quotePath=false", "-c", "diff.noprefix=false",
         "-c", "diff.mnemonicPrefix=false", "-c", "diff.relative=false", "-c", "core.autocrlf=false")


class WorkspaceError(RuntimeError):
    """The workspace's git history cannot be read (the message says why)."""


def git(workspace: Path, *args: str, index: str | None = None) -> str:
    """git in ``workspace`` with no user or system configuration and the safe settings; its output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C", GIT_OPTIONAL_LOCKS="0")
    if index is not None:
        env["GIT_INDEX_FILE"] = index
    done = subprocess.run(["git", *_SAFE, *args], cwd=workspace, env=env, capture_output=True, text=True,
                          errors="replace", timeout=300)
    if done.returncode != 0:
        raise WorkspaceError(f"git {' '.join(args[:3])} failed in {workspace}: {done.stderr.strip()[:300]}")
    return done.stdout


def notes_excluded(workspace: Path, base: str) -> list[str]:
    """The notes left out of the patch: those the base commit does not have."""
    out = []
    for name in NOTES:
        try:
            git(workspace, "cat-file", "-e", f"{base}:{name}")
        except WorkspaceError:
            out.append(name)
    return out


def final_patch(workspace: Path, base: str) -> str:
    """The graded patch: the work tree against ``base``, the notes left out (module docstring)."""
    workspace = Path(workspace)
    with tempfile.TemporaryDirectory(prefix="sweb-index-") as tmp:
        index = str(Path(tmp) / "index")
        git(workspace, "read-tree", base, index=index)
        git(workspace, "add", "-A", "--", ".", index=index)
        excluded = [f":(top,exclude){name}" for name in notes_excluded(workspace, base)]
        return git(workspace, "diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", base, "--", ".",
                   *excluded, index=index)


@dataclass(frozen=True)
class PatchFacts:
    sha256: str
    files: list[str]
    lines: int          # lines added plus lines removed
    empty: bool
    new_tests: list[str]


def new_tests(patch: str) -> list[str]:
    """The functions named test_* the patch adds in ``.py`` files (module docstring), in order."""
    found, python = [], False
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            python = line.rsplit(" b/", 1)[-1].endswith(".py")
        elif python and not line.startswith("+++"):
            match = _TEST_DEF.match(line)
            if match:
                found.append(match.group(1))
    return found


def patch_facts(patch: str) -> PatchFacts:
    files = [line.rsplit(" b/", 1)[-1] for line in patch.splitlines() if line.startswith("diff --git ")]
    lines = sum(1 for line in patch.splitlines() if (line.startswith("+") and not line.startswith("+++"))
                or (line.startswith("-") and not line.startswith("---")))
    return PatchFacts(hashlib.sha256(patch.encode()).hexdigest(), files, lines, not patch.strip(), new_tests(patch))


def phase_log(workspace: Path, base: str) -> list[dict]:
    """Each commit since ``base`` (first parents, oldest first): its sha and the phases it completes."""
    listing = git(workspace, "rev-list", "--reverse", "--first-parent", f"{base}..HEAD").split()
    out = []
    for sha in listing:
        files = git(workspace, "diff-tree", "--no-commit-id", "--name-only", "-r", "-m", "--first-parent",
                    "--root", sha).splitlines()
        phases = []
        if "investigation.md" in files:
            phases.append(INVESTIGATE)
        if "root_cause.md" in files:
            phases.append(ROOT_CAUSE)
        if any(f.endswith(".py") for f in files):
            phases.append(FIX)
        out.append({"sha": sha, "phases": phases})
    return out


def procedure(log: list[dict]) -> tuple[bool, str | None]:
    """(followed, why not) from a :func:`phase_log` (module docstring)."""
    def first(phase: str) -> int | None:
        return next((i for i, c in enumerate(log) if phase in c["phases"]), None)

    inv, cause, fix = first(INVESTIGATE), first(ROOT_CAUSE), first(FIX)
    if inv is None:
        return False, "no commit of investigation.md"
    if cause is None:
        return False, "no commit of root_cause.md"
    if fix is not None and fix <= cause:
        return False, "a Python file changed in a commit before root_cause.md was committed (or in the same commit)"
    if cause <= inv:
        return False, "root_cause.md was committed before (or with) investigation.md"
    if fix is None:
        return False, "no commit changes a Python file after the root cause (no fix committed)"
    return True, None


def measures(workspace: Path, base: str, patch: str | None = None) -> dict:
    """The outcome's fields the workspace gives: the patch's facts (of ``patch``, else the final
    patch) and the phase log's verdict."""
    patch = final_patch(workspace, base) if patch is None else patch
    facts = patch_facts(patch)
    log = phase_log(workspace, base)
    followed, why = procedure(log)
    committed = {name: any(p in c["phases"] for c in log) for name, p in (("investigation", INVESTIGATE),
                                                                          ("root_cause", ROOT_CAUSE))}
    return {"patch_sha256": facts.sha256, "patch_files": facts.files, "patch_lines": facts.lines,
            "empty_patch": facts.empty, "new_tests": facts.new_tests, "commits": len(log),
            "phase_log": [{"sha": c["sha"][:12], "phases": c["phases"]} for c in log[:LOG_CAP]],
            "notes_committed": committed, "procedure_followed": followed, "procedure_problem": why}
