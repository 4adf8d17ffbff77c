"""``study prereg freeze|verify|amend|show|stamp|runtime|add-seed`` (``study audit``: ``audit_cli.py``) and what
both print of the chain and its timestamps."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from study.cli.vocabulary import FAILED, FilePath, UsageError, examples
from study.errors import StudyError
from study.paths import project_root
from study.protocol.amendments import shown

from .amend import amend as record_amendment
from .seeds import add_seed
from .errors import PreregError
from .files import FREEZE_RECORD, MANIFEST, RUNTIME, STAMPS_DIR, format_manifest
from .freeze import freeze as write_freeze, nothing_to_freeze
from .runtime import REFUSING, current_runtime, parse_runtime, runtime_text, write_runtime
from .stamps import StampCheck, check_stamps, stamp as request_stamp
from .tsa import CaFileError
from .verify import Report, imported_from, verify

def verify_or_fail():
    try:
        return verify()
    except PreregError as exc:
        raise click.ClickException(str(exc)) from exc


def ca_file_option(help: str):
    """``--ca-file PEM`` (or ``STUDY_TSA_CA_FILE``): the CA a timestamp's chain is checked against."""
    return click.option("--ca-file", "ca_file", type=FilePath(exists=True),
                        envvar="STUDY_TSA_CA_FILE", show_envvar=True, default=None, metavar="PEM", help=help)


CA_FILE_HELP = ("The TSA's CA certificate(s), PEM: check each stored timestamp's chain against it "
                 "[default: only against the certificates the TSA sent with the token].")


def check_stamps_or_fail(report: Report, ca_file: Path | None) -> StampCheck:
    try:
        return check_stamps(report, ca_file)
    except CaFileError as exc:
        raise UsageError(str(exc)) from exc


def echo_stamps(stamps: StampCheck) -> None:
    """One line per stored timestamp (what it proves, or why it is refused), then its trust."""
    for result in stamps.results:
        if result.ok:
            click.echo(f"stamp    {result.n}: {result.summary()}")
            click.echo(f"         {result.trust}")
        for problem in result.problems:
            click.echo(f"REFUSED  {problem}")
        for note in result.notes:
            click.echo(f"note     {note}")
    for note in stamps.notes:
        click.echo(f"note     {note}")


@click.group(epilog=examples(
    "study prereg verify                  # does the frozen plan hold? (exit 1 if not)",
    "study prereg show --anchor           # the line to register externally after the freeze",
    "study prereg amend --reason \"raise the spending cap\" preregistration/limits.yaml",
))
def prereg() -> None:
    """Freeze, verify and amend the preregistration (see preregistration/README.md)."""


@prereg.command("freeze", epilog=examples(
    "study prereg freeze                  # once, before the first formal run; then commit it",
    "study prereg freeze --refreeze       # replace a development freeze (no formal run, no amendment yet)",
))
@click.option("--allow-dirty", is_flag=True, help="Freeze even if the git tree has uncommitted changes (recorded).")
@click.option("--refreeze", is_flag=True, help="Replace an existing freeze (only before any formal run and any amendment).")
def freeze_command(allow_dirty: bool, refreeze: bool) -> None:
    """Hash every frozen file into preregistration/MANIFEST.sha256 and write freeze.json. A
    preregistration already frozen whose files are all as frozen has nothing to freeze: said, exit 0."""
    said = None if refreeze else nothing_to_freeze()
    if said is not None:
        click.echo(said)
        return
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


@prereg.command("verify", epilog=examples(
    "study prereg verify",
    "study prereg verify --problems-only",
    "study prereg verify --ca-file tsa-ca.pem     # check the stored timestamps against the TSA's CA",
))
@click.option("--problems-only", is_flag=True, help="List only files that are not ok.")
@ca_file_option(CA_FILE_HELP)
def verify_command(problems_only: bool, ca_file: Path | None) -> None:
    """List every frozen file as ok, changed, missing or added, and verify every stored timestamp;
    exit 1 on any mismatch or refused timestamp."""
    report = verify_or_fail()
    stamps = check_stamps_or_fail(report, ca_file)
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
    _echo_imported(report)
    _echo_history(report)
    _echo_runtime(report)
    for problem in report.problems + report.history.problems + report.sessions:
        click.echo(f"BROKEN   {problem}")
    for note in report.notes:
        click.echo(f"note     {note}")
    echo_stamps(stamps)
    if report.ok and stamps.ok:
        click.echo(f"The preregistration holds. Effective manifest sha256: {report.effective_sha256}")
        return
    if report.ok:
        click.echo(f"The preregistration holds (effective manifest sha256: {report.effective_sha256}), but a stored "
                   f"timestamp is refused (REFUSED above): it proves nothing; remove its files from {STAMPS_DIR}/ "
                   "or restore them from git.", err=True)
        sys.exit(FAILED)
    click.echo(
        "The preregistration does NOT hold: `study run` will refuse. Restore the files, or record an "
        "intended change first with `study prereg amend --reason \"why\" FILE...`.",
        err=True,
    )
    sys.exit(1)


