"""Hand-made AutoResearch ledgers: commits and rows written directly (no training run)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from study.families.workspace.autoresearch.protocol import Plan
from study.families.workspace.autoresearch.workspace import AutoResearchRun, build_run


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, text=True).stdout.strip()


def candidate(run: AutoResearchRun, old: str | None = None, new: str | None = None, extra: str | None = None) -> str:
    """Commit a candidate: train.py with ``old`` replaced by ``new`` (None: an empty commit), and
    a file ``extra`` added when named. Returns the short id."""
    if old is not None:
        path = run.workspace / "train.py"
        path.write_text(path.read_text().replace(old, new, 1))
    if extra:
        (run.workspace / extra).write_text("notes\n")
        git(run.workspace, "add", extra)
    git(run.workspace, "commit", "-q", "--allow-empty", "-am", "candidate")
    return git(run.workspace, "rev-parse", "--short", "HEAD")


def measured(run: AutoResearchRun, commit: str, accuracy: float) -> None:
    """The results file a run of ``commit`` writes."""
    full = git(run.workspace, "rev-parse", commit)
    (run.workspace / "results").mkdir(exist_ok=True)
    (run.workspace / "results" / f"{full[:12]}.json").write_text(json.dumps({"commit": full, "test_accuracy": accuracy}))


def append(run: AutoResearchRun, *fields: object) -> None:
    with open(run.ledger, "a", encoding="utf-8") as fh:
        fh.write("\t".join(str(f) for f in fields) + "\n")


def one_per_stage(tmp: Path) -> AutoResearchRun:
    return build_run(tmp, Plan.uniform(1))
