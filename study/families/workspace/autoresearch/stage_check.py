#!/usr/bin/env python3
"""The AutoResearch stage check: is the ledger right up to the stage just finished?

    python3 ../checks/stage_check.py STAGE [--workspace DIR] [--plan FILE]

The FSM's guard runs it in the workspace (the folder of ``train.py`` and ``ledger.tsv``) before
the next stage begins; ``STAGE`` is the stage just finished (``start`` before the baseline). It
reads only the workspace (the ledger, the results files, the git history) and the plan beside
itself (``plan.json``: the trials each stage holds). Exit status 0: every row up to STAGE is
valid and the stages up to it hold their trials, in order; 1: it prints each problem on a line;
2: it was called wrongly (an unknown stage, no plan).

A row is valid when it breaks none of the paper's rules (appendix D.3), checked in this order:
``fields`` (every field present and non-empty), ``decision`` (keep, discard or crash), ``stage``
(a known stage), ``axis`` (the stage's axis), ``metric`` (a number), ``commit`` (the recorded
candidate commit: the id of a commit of the repository as git writes it, 7-40 lower-case hex
digits; a tag's id names a tag, not a commit) and ``files`` (against its parent it changes
train.py and nothing else; only the baseline's candidate may change nothing: the template as it
is, an empty commit).
The check also asks, of a kept or discarded row, for the results file its run wrote with the same
metric (a measured result, not a claimed one). Standalone: the standard library and git only, so
any python3 runs it; the package's scorer imports its row rules from here.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

LEDGER_NAME = "ledger.tsv"
LEDGER_FIELDS = ("trial", "stage", "axis", "change", "metric", "decision", "commit")
DECISIONS = ("keep", "discard", "crash")
STAGE_ORDER = ("baseline", "scheduler", "optimizer", "regularization", "features", "throughput", "combination", "confirmation")
#: stage -> the axis its rows name
AXES = {
    "baseline": "baseline",
    "scheduler": "lr_schedule",
    "optimizer": "optimizer_lr",
    "regularization": "regularization",
    "features": "feature_augmentation",
    "throughput": "throughput",
    "combination": "combination",
    "confirmation": "confirmation",
}
ALLOWED_FILE = "train.py"
RULES = ("fields", "decision", "stage", "axis", "metric", "commit", "files")
#: how far a row's metric may be from its results file's (the file keeps 6 decimals)
METRIC_TOLERANCE = 0.001
#: a commit id as git writes it (``git rev-parse --short HEAD``, ``git log``): lower-case hex
_HEX = re.compile(r"[0-9a-f]{7,40}")


#: git reads only: the workspace's own repository is the only one (never a parent folder's), a
#: repository another user owns is read too (a reviewer's copy of the sessions), and nothing waits
#: forever.
GIT_TIMEOUT_S = 120


#: What git is told on top of a workspace's own configuration, which the agent can write (Codex CLI
#: keeps the workspace's .git writable so it can commit): no setting of the repository's may make
#: a read of it run a program (this check runs outside the agent's sandbox), and no other settings.
SAFE_GIT = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
            "-c", "diff.external=", "-c", "log.showSignature=false", "-c", "core.untrackedCache=false")


def git_env(workspace: Path) -> dict[str, str]:
    """git's environment for a read of ``workspace``: no system or global configuration, no
    prompt, no lock taken, and no repository above the workspace (a removed .git finds none)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
               GIT_CEILING_DIRECTORIES=str(Path(workspace).resolve().parent))
    return env


