"""``study codex …``: the pinned Codex CLI, with a workflow's FSM wired in.

``study claude`` runs Claude Code, whose FSM wiring lives in the project's ``.claude/settings.json``
(``study fsm hook`` commands and ``study fsm serve``; docs/fsm.md). Codex CLI reads hooks and MCP
servers from its ``CODEX_HOME``, so ``study codex --workflow FILE --frames DIR -- ARGS`` makes one:
the ``config.toml`` and ``hooks.json`` of a workspace session (``config.workspace_config``: nothing
on the network but the model endpoint, no AGENTS.md) with Codex's own tools on (its shell, and
``apply_patch`` where Codex offers it) inside its ``workspace-write`` sandbox rooted at the current
folder (writes only there and in the git folders of its repository, :func:`git_dirs`, so the agent
can commit; not in /tmp; no network for commands), with the FSM tools served by ``study fsm serve``
and the tool-call gate, the record of completed calls and the stop gate as ``study fsm hook``
commands over the same frames (a workflow naming ``shell``, ``read``, ``edit`` or ``write`` gates
Codex's own tools by them, docs/fsm.md); then it replaces itself with the pinned binary and ARGS
(``exec``: same process, stdin, stdout and exit code), with ``TMPDIR`` a folder of that home
(Codex's sandbox needs its home outside its temporary folder, ``study.runtimes.sandbox``).
Commands run in a plain shell, not a login shell (``allow_login_shell = false``): they see the
environment ``study codex`` was started in, an activated virtual environment's ``PATH`` and
``VIRTUAL_ENV`` included (a login shell would reset ``PATH`` from /etc/profile).

Without ``--workflow`` it only runs the pinned binary (``study codex --version``). The model
endpoint is Codex's own (the OpenAI API with the user's key) unless ``--base-url`` names another
one (any OpenAI Responses API endpoint; ``--env-key`` the variable holding its key), e.g. the
simulator: ``study sim serve --api responses``.

Two things differ from Claude Code (docs/runtimes.md): Codex runs no PostToolUse hook for a tool's
error result, so the FSM's history has the successful calls only (a workflow whose guard reads a
failed call, an early exit, needs the study's runner, which hears every call from its own tool
server); and Codex has no cap on stop blocks, so ``--max-blocks N`` lets the N+1-th stop of a turn
through (``study fsm hook stop --max-blocks``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click

from study.cli.vocabulary import UsageError, examples
from study.runtimes.sandbox import CODEX_TMPDIR

from .config import hooks_json, project_config, write_home
from .pin import binary_env, binary_path, problem as pin_problem

#: The stop blocks per turn ``study codex`` allows by default (the study's limit, limits.yaml).
DEFAULT_MAX_BLOCKS = 50


def _study(*args: str) -> list[str]:
    return [sys.executable, "-m", "study.cli", *args]


def git_dirs(work: Path) -> list[Path]:
    """The folders git writes when the agent commits in ``work``: the repository's git folder and,
    for a linked worktree, its common folder (``git rev-parse``, which runs nothing of the
    repository's). Codex keeps every git folder read-only unless it is a writable root. None
    outside a repository."""
    try:
        done = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir"],
                              cwd=str(work), capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is None or done.returncode != 0:   # no git, or not a repository: a plain .git folder still counts
        return [work / ".git"] if (work / ".git").is_dir() else []
    dirs: list[Path] = []
    for line in done.stdout.splitlines():
        folder = Path(line.strip()).resolve()
        if line.strip() and folder.is_dir() and folder not in dirs:
            dirs.append(folder)
    return dirs


def venv_first(env: dict[str, str]) -> str:
    """``PATH`` with the activated virtual environment's ``bin`` first (``VIRTUAL_ENV``): a
    launcher that ran ``study`` may have put its own Python ahead of it (pyenv's shims do), and
    the agent's ``python`` is the project's."""
    path = env.get("PATH", os.defpath)
    venv = env.get("VIRTUAL_ENV")
    if not venv:
        return path
    first = str(Path(venv) / ("Scripts" if os.name == "nt" else "bin"))
    return os.pathsep.join([first, *(p for p in path.split(os.pathsep) if p and p != first)])


def wire_home(home: Path, *, workflow: list[Path], frames: Path, work: Path, model: str, base_url: str | None,
              env_key: str, tool_prefix: str | None, max_blocks: int) -> Path:
    """Write a CODEX_HOME with the workflows' FSM wired in (see the module docstring)."""
    import shlex

    common = ["--frames", str(frames)] + [a for wf in workflow for a in ("--workflow", str(wf))]
    prefix = ["--tool-prefix", tool_prefix] if tool_prefix else []
    prefix += ["--workspace", str(work)]
    serve = _study("fsm", "serve", *common)
    config = project_config(model=model, base_url=base_url or "", env_key=env_key, workspace=work,
                            servers={"fsm": (serve[0], serve[1:])}, provider=base_url is not None,
                            git_dirs=git_dirs(work), read_only=[frames, home, *workflow])

    def hook(event: str, *extra: str) -> str:
        return " ".join(shlex.quote(a) for a in _study("fsm", "hook", event, *common, *prefix, *extra))

    hooks = hooks_json({
        "PreToolUse": hook("pre-tool-use"),
        "PostToolUse": hook("post-tool-use"),
        "Stop": hook("stop", "--max-blocks", str(max_blocks)),
    })
    return write_home(home, config, hooks)


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
               epilog=examples(
                   "study codex --version",
                   "study codex --workflow wf.yaml --frames .fsm -- exec --json 'Process the batch.'",
                   "study codex --workflow wf.yaml --frames .fsm --base-url http://127.0.0.1:8765/v1 --model gpt-5.4-mini "
                   "-- exec 'hi'",
               ))
@click.option("--workflow", "workflows", type=click.Path(path_type=Path, exists=True, dir_okay=False), multiple=True,
              help="Workflow YAML to enforce (repeatable); without it, only the pinned Codex CLI runs.")
@click.option("--frames", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Folder of the FSM frames (shared by the hooks and the FSM's MCP server) [default: .fsm/].")
@click.option("--home", "home", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The CODEX_HOME to write [default: codex-home/ in the frames folder].")
@click.option("--model", default="gpt-5.4-mini", show_default=True, help="The model Codex asks for.")
@click.option("--base-url", default=None, help="Another OpenAI Responses API endpoint, e.g. the simulator's.")
@click.option("--env-key", default="OPENAI_API_KEY", show_default=True,
              help="With --base-url: the environment variable holding its key.")
@click.option("--tool-prefix", default=None,
              help="Strip this prefix from tool names (e.g. mcp__sopbench__) so the workflow can use bare names.")
@click.option("--max-blocks", type=click.IntRange(min=0), default=DEFAULT_MAX_BLOCKS, show_default=True,
              help="Stop blocks per turn before a stop goes through (Codex CLI has no cap of its own).")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def codex(workflows: tuple[Path, ...], frames: Path | None, home: Path | None, model: str, base_url: str | None,
          env_key: str, tool_prefix: str | None, max_blocks: int, args: tuple[str, ...]) -> None:
    """Run the pinned Codex CLI with ARGS; with --workflow, in a CODEX_HOME of its own with the
    workflow's FSM wired in (FSM tools over MCP, the tool-call gate, the record of calls and the
    stop gate as hooks). Its stdin, output and exit code are the command's own."""
    problem = pin_problem()
    if problem is not None:
        raise UsageError(problem)
    binary = binary_path()
    assert binary is not None
    env = {**os.environ, **binary_env()}
    argv = [str(binary), *args]
    if workflows:
        frames = (frames or Path(".fsm")).resolve()
        home = (home or frames / "codex-home").resolve()
        frames.mkdir(parents=True, exist_ok=True)
        wire_home(home, workflow=[w.resolve() for w in workflows], frames=frames, work=Path.cwd().resolve(),
                  model=model, base_url=base_url, env_key=env_key, tool_prefix=tool_prefix, max_blocks=max_blocks)
        env["CODEX_HOME"] = str(home)
        env["PATH"] = venv_first(env)
        # Codex makes the link its sandbox helper runs from in its home, but never under its
        # temporary folder: a home under /tmp gets a TMPDIR of its own (study.runtimes.sandbox)
        tmpdir = home / CODEX_TMPDIR
        tmpdir.mkdir(exist_ok=True)
        env["TMPDIR"] = str(tmpdir)
        if args and args[0] == "exec" and "--dangerously-bypass-hook-trust" not in args:
            # hooks of a CODEX_HOME are not trusted unless persisted: this home is the study's own
            argv = [str(binary), "exec", "--dangerously-bypass-hook-trust", *args[1:]]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "posix":
        sys.exit(subprocess.call(argv, env=env))
    try:
        os.execve(argv[0], argv, env)
    except OSError as exc:
        raise UsageError(f"cannot run Codex CLI {binary}: {exc.strerror}; reinstall it with `study runtime install codex`") from None
