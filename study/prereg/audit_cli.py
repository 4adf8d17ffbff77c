"""``study audit``: every session against the manifest, runtime and code in effect when it started
(``audit.py``), the preregistration's chain and timestamps checked as ``study prereg verify``
checks them (``cli.py``), each unchanged session's kept result reused (``audit_cache.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from study.cli.legacy import legacy_folder_argument, sessions_or_legacy
from study.cli.vocabulary import FAILED, NothingToShow, UsageError, examples, sessions_option
from study.paths import project_root, sessions_folder, shell_word
from study.session_io.record import ExclusionKind

from .audit import audit_sessions
from .cli import CA_FILE_HELP, ca_file_option, check_stamps_or_fail, echo_stamps, verify_or_fail

#: The kinds the audit's summary line always counts (the others when there are any).
_ALWAYS_COUNTED = (ExclusionKind.EXPLORATORY, ExclusionKind.VOIDED, ExclusionKind.INCOMPLETE)


@click.command(epilog=examples(
    "study audit                          # every session under sessions/",
    "study audit --sessions /data/study-sessions",
    "study audit --sessions demo          # the demo's: exploratory only, so nothing to audit (exit 4)",
))
@sessions_option(help="The sessions folder to audit [default: sessions/ of the project].")
@ca_file_option(CA_FILE_HELP)
@click.option("--fresh", is_flag=True,
              help="Read every session again, even those whose files are unchanged since an earlier audit "
                   "passed them or left them out (by default their results are kept: study.prereg.audit_cache).")
@legacy_folder_argument()
def audit(sessions: Path | None, ca_file: Path | None, fresh: bool, legacy_folder: Path | None) -> None:
    """Check every analysed session against the manifest in effect when it started, its runtime
    and its code version; list the voided, incomplete and exploratory sessions the analysis leaves
    out, with the reason; verify every stored RFC 3161 timestamp of the preregistration (what it
    proves, or why it is refused). Exit 0 when every analysed session passes, 1 when one fails or a
    timestamp is refused, 4 when there is nothing to audit (no session, or none the analysis counts).

    The preregistration, its history and every timestamp are checked at every audit; a session
    whose files have not changed since an earlier audit passed it (or left it out) is not read
    again, and says so (--fresh reads every one)."""
    given = sessions_or_legacy(sessions, legacy_folder)
    directory = sessions_folder(given)
    if not directory.is_dir():
        if given is None:   # no input was bad: there are no sessions yet
            raise NothingToShow(f"nothing to audit: {shell_word(directory)} does not exist yet (no session has run); "
                                "pass another sessions folder with --sessions DIR")
        raise UsageError(f"{shell_word(directory)} is not a folder; pass the sessions folder with --sessions DIR "
                         f"(default: {sessions_folder(None)})")
    report = verify_or_fail()
    if not report.chain_intact:
        for problem in report.problems:
            click.echo(f"BROKEN   {problem}")
        raise click.ClickException("The freeze or amendment chain is broken, so sessions cannot be audited against it.")
    for problem in report.history.problems + report.sessions:
        click.echo(f"BROKEN   {problem}")
    stamps = check_stamps_or_fail(report, ca_file)
    echo_stamps(stamps)
    from study.session_io import audited

    from . import audit_cache

    before = audited.snapshot(directory)      # what the audit reads, before it reads it
    kept = {} if fresh else audit_cache.kept_results(before, report)
    results = audit_sessions(directory, report, kept)
    after = audited.snapshot(directory)       # and after: what changed meanwhile is neither kept nor remembered
    audit_cache.keep_results(before, after, report, results)
    if not results and not (report.history.problems or report.sessions or stamps.problems):
        raise NothingToShow(f"nothing to audit: no sessions under {shell_word(directory)} (a session folder holds meta.json "
                            "or events.jsonl); pass the sessions folder with --sessions DIR")
    for result in results:
        name = result.path.relative_to(directory).as_posix() if result.path != directory else result.path.name
        tag = " [simulated]" if result.simulated else ""
        why = f" ({result.exclusion.explained}; excluded)" if result.exclusion else ""
        click.echo(f"{result.verdict:12} {name}  {result.status}{tag}{why}")
        for problem in result.problems:
            click.echo(f"             - {problem}")
        for note in result.notes:
            click.echo(f"             note: {note}")
    verdicts = [r.verdict for r in results]
    counts = {v: verdicts.count(v) for v in ("ok", "FAIL", *ExclusionKind)}
    others = "".join(f", {counts[k]} {k.counted_as}" for k in ExclusionKind
                     if counts[k] and k not in _ALWAYS_COUNTED)
    excluded = (f"excluded from the analysis: {counts['voided']} voided, {counts['incomplete']} incomplete, "
                f"{counts['exploratory']} exploratory{others}.")
    analysed = counts["ok"] + counts["FAIL"]
    if analysed:
        click.echo(f"{len(results)} sessions: {counts['ok']} ok, {counts['FAIL']} failed; {excluded}")
    elif results:
        click.echo(f"{len(results)} sessions, none analysed; {excluded}")
    if not report.ok:
        click.echo(f"Note: the tree under {project_root()} now differs from the manifest in effect "
                   "(see `study prereg verify`); that does not change sessions already run.")
    if report.history.problems or report.sessions:
        click.echo("The records' history shows a rewrite (BROKEN above): the audit fails.", err=True)
    if stamps.problems:
        click.echo("A stored timestamp is refused (REFUSED above): the audit fails.", err=True)
    if counts["FAIL"] or report.history.problems or report.sessions or stamps.problems or not analysed:
        audited.forget(directory)
    else:   # passed: `study tables` of exactly these sessions, unchanged, no longer says "unaudited"
        audited.remember(before, {str(r.path): r.verdict for r in results}, after)
    if kept:
        click.echo(f"note: {len(kept)} of {len(results)} sessions were not read again: their files are unchanged since "
                   "an earlier audit passed them or left them out (`study audit --fresh` reads every one)", err=True)
    if counts["FAIL"] or report.history.problems or report.sessions or stamps.problems:
        sys.exit(FAILED)
    if not analysed:
        kinds = sorted(ExclusionKind, key=lambda k: k not in _ALWAYS_COUNTED)   # those three first, as before
        why = ", ".join(f"{counts[k]} {k.counted_as}" for k in kinds if counts[k])
        raise NothingToShow(f"nothing to audit: none of the {len(results)} sessions under {shell_word(directory)} is analysed "
                            f"({why}); the audit checks the finished preregistered runs the analysis counts "
                            "(exploratory ones, such as the demo's and --accounts runs, never are)")