def git(workspace: Path, *args: str) -> tuple[int, str]:
    where = Path(workspace).resolve()
    env = {**git_env(where), "GIT_NO_REPLACE_OBJECTS": "1"}
    try:
        proc = subprocess.run(["git", *SAFE_GIT, "-c", f"safe.directory={where}", *args], cwd=str(where),
                              capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=GIT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return 124, ""
    return proc.returncode, proc.stdout


def template_changed(workspace: Path) -> bool:
    """Whether ``train.py`` differs from HEAD's, in the work tree or the index (read without
    running any filter: the contents' hash, not ``git status``, which can run the repository's)."""
    code, committed = git(workspace, "rev-parse", "--verify", "--quiet", f"HEAD:{ALLOWED_FILE}")
    code_work, in_tree = git(workspace, "hash-object", "--no-filters", "--", ALLOWED_FILE)
    code_index, staged = git(workspace, "ls-files", "--stage", "--", ALLOWED_FILE)
    blob = committed.strip()
    return bool(code or code_work or code_index or not blob or in_tree.strip() != blob or f" {blob} " not in staged)


def read_ledger(path: Path) -> tuple[list[str] | None, list[tuple[int, list[str]]]]:
    """(the header's fields or None for an empty file, [(line number, fields)] of the data rows);
    blank lines are no rows."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        return None, []
    header = lines[0].split("\t")
    rows = [(number, line.split("\t")) for number, line in enumerate(lines[1:], 2) if line.strip()]
    return header, rows


def as_row(fields: list[str]) -> dict[str, str]:
    return {name: (fields[i].strip() if i < len(fields) else "") for i, name in enumerate(LEDGER_FIELDS)}


def resolve_commit(workspace: Path, commit: str) -> str | None:
    """The full id of ``commit`` if it is the id of a commit in the workspace's repository (as git
    writes one; not the id of another object that leads to a commit, such as an annotated tag)."""
    if not _HEX.fullmatch(commit):
        return None
    code, out = git(workspace, "rev-parse", commit + "^{object}", commit + "^{commit}")
    found = out.split()
    return found[0] if code == 0 and len(found) == 2 and found[0] == found[1] else None


def _commit_problem(workspace: Path, commit: str) -> str:
    """Why ``commit`` (a row's field, not empty) is no recorded candidate commit."""
    if _HEX.fullmatch(commit.lower()) and not _HEX.fullmatch(commit):
        return (f"candidate commit {commit!r} is not an id as git writes it: record it as `git rev-parse --short HEAD` "
                "prints it (lower-case hex digits)")
    if _HEX.fullmatch(commit):
        code, kind = git(workspace, "cat-file", "-t", commit)
        if code == 0 and kind.strip() not in ("", "commit"):
            return (f"candidate commit {commit!r} is the id of a {kind.strip()}, not of a commit: record the candidate "
                    "commit's own id (`git rev-parse --short HEAD` right after committing it)")
    return f"candidate commit {commit!r} is not a commit of this repository (record its id, 7-40 hex digits)"


def row_problems(fields: list[str], workspace: Path) -> list[tuple[str, str]]:
    """The rules ``fields`` (one ledger row) breaks, each as (rule, what is wrong); [] = valid."""
    problems: list[tuple[str, str]] = []
    row = as_row(fields)
    missing = [name for name in LEDGER_FIELDS if not row[name]]
    if len(fields) > len(LEDGER_FIELDS):
        problems.append(("fields", f"{len(fields)} tab-separated fields where the ledger has {len(LEDGER_FIELDS)} (no tab inside a field)"))
    elif missing:
        problems.append(("fields", "missing " + ", ".join(missing)))
    if row["decision"] not in DECISIONS:
        problems.append(("decision", f"decision {row['decision']!r} is not one of {', '.join(DECISIONS)}"))
    stage = row["stage"]
    if stage not in AXES:
        problems.append(("stage", f"stage {stage!r} is not one of {', '.join(STAGE_ORDER)}"))
    elif row["axis"] != AXES[stage]:
        problems.append(("axis", f"axis {row['axis']!r} does not match stage {stage} (its axis is {AXES[stage]})"))
    try:
        metric = float(row["metric"])
        numeric = math.isfinite(metric)
    except ValueError:
        numeric = False
    if not numeric:
        problems.append(("metric", f"metric {row['metric']!r} is not a number"))
    commit = resolve_commit(workspace, row["commit"]) if row["commit"] else None
    if commit is None:
        problems.append(("commit", _commit_problem(workspace, row["commit"]) if row["commit"]
                         else "candidate commit (none) is not a commit of this repository (record its id, 7-40 hex digits)"))
    else:
        code, parents = git(workspace, "rev-list", "--parents", "-n", "1", commit)
        if len(parents.split()) < 2:
            problems.append(("files", f"commit {row['commit']} has no parent: commit each candidate on top of the workspace's history"))
        else:
            code, out = git(workspace, "diff", "--no-ext-diff", "--no-textconv", "--name-only", "-z", commit + "^1", commit)
            changed = [name for name in out.split("\0") if name]
            other = sorted(name for name in changed if name != ALLOWED_FILE)
            if code != 0 or other:
                problems.append(("files", f"commit {row['commit']} changes {', '.join(other) or 'files it cannot show'}; only {ALLOWED_FILE} may change"))
            elif not changed and row["stage"] != "baseline":
                problems.append(("files", f"commit {row['commit']} changes nothing: a trial's candidate changes {ALLOWED_FILE} "
                                          "(only the baseline's is empty, the template as it is)"))
    return problems


def measurement_problem(fields: list[str], workspace: Path) -> str | None:
    """A kept or discarded row's run must have written its results file with the row's metric."""
    row = as_row(fields)
    if row["decision"] not in ("keep", "discard"):
        return None
    commit = resolve_commit(workspace, row["commit"])
    try:
        metric = float(row["metric"])
    except ValueError:
        return None
    if commit is None or not math.isfinite(metric):
        return None
    path = workspace / "results" / f"{commit[:12]}.json"
    try:
        measured = float(json.loads(path.read_text(encoding="utf-8"))["test_accuracy"])
    except (OSError, ValueError, KeyError, TypeError):
        return f"no results file {path.relative_to(workspace).as_posix()} for commit {row['commit']}: run `python train.py` on the committed candidate and record its METRIC"
    if abs(measured - metric) > METRIC_TOLERANCE:
        return f"metric {row['metric']} differs from the run's measured test_accuracy {measured:.6f} (results/{commit[:12]}.json)"
    return None


def load_plan(path: Path) -> list[tuple[str, int]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    plan = [(str(item["stage"]), int(item["trials"])) for item in data["stages"]]
    if [stage for stage, _ in plan] != list(STAGE_ORDER):
        raise ValueError(f"{path} must list the stages {', '.join(STAGE_ORDER)} in this order")
    return plan


def check(stage: str, workspace: Path, plan: list[tuple[str, int]]) -> list[str]:
    """Every problem of the ledger up to ``stage`` (``start``: before the baseline), one sentence each."""
    ledger = workspace / LEDGER_NAME
    if not ledger.is_file():
        return [f"{LEDGER_NAME} is missing: it starts as the header line ({chr(9).join(LEDGER_FIELDS)})"]
    header, rows = read_ledger(ledger)
    problems = []
    if header is None or [h.strip() for h in header] != list(LEDGER_FIELDS):
        problems.append(f"line 1 of {LEDGER_NAME} must be the header {' | '.join(LEDGER_FIELDS)} (tab-separated)")
    upto = [] if stage == "start" else list(STAGE_ORDER[: STAGE_ORDER.index(stage) + 1])
    if stage == "start":
        if template_changed(workspace):
            problems.append(f"{ALLOWED_FILE} has uncommitted changes before the baseline: the baseline runs the template unchanged")
    counts = dict(plan)
    for position, (line, fields) in enumerate(rows, 1):
        where = f"row {position} (line {line}, trial {as_row(fields)['trial'] or '?'})"
        for _, message in row_problems(fields, workspace):
            problems.append(f"{where}: {message}")
        missing_run = measurement_problem(fields, workspace)
        if missing_run:
            problems.append(f"{where}: {missing_run}")
        label = as_row(fields)["stage"]
        if label in AXES and label not in upto:
            problems.append(f"{where}: stage {label} comes after {stage}; its trials begin once this check passes")
    labels = [as_row(fields)["stage"] for _, fields in rows]
    for name in upto:
        have = labels.count(name)
        if have != counts[name]:
            problems.append(f"stage {name} has {have} row{'s' * (have != 1)}; the protocol gives it {counts[name]}")
    known = [label for label in labels if label in upto]
    if known != sorted(known, key=STAGE_ORDER.index):
        problems.append("the rows are not in stage order: every row of a stage comes before the rows of the next")
    return problems


def main(argv: list[str]) -> int:
    args = list(argv)
    options = {"--workspace": ".", "--plan": str(Path(__file__).resolve().with_name("plan.json"))}
    for name in options:
        if name in args:
            at = args.index(name)
            if at + 1 >= len(args):
                print(f"{name} needs a value", file=sys.stderr)
                return 2
            options[name] = args[at + 1]
            del args[at:at + 2]
    if len(args) != 1 or args[0] not in ("start",) + STAGE_ORDER:
        print(f"usage: stage_check.py STAGE [--workspace DIR] [--plan FILE]; STAGE is start or one of {', '.join(STAGE_ORDER)}", file=sys.stderr)
        return 2
    try:
        plan = load_plan(Path(options["--plan"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"cannot read the plan {options['--plan']}: {exc}", file=sys.stderr)
        return 2
    stage, workspace = args[0], Path(options["--workspace"])
    problems = check(stage, workspace, plan)
    rows = sum(count for name, count in plan[: 0 if stage == "start" else STAGE_ORDER.index(stage) + 1])
    if not problems:
        print(f"stage check {stage}: passed ({rows} ledger row{'s' * (rows != 1)} up to {stage}, all valid)")
        return 0
    for problem in problems:  # the summary comes last: a reader that keeps only the tail keeps it
        print(f"- {problem}")
    print(f"stage check {stage}: {len(problems)} problem{'s' * (len(problems) != 1)} above. Fix them in {LEDGER_NAME} "
          "(or run the missing trials), then check again.")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
