"""``study doctor``: is this install ready for a confirmatory run? The command to run first.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

It prints the runtime (Python, claude-agent-sdk, the bundled Claude Code CLI's path and version,
the pinned Codex CLI, whether the optional τ²-bench extra is installed and which version), then
checks, each with what to fix when it fails:

- lock: every package of ``requirements.lock`` is installed at its locked version;
- frozen runtime: the runtime matches ``preregistration/runtime.json`` as the preregistration in
  effect has it (CLI, SDK, lock sha256; a different Python minor is only reported);
- CLI: the CLI sessions run is the bundled one, and its binary reports the bundled version;
- Codex CLI (``--runtime codex`` requires it; otherwise a missing one is a note): installed as
  the npm lock pins it, and one short session of the study's runner on it against the simulator
  (``codex.py`` here: MCP tools, the PreToolUse gate, resume);
- one short session of that CLI against the simulator (``claude_code.py`` here): the CLI starts,
  the PreToolUse hook is called and its denial honoured, the SOP-Bench MCP tools are connected
  and record decisions, and ``resume`` continues the same session;
- the sessions folder is writable.

Exit code 0 only when all of them hold. The API key is reported, never required; without it the
last line says what a confirmatory run still needs.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

from study.cli.vocabulary import examples, sessions_option
from study.runtimes.claude_code.command import CLI_ENV, REINSTALL, cli_path, cli_problem

INSTALL = "pip install --require-hashes -r requirements.lock && pip install --no-deps -e ."


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _runtime_lines() -> list[tuple[str, str]]:
    from study.runtimes.claude_code import sdk
    from study.runtimes.codex import pin as codex

    path = sdk.bundled_cli_path()
    key = "set" if os.environ.get("ANTHROPIC_API_KEY") else "not set"
    base = os.environ.get("ANTHROPIC_BASE_URL")
    openai = "set" if os.environ.get("OPENAI_API_KEY") else "not set"
    return [
        ("Python", f"{platform.python_version()} ({sys.executable})"),
        ("claude-agent-sdk", sdk.sdk_version()),
        ("Claude Code CLI", f"{sdk.bundled_cli_version()} (bundled) at {path or 'none'}"),
        ("Codex CLI", f"{codex.installed_version() or 'not installed'} (pinned {codex.pinned_version()}) at "
                      f"{codex.binary_path() or codex.install_dir()}"),
        ("τ²-bench", tau2_line()),
        ("API key", f"ANTHROPIC_API_KEY {key}" + (f", ANTHROPIC_BASE_URL={base}" if base else "")
         + f", OPENAI_API_KEY {openai} (reported only: the simulator needs none; a real run needs a key or a relay)"),
    ]


def tau2_line() -> str:
    """Whether the optional τ²-bench extra is installed, and which version (from its metadata:
    nothing of it is imported). Reported only: the main study does not need it."""
    from importlib import metadata

    from study.families.tau2.availability import DISTRIBUTION, tau2_problem

    problem = tau2_problem()
    if problem is None:
        return f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)} installed (the optional tau2 extra, for the tau2-* studies)"
    return f"{problem} (optional: only the tau2-* studies need it)"


def codex_checks(wanted: bool) -> tuple[list[Check], str | None]:
    """The pinned Codex CLI: installed as pinned (version, npm lock), then one short session of
    the study's own runner on it (``study.doctor.codex``). Not installed is a note
    unless ``wanted`` (``--runtime codex``): Claude Code sessions do not need it."""
    from study.runtimes.codex import pin

    problem = pin.problem()
    if problem is not None:
        if wanted:
            return [Check("Codex CLI", False, problem, "study runtime install codex (needs Node.js and npm)")], None
        return [], f"Codex CLI: {problem}"
    from study.doctor.codex import run_probe

    checks = [Check("Codex CLI", True, f"{pin.installed_version()} installed from the committed npm lock "
                                       f"(sha256 {pin.lock_sha256()[:12]}…) at {pin.binary_path()}")]
    checks += [Check(f.name, f.ok, f.detail, f.fix) for f in run_probe()]
    return checks, None


def check_lock() -> Check:
    from study.runtimes import lock as environment

    path = environment.lock_path()
    digest = environment.lock_sha256()
    if digest is None:
        return Check("lock", False, f"no lock file at {path}",
                     "install from a checkout of the study, which has requirements.lock: " + INSTALL)
    try:
        mismatches = environment.lock_mismatches()
        count = len(environment.locked_versions())
    except (OSError, ValueError) as exc:
        return Check("lock", False, f"{path.name} cannot be read: {exc}", "restore it from git")
    if mismatches:
        shown = ", ".join(f"{name} {found or 'missing'} (locked {locked})" for name, locked, found in mismatches[:5])
        more = f" and {len(mismatches) - 5} more" if len(mismatches) > 5 else ""
        return Check("lock", False, f"{len(mismatches)} of {count} packages differ from {path.name}: {shown}{more}",
                     INSTALL)
    return Check("lock", True, f"all {count} packages installed as {path.name} pins them (sha256 {digest[:12]}…)")


def check_frozen_runtime() -> Check:
    from study.paths import project_root
    from study.prereg.files import RUNTIME as rel

    root = project_root()
    if not (root / rel).is_file():
        return Check("frozen runtime", False, f"not frozen ({rel} does not exist in {root})",
                     "the freeze records the runtime: `study prereg runtime --write`, commit it, then `study prereg "
                     f"freeze` (or record it in a frozen plan: `study prereg amend --reason \"...\" {rel}`)")
    try:
        from study.prereg.chain import read_chain
        from study.prereg.runtime import check_runtime

        chain = read_chain(root)   # the manifest in effect, without the rest of verify
    except ImportError as exc:
        return Check("frozen runtime", False, f"cannot be checked: {exc}", "reinstall: " + INSTALL)
    if chain.freeze is None and not chain.manifest:
        return Check("frozen runtime", False, f"not frozen: there is no freeze in {root} ({chain.problems[0]})",
                     "freeze the plan with `study prereg freeze` once it is final")
    if chain.problems:
        return Check("frozen runtime", False, f"cannot be checked: the chain of records is broken ({chain.problems[0]})",
                     "see `study prereg verify`")
    runtime = check_runtime(root, chain.effective)
    if not runtime.ok:
        return Check("frozen runtime", False, "; ".join(runtime.failures), runtime.fix or "")
    detail = "; ".join([f"matches {rel} (CLI, SDK and lock)", *runtime.differences])
    return Check("frozen runtime", True, detail)


def check_cli() -> tuple[Check, Path | None]:
    from study.runtimes.claude_code import sdk

    path = cli_path()
    problem = cli_problem(path)
    if problem:
        return Check("CLI", False, problem.split("; ")[0], problem.split("; ", 1)[-1]), None
    if os.environ.get(CLI_ENV):
        return Check("CLI", False, f"{CLI_ENV}={path} overrides the bundled CLI, but sessions always run the bundled "
                     "one, so this check says nothing about them", f"unset {CLI_ENV}"), path
    said = sdk.bundled_cli_version_from_binary()
    if said != sdk.bundled_cli_version():
        return Check("CLI", False, f"{path} reports version {said}, the SDK bundles {sdk.bundled_cli_version()}",
                     REINSTALL), path
    return Check("CLI", True, f"{path} runs and reports {said}"), path


def session_checks(path: Path | None) -> list[Check]:
    names = ("CLI session", "hooks", "MCP tools", "resume")
    if path is None:
        return [Check(name, False, "not tried: no CLI to start") for name in names]
    from study.doctor.claude_code import run_probe

    probe = run_probe(path)
    started = probe.cli_version is not None
    if probe.error and not started:
        fix = f"unset {CLI_ENV}" if os.environ.get(CLI_ENV) else (
            f"{REINSTALL}; if it persists, `study claude --version` shows the CLI's own error")
        return [Check("CLI session", False, f"the CLI at {path} could not start: {probe.error}", fix)] + [
            Check(name, False, "not tried: the CLI did not start") for name in names[1:]]
    done = not probe.error and len(probe.decided) == len(probe.accounts)
    checks = [Check("CLI session", done,
                    f"CLI {probe.cli_version} ran {len(probe.session_ids)} calls against the simulator (SIMULATED), "
                    f"{probe.sim_requests} model requests, {len(probe.decided)} of {len(probe.accounts)} {probe.plural} "
                    "decided" + (f"; then failed: {probe.error}" if probe.error else ""),
                    "" if done else f"run `study claude --version` and {REINSTALL}")]
    hooked = probe.hook_calls > 0 and probe.denied and all(a in probe.decided for a in probe.denied)
    checks.append(Check("hooks", bool(hooked),
                        f"PreToolUse hook called {probe.hook_calls} times; {len(probe.denied)} denied decisions "
                        "submitted again" if hooked else f"PreToolUse hook called {probe.hook_calls} times, "
                        f"denied {probe.denied}, decided {sorted(probe.decided)}",
                        "" if hooked else f"the CLI does not honour hooks as the study needs: {REINSTALL}"))
    connected = probe.mcp_status.get("sopbench") == "connected" and bool(probe.decided)
    checks.append(Check("MCP tools", connected,
                        f"server sopbench {probe.mcp_status.get('sopbench', 'absent')}; "
                        f"{len(probe.decided)} decisions recorded through its tools",
                        "" if connected else f"the CLI cannot use the in-process MCP server: {REINSTALL}"))
    resumed = (len(probe.session_ids) == 2 and len(set(probe.session_ids)) == 1
               and probe.decisions_per_call == [1, 2])
    checks.append(Check("resume", resumed,
                        f"call 2 resumed session {probe.session_ids[0][:8]}… and decided the last {probe.noun}" if resumed
                        else f"session ids {probe.session_ids}, decisions after each call {probe.decisions_per_call}",
                        "" if resumed else f"the CLI cannot resume a session in {tempfile.gettempdir()}: {REINSTALL}"))
    return checks


def check_sessions_folder(folder: Path | None = None) -> Check:
    """Can sessions be written to ``folder`` (default: the project's sessions/)? The same check
    ``study run`` makes before it starts (``preflight.check_out_root``)."""
    from study.paths import sessions_folder
    from study.runner.preflight import PreflightError, check_out_root

    folder = sessions_folder(folder)
    try:
        check_out_root(folder, "sessions folder")
    except PreflightError as exc:
        return Check("sessions folder", False, str(exc),
                     "give a folder this user can write with --sessions, or set STUDY_ROOT to a checkout you can write")
    state = "is writable" if folder.is_dir() else "does not exist yet and can be created"
    return Check("sessions folder", True, f"{folder} {state}")


def missing_for_a_real_run(environ: dict[str, str] | None = None) -> list[str]:
    """What a confirmatory run of the default model still needs that doctor does not require:
    its API key (the simulator needs none)."""
    from study.protocol.models import ModelError, load_models

    environ = dict(os.environ if environ is None else environ)
    try:
        table = load_models()
        entry = table.models[table.default]
    except (ModelError, KeyError) as exc:
        return [f"the models table cannot be read ({exc})"]
    if environ.get(entry.api_key_env, "").strip():
        return []
    return [f"{entry.api_key_env} is not set: the default model {table.default} needs it "
            f"(export {entry.api_key_env}=..., or a relay's key with ANTHROPIC_BASE_URL)"]


@click.command(epilog=examples(
    "study doctor                                   # after the install; exit code 0 when ready",
    "study doctor --sessions /shared/study-sessions # also check a shared sessions folder is writable",
))
@sessions_option(help="The sessions folder to check for writing [default: sessions/ of the project].")
@click.option("--runtime", "runtime", type=click.Choice(["codex"]), default=None,
              help="Also require Codex CLI (installed and working); without it, a missing Codex CLI is only a note.")
def doctor(sessions: Path | None, runtime: str | None) -> None:
    """Check that this install is ready for a confirmatory run: the runtime, the lock, the frozen
    runtime, one short session of the bundled Claude Code CLI against the simulator (hooks, MCP
    tools, resume) and the sessions folder. Says what to fix for each failure; exit code 0 only
    when everything holds (an API key is reported, not required)."""
    click.echo("study doctor: is this install ready for a confirmatory run?")
    for name, value in _runtime_lines():
        click.echo(f"      {name:<16} {value}")
    checks: list[Check] = []

    def show(*new: Check) -> None:
        for check in new:
            checks.append(check)
            click.echo(f"{'ok' if check.ok else 'FAIL':<5} {check.name:<16} {check.detail}")
            if not check.ok and check.fix:
                click.echo(f"      {'':<16} fix: {check.fix}")

    show(check_lock(), check_frozen_runtime())
    cli_check, path = check_cli()
    show(cli_check)
    if path is not None:
        click.echo(f"      {'':<16} (one short session of the CLI against the simulator …)")
    show(*session_checks(path))
    codex, note = codex_checks(runtime == "codex")
    if codex:
        click.echo(f"      {'':<16} (one short session of the pinned Codex CLI against the simulator …)")
    show(*codex)
    if note:
        click.echo(f"note  {note}; Claude Code sessions do not need it")
    show(check_sessions_folder(sessions))
    failed = [c.name for c in checks if not c.ok]
    if failed:
        click.echo(f"Not ready: {len(failed)} check(s) failed ({', '.join(failed)}). "
                   "Fix them and run `study doctor` again.")
        sys.exit(1)
    missing = missing_for_a_real_run()
    if missing:
        click.echo("Ready for simulated sessions; a confirmatory run still needs: " + "; ".join(missing)
                   + ". Then `study prereg verify` (the frozen plan is intact).")
        return
    click.echo("Ready for a confirmatory run (then `study prereg verify`: the frozen plan is intact).")
