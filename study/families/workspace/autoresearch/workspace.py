"""An AutoResearch run's folders: the agent's git workspace and, beside it, the stage check.

:func:`build_run` lays out a fresh run::

    ROOT/workspace/   a new git repository: train.py, PROTOCOL.md, .gitignore (one commit), and
                      ledger.tsv holding its header (not committed: .gitignore lists it and results/)
    ROOT/checks/      stage_check.py and plan.json: what the FSM's guards run, in the workspace
                      (`python3 ../checks/stage_check.py STAGE`); outside the workspace, so no
                      commit or reset of the agent's touches it

The same layout serves both conditions: the plain agent is never told of ``checks/``.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .protocol import FULL_PLAN, LEDGER_FIELDS, LEDGER_NAME, Plan, ledger_header, stage_table

PACKAGE = Path(__file__).resolve().parent
TEMPLATE = PACKAGE / "template"
STAGE_CHECK = PACKAGE / "stage_check.py"
WORKSPACE_DIR = "workspace"
CHECKS_DIR = "checks"
#: the git identity the workspace's commits carry (the repository's own config: no global one needed)
GIT_IDENTITY = {"user.name": "AutoResearch agent", "user.email": "agent@autoresearch.invalid"}
GITIGNORE = f"{LEDGER_NAME}\nresults/\n__pycache__/\n"


@dataclass(frozen=True)
class AutoResearchRun:
    root: Path
    plan: Plan

    @property
    def workspace(self) -> Path:
        return self.root / WORKSPACE_DIR

    @property
    def checks(self) -> Path:
        return self.root / CHECKS_DIR

    @property
    def ledger(self) -> Path:
        return self.workspace / LEDGER_NAME


def protocol_text(plan: Plan) -> str:
    """PROTOCOL.md for ``plan`` (the stage table and the trial count follow the plan)."""
    example = "\t".join(("1", "baseline", "baseline", "template unchanged", "0.922222", "keep", "3f2a9c1"))
    return (TEMPLATE / "PROTOCOL.md").read_text(encoding="utf-8").format(
        total=plan.total, stage_table=stage_table(plan), header="\t".join(LEDGER_FIELDS), example=example)


def git(workspace: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True, text=True).stdout


def build_run(root: Path, plan: Plan = FULL_PLAN) -> AutoResearchRun:
    """Lay out a new run under ``root`` (which must not hold one yet); see the module docstring."""
    run = AutoResearchRun(Path(root), plan)
    if run.workspace.exists() or run.checks.exists():
        raise FileExistsError(f"{root} already holds an AutoResearch run; give a new folder")
    run.workspace.mkdir(parents=True)
    shutil.copyfile(TEMPLATE / "train.py", run.workspace / "train.py")
    (run.workspace / "PROTOCOL.md").write_text(protocol_text(plan), encoding="utf-8")
    (run.workspace / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    git(run.workspace, "init", "-q", "-b", "main")
    for key, value in {**GIT_IDENTITY, "commit.gpgsign": "false"}.items():
        git(run.workspace, "config", key, value)
    git(run.workspace, "add", "train.py", "PROTOCOL.md", ".gitignore")
    git(run.workspace, "commit", "-q", "-m", "AutoResearch workspace: the weak SGD baseline")
    run.ledger.write_text(ledger_header(), encoding="utf-8")
    run.checks.mkdir()
    shutil.copyfile(STAGE_CHECK, run.checks / "stage_check.py")
    (run.checks / "plan.json").write_text(plan.to_json(), encoding="utf-8")
    return run
