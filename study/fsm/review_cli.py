"""``study fsm proposals|accept|reject|history|migrate``: a person's review of proposed changes.

- ``study fsm proposals [--frames DIR] [--workflow W]`` lists the proposals of the ledger in DIR;
  ``study fsm proposals show ID`` prints one with its diff against the current version.
- ``study fsm accept ID`` validates the proposal again against the current version and writes
  the next version (:mod:`study.fsm.versions`); refused for a preregistered workflow (that
  changes only by ``study prereg amend``), for a proposal that fails the checks, one already
  decided, or a complete text made against an older version than the current one (structured
  edits are applied to the current version again).
- ``study fsm reject ID --why TEXT`` records the refusal.
- ``study fsm history FILE`` prints the version chain and verifies it (exit 1 if it is broken).
- ``study fsm migrate --frames DIR --workflow FILE`` moves the agent's frames to the current
  version (:mod:`study.fsm.migrate`).

Every refusal is one line with what to do, exit code 2, and changes nothing.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import Any

import click

from study.cli.vocabulary import FAILED, UsageError, examples

from .edits import EditError
from .ledger import Ledger, LedgerError, Proposal
from .migrate import MigrationRefused, describe, migrate
from .proposals import build_text, check_text, render_problems
from .versions import VersionError, VersionStore, is_preregistered, sha256_text, utc_stamp
from .workflow import Workflow, WorkflowError

_FRAMES = click.option("--frames", type=click.Path(path_type=Path, file_okay=False), default=Path(".fsm"),
                       show_default=True, help="The frames folder whose proposals ledger to read.")


def _ledger(frames: Path) -> Ledger:
    ledger = Ledger(frames)
    try:
        ledger.records()
    except LedgerError as exc:
        raise UsageError(str(exc)) from None
    return ledger


def _get(ledger: Ledger, proposal_id: str) -> Proposal:
    try:
        return ledger.get(proposal_id)
    except LedgerError as exc:
        raise UsageError(str(exc)) from None


@click.group("proposals", invoke_without_command=True, epilog=examples(
    "study fsm proposals --frames .fsm", "study fsm proposals --frames .fsm --workflow BugFix",
    "study fsm proposals show p2 --frames .fsm"))
@_FRAMES
@click.option("--workflow", default=None, help="Only proposals for this workflow (its name or file).")
@click.pass_context
def proposals(ctx: click.Context, frames: Path, workflow: str | None) -> None:
    """List the workflow changes agents proposed (ledger in --frames)."""
    ctx.obj = frames
    if ctx.invoked_subcommand is not None:
        return
    found = _ledger(frames).proposals(workflow)
    if not found:
        click.echo(f"no proposals in {frames}" + (f" for {workflow}" if workflow else ""))
        return
    for p in found:
        r = p.record
        checks = "passes the checks" if r["valid"] else f"fails the checks ({len(r['problems'])} problems)"
        click.echo(f"{p.id}  {p.status:8}  {r['at']}  {r['workflow']}  state {r.get('state')}  session {r.get('session')}  "
                   f"{checks}: {r['reason']}")


@proposals.command("show", epilog=examples("study fsm proposals show p2 --frames .fsm"))
@click.argument("proposal_id")
@click.option("--frames", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The frames folder whose proposals ledger to read [default: the group's --frames, .fsm].")
@click.pass_context
def show(ctx: click.Context, proposal_id: str, frames: Path | None) -> None:
    """Print proposal PROPOSAL_ID and its diff against the current version of the workflow."""
    p = _get(_ledger(frames or ctx.obj), proposal_id)
    r = p.record
    click.echo(f"proposal {p.id} ({p.status}) for workflow {r['workflow']} ({r['workflow_file']})")
    click.echo(f"  made {r['at']} in session {r.get('session')}, agent {r.get('agent')}, state {r.get('state')}")
    click.echo(f"  reason: {r['reason']}")
    for item in r["evidence"]:
        click.echo(f"  evidence: {item}")
    if p.decision is not None:
        d = p.decision
        click.echo(f"  {d['kind']} {d['at']}" + (f": {d['why']}" if d["kind"] == "rejected" else f" as version {d['version']}"))
    if not r["valid"]:
        click.echo("  fails the checks:\n    " + render_problems(r["problems"]).replace("\n", "\n    "))
    current_file = Path(r["workflow_file"])
    try:
        current = current_file.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{current_file}: cannot be read ({exc.strerror or exc}); the proposal's workflow file moved") from None
    if sha256_text(current) != r["base_sha256"]:
        click.echo(f"  note: made against sha256 {r['base_sha256'][:12]}...; the current version differs")
    diff = difflib.unified_diff(current.splitlines(keepends=True), r["text"].splitlines(keepends=True),
                                fromfile=f"{current_file.name} (current)", tofile=f"{current_file.name} ({p.id})")
    click.echo("".join(diff) or "(no difference from the current version)", nl=False)


def _accepted_text(r: dict[str, Any], current_text: str, current: Workflow) -> str:
    """The text accepting ``r`` writes, checked again against the current version."""
    if "text" in r["change"] and sha256_text(current_text) != r["base_sha256"]:
        raise UsageError(f"proposal {r['id']} is a complete text made against sha256 {r['base_sha256'][:12]}..., but the "
                         "workflow has changed since; accepting it would undo that change: reject it and have it proposed again")
    try:
        text = build_text(current_text, r["change"])
    except EditError as exc:
        raise UsageError(f"proposal {r['id']} no longer applies to the current version: {exc}") from None
    problems = check_text(text, current, f"proposed {Path(r['workflow_file']).name}")
    if problems:
        raise UsageError(f"proposal {r['id']} fails the checks, so it cannot be accepted: "
                         + render_problems(problems).replace("\n", "; "))
    return text


@click.command("accept", epilog=examples("study fsm accept p2 --frames .fsm"))
@click.argument("proposal_id")
@_FRAMES
def accept(proposal_id: str, frames: Path) -> None:
    """Accept proposal PROPOSAL_ID: validate it again and write the workflow's next version."""
    ledger = _ledger(frames)
    _get(ledger, proposal_id)  # an unknown id is refused before anything (the lock file) is created
    with ledger.locked():
        p = _get(ledger, proposal_id)
        r = p.record
        wf_file = Path(r["workflow_file"])
        if is_preregistered(wf_file):
            raise UsageError(f"{wf_file} is a preregistered workflow: it never changes through proposals. Change it with "
                             "`study prereg amend --reason \"...\" FILE` (preregistration/README.md), then rebuild it")
        if p.status != "open":
            raise UsageError(f"proposal {p.id} is already {p.status}; a proposal is decided once")
        try:
            current_text = wf_file.read_text(encoding="utf-8")
            current = Workflow.from_text(current_text, file=str(wf_file))
        except (OSError, WorkflowError) as exc:
            raise UsageError(f"{wf_file}: the current workflow cannot be loaded ({exc}); restore it first") from None
        store = VersionStore(wf_file)
        broken = store.verify()
        if broken:
            raise UsageError(f"the version chain of {wf_file} is broken ({broken[0]}); see `study fsm history {wf_file}`")
        text = _accepted_text(r, current_text, current)
        try:
            version = store.append(text, p.id)
        except (OSError, VersionError) as exc:
            raise UsageError(f"cannot write the new version: {exc}") from None
        ledger.append({"kind": "accepted", "id": p.id, "at": utc_stamp(), "version": version.version,
                       "sha256": version.sha256, "parent": version.parent})
    click.echo(f"accepted {p.id}: {wf_file} is now version {version.version} (sha256 {version.sha256[:12]}..., "
               f"parent {str(version.parent)[:12]}...). Running frames keep their version until `study fsm migrate`.")