def _echo_imported(report: Report) -> None:
    if not report.imported_from:
        return
    click.echo(f"Imported code: {imported_from(report)} (not from {report.root}); checked against the "
               "manifest in effect there:")
    for status, path, file in report.imported:
        click.echo(f"{status:8} {path}  (imported: {file})")
    if not report.imported:
        click.echo("ok       every frozen file of the imported code")


def _echo_history(report: Report) -> None:
    history = report.history
    if history.freeze_commit:
        click.echo(f"History: freeze committed at {history.freeze_commit}; the records checked against git "
                   f"({'no problem' if not history.problems else f'{len(history.problems)} problem(s)'}).")
    if history.earlier_freezes:
        click.echo(f"History: this freeze replaced {len(history.earlier_freezes)} earlier freeze(s) "
                   f"(commits {', '.join(c[:12] for c in history.earlier_freezes)}); compare "
                   "`study prereg show --anchor` with the anchor registered at the first freeze.")


def _echo_runtime(report: Report) -> None:
    if report.runtime is None:
        return
    for name, expected, found, same in report.runtime.rows() if report.runtime.expected else ():
        verdict = "ok" if same else ("DIFFERS" if name in REFUSING else "differs (reported only)")
        click.echo(f"runtime  {name}: expected {expected}, found {found}: {verdict}")
    for problem in report.runtime.problems:
        click.echo(f"BROKEN   {problem}")


@prereg.command("runtime", epilog=examples(
    "study prereg runtime                 # the installed runtime against the frozen one",
    "study prereg runtime --write         # record the installed runtime (before the freeze)",
))
@click.option("--write", is_flag=True, help=f"Write the installed runtime to {RUNTIME} (then freeze, or amend it).")
def runtime_command(write: bool) -> None:
    """Show the installed runtime (Claude Code CLI, claude-agent-sdk, lock, Python) against the
    frozen one; with --write, record the installed one in preregistration/runtime.json."""
    root = project_root()
    if write:
        runtime = write_runtime(root)
        click.echo(f"Wrote {RUNTIME}:\n{runtime_text(runtime)}", nl=False)
        click.echo("Before the freeze: commit it, then `study prereg freeze`. After the freeze: record the change "
                   f"with `study prereg amend --reason \"why\" {RUNTIME}` and commit both.")
        return
    path = root / RUNTIME
    frozen = parse_runtime(path.read_bytes()) if path.is_file() else None
    found = current_runtime()
    for name in found:
        expected = frozen.get(name) if frozen else None
        click.echo(f"{name}: {RUNTIME} {expected}, installed {found[name]}"
                   + ("" if expected == found[name] else "  <- differs"))
    if frozen is None:
        click.echo(f"{RUNTIME} is missing or unreadable: write it with `study prereg runtime --write`.")


@prereg.command("amend", epilog=examples(
    "study prereg amend --reason \"raise the spending cap to $30\" preregistration/limits.yaml",
))
@click.option("--reason", required=True, help="What changed and why (kept in the record and listed under the tables).")
@click.argument("files", nargs=-1, required=True)
def amend_command(reason: str, files: tuple[str, ...]) -> None:
    """Record a change to frozen FILES before any run uses it (edit first, then amend).

    Each file must load as the study reads it (an order of the accounts, YAML its loader takes,
    a valid workflow, a text with its placeholders); a refusal records nothing and exits 2."""
    try:
        entry = record_amendment(files, reason)
    except PreregError as exc:
        raise UsageError(str(exc)) from exc
    _echo_amendment(entry)


def _echo_amendment(entry: dict) -> None:
    click.echo(f"Recorded amendment {entry['n']} at {entry['time']}:")
    for change in entry["files"]:
        click.echo(f"  {change['path']}: {change['old_sha256']} -> {change['new_sha256']}")
    click.echo(f"Effective manifest sha256 is now {entry['sha256']}. Commit preregistration/amendments.jsonl.")


@prereg.command("add-seed", epilog=examples(
    "study prereg add-seed 10 --reason \"replace seed 4, whose sessions were voided twice (plan, section 7)\"",
))
@click.option("--reason", required=True, help="Why the seed is added (kept in the record and listed under the tables).")
@click.argument("seed", type=click.IntRange(min=1))
def add_seed_command(seed: int, reason: str) -> None:
    """Freeze the order of a new SEED: write preregistration/orders/seed-SEED.txt from the
    order's formula and record the amendment, in one step (nothing is written if it is refused)."""
    try:
        entry = add_seed(seed, reason, project_root())
    except PreregError as exc:
        raise UsageError(str(exc)) from exc
    _echo_amendment(entry)


@prereg.command("show", epilog=examples(
    "study prereg show",
    "study prereg show --manifest | sha256sum -c -",
    "study prereg show --anchor",
))
@click.option("--manifest", "as_manifest", is_flag=True,
              help="Print the manifest in effect in sha256sum format (pipe it to `sha256sum -c -`).")
