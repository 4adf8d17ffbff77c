"""``study runtime``: the agent runtimes this install can run sessions on, and installing the pinned
Codex CLI.

- ``study runtime list``: each runtime (Claude Code, Codex CLI), the model API it speaks, the
  version the study pins, the installed one and whether it can run here (and what to do if not);
- ``study runtime install codex``: ``npm ci`` of the pinned Codex CLI from the committed lock
  (integrity hashes) into the project's own folder (``study.runtimes.codex.pin``). Claude Code
  needs no install of its own: it comes inside the locked claude-agent-sdk wheel.
"""

from __future__ import annotations

import click

from study.cli.vocabulary import FAILED, UsageError, examples


@click.group(epilog=examples("study runtime list", "study runtime install codex"))
def runtime() -> None:
    """The agent runtimes sessions run on (Claude Code, Codex CLI): list them, install Codex CLI."""


@runtime.command("list", epilog=examples("study runtime list"))
def list_() -> None:
    """Each runtime: its API, the pinned and the installed version, and whether it can run here."""
    from study.runtimes import runtime as runtime_of, runtime_names

    from .claude_code import pin as claude_pin
    from .codex import pin as codex_pin

    pinned = {"claude-code": claude_pin.bundled_cli_version(), "codex": codex_pin.pinned_version()}
    failed = False
    for name in runtime_names():
        face = runtime_of(name)
        problem = face.problem()
        failed = failed or problem is not None
        state = "ready" if problem is None else f"not ready: {problem}"
        click.echo(f"{name:<12} {face.label:<12} {face.api:<19} pinned {pinned[name]}, installed "
                   f"{face.version() or 'none'}: {state}")
    if failed:
        raise SystemExit(FAILED)


@runtime.command(epilog=examples("study runtime install codex", "STUDY_CODEX_DIR=/opt/codex study runtime install codex",
                                  "study runtime install codex --optional   # the README's install: no Node.js is a note"))
@click.argument("name", type=click.Choice(["codex"]))
@click.option("--optional", is_flag=True,
              help="Where Node.js/npm is missing, say so in one line and exit 0 (Claude Code needs neither); any other "
                   "failure still fails.")
def install(name: str, optional: bool) -> None:
    """Install runtime NAME's pinned CLI (codex: `npm ci` from the committed lock, into the
    project's own folder, never on PATH)."""
    import shutil

    from .codex import pin

    if optional and shutil.which("npm") is None:
        click.echo("note: npm (Node.js) is not installed, so Codex CLI is not: Claude Code sessions work without it; "
                   "for Codex CLI install Node.js, then `study runtime install codex`")
        return

    click.echo(f"installing Codex CLI {pin.pinned_version()} into {pin.install_dir()} (npm ci, integrity-checked) ...")
    try:
        path = pin.install()
    except pin.InstallError as exc:
        raise UsageError(str(exc)) from None
    click.echo(f"Codex CLI {pin.binary_version() or pin.installed_version()} installed: {path}")
