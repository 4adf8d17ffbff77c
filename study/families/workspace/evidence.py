"""The workspace family's ``evidence`` part: a staged protocol's verdict re-derived from the run's
workspace (issue 50), never read from its ``outcome`` event. ``study.session_io.verdicts`` asks
it, for every reader alike, and compares.

``rederive(session_dir, events, study) -> (fields | None, problems)`` dispatches to the study's
protocol (its frozen ``study.yaml``, never the log's word; the log must name the same) and runs
that protocol's own scorer over the workspace, as the run did at its end:

- AutoResearch (``autoresearch.scorer.outcome``): each ledger row's validity from ``ledger.tsv``
  and the workspace's git history (the candidate commits, the files each changes), complete, best
  kept accuracy, under the run's plan (the full plan, or ``--accounts N``'s smaller one, which the
  log's ``plan`` must be);
- the month-end close (``month_end_close.scorer.outcome``): each period's report against the
  generator's close of the run's seed (recomputed: no answer is stored), started or not, over the
  run's periods, at the turn cap the log's limits give.

Before anything reads in it the workspace is checked as the logs are (``safe_files.check_tree``:
no FIFO, device or socket, no link leading outside the session folder, caps on its bytes and
entries), its git history must be its own (``.git`` a folder, no alternates or common folder
borrowing another repository's objects) and readable (``HEAD`` resolves), and every commit the log
recorded (``commit`` events) must be in it: a workspace whose history was deleted or replaced is
no evidence. git runs with no repository setting able to run a program (``stage_check.git``).

A voided run scored nothing at its end: it gives None.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from study.session_io.git_evidence import borrowed

#: Fields an outcome may record that are not re-derived: none.
INFORMATIONAL: tuple[str, ...] = ()
WORKSPACE = "workspace"


def rederive(session_dir: Path, events: list[dict[str, Any]], study: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The outcome's fields as the run's workspace gives them, or the problems that stop it."""
    from study.protocol.evidence_study import log_ends, read_family_study
    from study.session_io.vocabulary import status_voids

    from .family import WorkspaceStudyError, protocol_of

    session_dir = Path(session_dir)
    start, end = log_ends(events)
    protocol, problems = read_family_study(study, "workspace", protocol_of, errors=(WorkspaceStudyError,),
                                           whose="the workspace family: the session's family is not its study's",
                                           unknown="protocol")
    if problems:
        return None, problems
    if start.get("protocol") != protocol:
        return None, [f"its log names protocol {start.get('protocol')!r}, study {study}'s is {protocol!r}"]
    if end is not None and status_voids(end.get("status")):
        return None, []          # a voided run is kept, never scored
    seed = start.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 1:
        return None, [f"its seed {seed!r} is not a seed"]
    size = start.get("size")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        return None, [f"its size {size!r} (--accounts) is not a whole number from 1"]
    workspace = session_dir / WORKSPACE
    if start.get("workspace") != WORKSPACE:
        return None, [f"its log names workspace {start.get('workspace')!r}, the family's is {WORKSPACE!r}"]
    problem = _workspace_problem(workspace, session_dir, events)
    if problem is not None:
        return None, [problem]
    if protocol == "autoresearch":
        from .autoresearch.protocol import FULL_PLAN, Plan
        from .autoresearch.scorer import outcome as research_outcome

        plan = FULL_PLAN if size is None else Plan.uniform(size)
        if start.get("plan") != dict(plan.trials):
            return None, [f"its log's plan {start.get('plan')!r} is not the protocol's for its size ({dict(plan.trials)})"]
        return research_outcome(workspace, plan, seed), []
    from .month_end_close.scorer import outcome as close_outcome
    from .month_end_close.world import PERIODS

    limits = start.get("limits") if isinstance(start.get("limits"), dict) else {}
    turns = limits.get("turns")
    if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
        return None, [f"its log's turn cap {turns!r} (limits.turns) is not a whole number from 1"]
    periods = len(PERIODS) if size is None else min(size, len(PERIODS))
    return close_outcome(workspace, seed, periods, turns), []


def _workspace_problem(workspace: Path, session_dir: Path, events: list[dict[str, Any]]) -> str | None:
    """Why the workspace is no evidence (None: it is)."""
    from study.session_io.safe_files import check_tree

    from .autoresearch.stage_check import git

    try:
        check_tree(workspace, within=session_dir)
    except FileNotFoundError:
        return "its workspace is missing: the run its outcome scores is gone; restore the session folder from its archive"
    except OSError as exc:
        return f"its workspace is not read: {exc}"
    dot_git = workspace / ".git"
    if not dot_git.is_dir() or dot_git.is_symlink():
        return ("its workspace has no git history of its own (.git is missing or not a folder): the ledger's commits and "
                "the run's history cannot be checked; restore the session folder from its archive")
    shared = borrowed(dot_git)
    if shared is not None:
        return f"its workspace's git history borrows another repository's objects (.git/{shared})"
    code, _head = git(workspace, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    if code != 0:
        return "its workspace's git history cannot be read (HEAD names no commit): restore the session folder from its archive"
    shas = [e.get("sha") for e in events if e.get("kind") == "commit"]
    for sha in shas:
        if not isinstance(sha, str) or not sha or any(c not in "0123456789abcdef" for c in sha.lower()):
            return f"the log records a commit {sha!r} that is no commit id"
        code, _out = git(workspace, "cat-file", "-e", f"{sha}^{{commit}}")
        if code != 0:
            return (f"the log records commit {sha[:12]}, which is not in the workspace's git history: the history was "
                    "replaced after the run")
    return None


__all__ = ["INFORMATIONAL", "rederive"]