@click.command("reject", epilog=examples("study fsm reject p1 --frames .fsm --why \"S_review has no way out\""))
@click.argument("proposal_id")
@_FRAMES
@click.option("--why", required=True, help="The reason, recorded with the refusal.")
def reject(proposal_id: str, frames: Path, why: str) -> None:
    """Reject proposal PROPOSAL_ID, recording why."""
    if not why.strip():
        raise UsageError("--why must say why the proposal is rejected")
    ledger = _ledger(frames)
    _get(ledger, proposal_id)
    with ledger.locked():
        p = _get(ledger, proposal_id)
        if p.status != "open":
            raise UsageError(f"proposal {p.id} is already {p.status}; a proposal is decided once")
        ledger.append({"kind": "rejected", "id": p.id, "at": utc_stamp(), "why": why})
    click.echo(f"rejected {p.id}: {why}")


@click.command("history", epilog=examples("study fsm history workflows/bugfix.yaml"))
@click.argument("workflow_file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
def history(workflow_file: Path) -> None:
    """Print the version chain of WORKFLOW_FILE and verify it (exit 1 if it is broken)."""
    store = VersionStore(workflow_file)
    try:
        chain = store.versions()
    except VersionError as exc:
        click.echo(str(exc), err=True)
        sys.exit(FAILED)
    if not chain:
        live = sha256_text(workflow_file.read_text(encoding="utf-8"))
        click.echo(f"{workflow_file}: no version accepted yet; the file is the only version (sha256 {live[:12]}...)")
        return
    for v in chain:
        origin = f"proposal {v.proposal}" if v.proposal else "the file before the first accepted proposal"
        click.echo(f"version {v.version}  {v.at}  sha256 {v.sha256[:12]}...  parent "
                   f"{(v.parent or '-')[:12]}{'...' if v.parent else ''}  from {origin}")
    problems = store.verify()
    if problems:
        for line in problems:
            click.echo(f"BROKEN: {line}", err=True)
        sys.exit(FAILED)
    click.echo(f"chain verified: {len(chain)} versions, each naming its parent's sha256; {workflow_file} is version {chain[-1].version}")


@click.command("migrate", epilog=examples("study fsm migrate --frames .fsm --workflow workflows/bugfix.yaml"))
@_FRAMES
@click.option("--workflow", "workflow_file", type=click.Path(path_type=Path, dir_okay=False, exists=True), required=True,
              help="The workflow file (its current version is the target).")
@click.option("--agent", default="main", show_default=True, help="Whose frame stack.")
def migrate_cmd(frames: Path, workflow_file: Path, agent: str) -> None:
    """Move the agent's frames of the workflow to its current version (refused unless each
    frame's state exists in it)."""
    if not (frames / f"{agent}.json").is_file():
        raise UsageError(f"no frames of agent {agent!r} in {frames}; pass the frames folder the hooks use (--frames) and --agent")
    try:
        new = Workflow.load(workflow_file)
        moved = migrate(frames, agent, new)
    except WorkflowError as exc:
        raise UsageError(exc.render().replace("\n", "; ")) from None
    except MigrationRefused as exc:
        raise UsageError(f"migration refused, nothing changed: {exc}") from None
    if not moved:
        click.echo(f"nothing to migrate: every frame of {new.name} for agent {agent} already runs under the current version")
        return
    for line in describe(moved, VersionStore(workflow_file)):
        click.echo(f"migrated {line}")


migrate_cmd.name = "migrate"

REVIEW_COMMANDS = (proposals, accept, reject, history, migrate_cmd)


def version_of_frames(rt: Any, workflow_files: tuple[Path, ...]) -> dict[str, Any]:
    """For ``study fsm status``: the version the innermost frame runs under ({} with no frame)."""
    frames = rt.frames()
    if not frames:
        return {}
    sha = frames[-1]["workflow_sha256"]
    number = next((n for n in (VersionStore(p).number_of(sha) for p in workflow_files) if n), None)
    return {"workflow_sha256": sha, "workflow_version": number}
