"""``study prereg freeze|verify|amend|show`` and ``study audit``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from study.paths import project_root, sessions_dir

from .amend import amend as record_amendment
from .audit import audit_sessions
from .errors import PreregError
from .files import FREEZE_RECORD, MANIFEST, format_manifest
from .freeze import freeze as write_freeze
from .verify import verify


def _verify_or_fail():
    try:
        return verify()
    except PreregError as exc:
        raise click.ClickException(str(exc)) from exc


@click.group()
def prereg() -> None:
    """Freeze, verify and amend the preregistration (see preregistration/README.md)."""


@prereg.command("freeze")
@click.option("--allow-dirty", is_flag=True, help="Freeze even if the git tree has uncommitted changes (recorded).")
@click.option("--refreeze", is_flag=True, help="Replace an existing freeze (only before any formal run and any amendment).")
def freeze_command(allow_dirty: bool, refreeze: bool) -> None:
    """Hash every frozen file into preregistration/MANIFEST.sha256 and write freeze.json."""
    try:
        record = write_freeze(allow_dirty=allow_dirty, refreeze=refreeze)
    except PreregError as exc:
        raise click.ClickException(str(exc)) from exc
    if record["git_commit"] is None:
        where = "outside git (no commit recorded)"
    else:
        where = f"at commit {record['git_commit']} ({'a DIRTY tree' if record['git_dirty'] else 'a clean tree'})"
    click.echo(f"Froze {record['files']} files into {MANIFEST} {where}.")
    click.echo(f"Analysis code sha256: {record['analysis_code_sha256']}")
    click.echo(f"Effective manifest sha256 (recorded by every session): {record['sha256']}")
    click.echo(f"Now commit the freeze: git add {MANIFEST} {FREEZE_RECORD} && git commit -m 'Freeze the preregistration'")
    click.echo(f"Anyone can check it from the project root with: sha256sum -c {MANIFEST}")


@prereg.command("verify")
@click.option("--problems-only", is_flag=True, help="List only files that are not ok.")
def verify_command(problems_only: bool) -> None:
    """List every frozen file as ok, changed, missing or added; exit 1 on any mismatch."""
    report = _verify_or_fail()
    if report.freeze:
        click.echo(
            f"Frozen at {report.freeze.get('frozen_at')}, commit {report.freeze.get('git_commit')}"
            + (" (dirty tree)" if report.freeze.get("git_dirty") else "")
            + f"; {len(report.amendments)} amendment(s)."
        )
    for status, path in report.statuses:
        if status != "ok" or not problems_only:
            click.echo(f"{status:8} {path}")
    counts = ", ".join(f"{len(report.paths(s))} {s}" for s in ("ok", "changed", "missing", "added"))
    click.echo(counts + ".")
    for problem in report.problems:
        click.echo(f"BROKEN   {problem}")
    if report.ok:
        click.echo(f"The preregistration holds. Effective manifest sha256: {report.effective_sha256}")
        return
    click.echo(
        "The preregistration does NOT hold: `study run` will refuse. Restore the files, or record an "
        "intended change first with `study prereg amend --reason \"why\" FILE...`.",
        err=True,
    )
    sys.exit(1)


@prereg.command("amend")
@click.option("--reason", required=True, help="What changed and why (kept in the record and listed under the tables).")
@click.argument("files", nargs=-1, required=True)
def amend_command(reason: str, files: tuple[str, ...]) -> None:
    """Record a change to frozen FILES before any run uses it (edit first, then amend)."""
    try:
        entry = record_amendment(files, reason)
    except PreregError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Recorded amendment {entry['n']} at {entry['time']}:")
    for change in entry["files"]:
        click.echo(f"  {change['path']}: {change['old_sha256']} -> {change['new_sha256']}")
    click.echo(f"Effective manifest sha256 is now {entry['sha256']}. Commit preregistration/amendments.jsonl.")


@prereg.command("show")
@click.option("--manifest", "as_manifest", is_flag=True,
              help="Print the manifest in effect in sha256sum format (pipe it to `sha256sum -c -`).")
def show_command(as_manifest: bool) -> None:
    """Show the freeze, the amendments in order, and the effective manifest hash."""
    report = _verify_or_fail()
    if as_manifest:
        click.echo(format_manifest(report.effective), nl=False)
        return
    freeze = report.freeze or {}
    click.echo(f"Freeze: {freeze.get('frozen_at')} at commit {freeze.get('git_commit')}, "
               f"{freeze.get('files')} files, dirty={freeze.get('git_dirty')}")
    click.echo(f"Analysis code sha256 at the freeze: {freeze.get('analysis_code_sha256')}")
    for entry in report.amendments:
        click.echo(f"Amendment {entry.get('n')} ({entry.get('time')}): {entry.get('reason')}")
        for change in entry.get("files") or []:
            click.echo(f"  {change.get('path')}: {change.get('old_sha256')} -> {change.get('new_sha256')}")
    if report.chain_intact:
        click.echo(f"Effective manifest sha256: {report.effective_sha256}")
    else:
        click.echo("The chain is broken; run `study prereg verify` for details.")


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
def audit(directory: Path | None) -> None:
    """Check every session under DIRECTORY (default: sessions/) against the manifest in effect
    when it started, and its code version; list voided, incomplete and exploratory sessions
    (excluded from the analysis); exit 1 if any analysed session fails."""
    directory = directory or sessions_dir()
    if not directory.is_dir():
        raise click.ClickException(f"{directory} is not a folder of sessions (default: {sessions_dir()}).")
    report = _verify_or_fail()
    if not report.chain_intact:
        for problem in report.problems:
            click.echo(f"BROKEN   {problem}")
        raise click.ClickException("The freeze or amendment chain is broken, so sessions cannot be audited against it.")
    results = audit_sessions(directory, report)
    if not results:
        raise click.ClickException(f"No sessions under {directory} (a session folder holds meta.json or events.jsonl).")
    for result in results:
        name = result.path.relative_to(directory).as_posix() if result.path != directory else result.path.name
        tag = " [simulated]" if result.simulated else ""
        why = f" ({result.excluded.partition(': ')[2]}; excluded)" if result.excluded else ""
        click.echo(f"{result.verdict:12} {name}  {result.status}{tag}{why}")
        for problem in result.problems:
            click.echo(f"             - {problem}")
    verdicts = [r.verdict for r in results]
    counts = {v: verdicts.count(v) for v in ("ok", "FAIL", "voided", "incomplete", "exploratory")}
    click.echo(f"{len(results)} sessions: {counts['ok']} ok, {counts['FAIL']} failed; excluded from the "
               f"analysis: {counts['voided']} voided, {counts['incomplete']} incomplete, "
               f"{counts['exploratory']} exploratory.")
    if not report.ok:
        click.echo(f"Note: the tree under {project_root()} now differs from the manifest in effect "
                   "(see `study prereg verify`); that does not change sessions already run.")
    if counts["FAIL"]:
        sys.exit(1)