@click.option("--anchor", is_flag=True,
              help="Print the one line to register outside this repository (e.g. OSF) right after the freeze.")
def show_command(as_manifest: bool, anchor: bool) -> None:
    """Show the freeze, the amendments in order, and the effective manifest hash."""
    report = verify_or_fail()
    if as_manifest:
        click.echo(format_manifest(report.effective), nl=False)
        return
    if anchor:
        click.echo(anchor_line(report))
        return
    freeze = report.freeze or {}
    click.echo(f"Freeze: {freeze.get('frozen_at')} at commit {freeze.get('git_commit')}, "
               f"{freeze.get('files')} files, dirty={freeze.get('git_dirty')}")
    click.echo(f"Analysis code sha256 at the freeze: {freeze.get('analysis_code_sha256')}")
    for entry in report.amendments:
        click.echo(f"Amendment {shown(entry.get('n'))} ({shown(entry.get('time'))}): {shown(entry.get('reason'))}")
        for change in entry.get("files") or []:
            change = change if isinstance(change, dict) else {"path": change}
            click.echo(f"  {shown(change.get('path'))}: {shown(change.get('old_sha256'))} -> "
                       f"{shown(change.get('new_sha256'))}")
    if report.chain_intact:
        click.echo(f"Effective manifest sha256: {report.effective_sha256}")
    else:
        click.echo("The chain is broken; run `study prereg verify` for details.")


def anchor_line(report: Report) -> str:
    """``study prereg show --anchor``: the freeze's identity in one line. Registered elsewhere
    when the freeze is made, it shows any later rewrite: a re-freeze changes ``freeze`` and
    ``frozen_at``, a rewritten manifest ``manifest``, a rewritten history ``commit``."""
    freeze = report.freeze or {}
    if not report.chain_intact:
        raise click.ClickException("The chain of records is broken, so there is no anchor to print; "
                                   "run `study prereg verify`.")
    commit = report.history.freeze_commit
    if commit is None:
        raise UsageError(f"{FREEZE_RECORD} is not committed: commit the freeze, then print the anchor.")
    # One name, one meaning: ``manifest_sha256`` is the manifest in effect (the chain's last record),
    # exactly what every session records under that name; the bytes of MANIFEST.sha256 (freeze.json's
    # own ``manifest_sha256``) are ``manifest_file_sha256`` here.
    return (f"sop-fidelity-study preregistration anchor: freeze_sha256={freeze.get('sha256')} "
            f"manifest_file_sha256={freeze.get('manifest_sha256')} freeze_commit={commit} "
            f"frozen_at={freeze.get('frozen_at')} amendments={len(report.amendments)} "
            f"manifest_sha256={report.effective_sha256}")


@prereg.command("stamp", epilog=examples(
    "study prereg stamp --tsa https://freetsa.org/tsr --ca-file freetsa-cacert.pem",
    "git add preregistration/stamps && git commit -m 'Timestamp the preregistration'",
    "study prereg verify --ca-file freetsa-cacert.pem   # later, offline: what each stamp proves",
))
@click.option("--tsa", "tsa_url", required=True, metavar="URL",
              help="The Time-Stamping Authority's URL (RFC 3161 over HTTP: POST application/timestamp-query).")
@ca_file_option("The TSA's CA certificate(s), PEM: the token must chain to it before it is stored "
                "[default: only to the certificates the TSA sends with it].")
def stamp_command(tsa_url: str, ca_file: Path | None) -> None:
    """Ask a Time-Stamping Authority for an RFC 3161 timestamp of the preregistration in effect and
    keep it under preregistration/stamps/ (the token, its certificates, a record).

    What is stamped is the anchor (the effective manifest sha256 of `study prereg show --anchor`):
    the token's SHA-256 message imprint is that hash, i.e. the hash of the canonical form of the
    chain's last record. The token is verified before anything is written; a TSA that cannot be
    reached or answers no valid token stores nothing (exit 1). A stamp never replaces an earlier one."""
    try:
        n, entry, token = request_stamp(tsa_url, ca_file)
    except (PreregError, CaFileError) as exc:
        raise UsageError(str(exc)) from exc
    except StudyError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Stamped {entry['record']} ({entry['anchor']}) at {entry['time']} by {entry['tsa']}.")
    click.echo(f"Kept as stamp {n}: {entry['token']} (the token), {entry['certificates']} (its certificates), "
               f"{STAMPS_DIR}/{n}.json (the record); serial {entry['serial']}.")
    if ca_file is None:
        click.echo("Its chain was checked only against the certificates the TSA sent: this shows the token is "
                   "intact, not who the TSA is; check it against the TSA's CA with --ca-file.")
    click.echo(f"Now commit it: git add {STAMPS_DIR} && git commit -m 'Timestamp the preregistration'")
    click.echo(f"Check it by hand: openssl ts -verify -digest {token.imprint} -in {entry['token']} "
               f"-CAfile {ca_file or '<the TSA CA file>'} -untrusted {entry['certificates']}")
