"""``study fsm``: validate and draw workflows, enforce them in any Claude Code project, build the study's.

- ``study fsm validate FILE...`` — load and validate; print every problem as FILE:LINE: what to
  fix; exit 1 if any file has a problem.
- ``study fsm show FILE`` — print the workflow as a Mermaid state diagram.
- ``study fsm hook pre-tool-use|post-tool-use|post-tool-use-failure|stop --frames DIR
  --workflow FILE`` — a Claude Code command hook: reads the hook JSON on stdin, prints the hook
  JSON output.
- ``study fsm serve --frames DIR --workflow FILE`` — the FSM tools as a stdio MCP server.
- ``study fsm enter NAME --frames DIR --workflow FILE`` / ``study fsm status ...`` — enter a
  workflow before a session starts; show where the agent is.
- ``study fsm build-referral [--check]`` — (re)generate the study's workflows and reminder.
- ``study fsm proposals|accept|reject|history|migrate`` — the review loop of agents' proposed
  changes and the workflow's versions (``review_cli.py``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from study.cli.vocabulary import examples

from .frames import FrameStoreError
from .runtime import FsmRuntime
from .workflow import Workflow, WorkflowError

HOOK_EVENTS = ("pre-tool-use", "post-tool-use", "post-tool-use-failure", "stop")


WORKFLOW = "preregistration/workflows/referral_abuse_per_account.yaml"


@click.group(epilog=examples(
    f"study fsm validate {WORKFLOW}",
    f"study fsm show {WORKFLOW} > workflow.mmd",
    "study fsm build-referral --check",
))
def fsm() -> None:
    """Validate, draw and enforce FSM workflows in any Claude Code project (see docs/fsm.md)."""


@fsm.command(epilog=examples(f"study fsm validate {WORKFLOW}", "study fsm validate preregistration/workflows/*.yaml"))
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def validate(files: tuple[Path, ...]) -> None:
    """Validate workflow FILES; exit 1 if any has a problem."""
    failed = False
    for path in files:
        try:
            wf = Workflow.load(path)
        except WorkflowError as exc:
            failed = True
            click.echo(exc.render(), err=True)
            continue
        click.echo(f"{path}: ok (workflow {wf.name}: {len(wf.states)} states, {len(wf.transitions)} transitions, {len(wf.tools)} tools)")
    if failed:
        sys.exit(1)


@fsm.command(epilog=examples(f"study fsm show {WORKFLOW}"))
@click.argument("file", type=click.Path(path_type=Path, exists=True, dir_okay=False))
def show(file: Path) -> None:
    """Print workflow FILE as a Mermaid state diagram."""
    from .mermaid import to_mermaid

    click.echo(to_mermaid(_load_or_exit(file)), nl=False)


def _load_or_exit(path: Path) -> Workflow:
    try:
        return Workflow.load(path)
    except WorkflowError as exc:
        raise click.ClickException(exc.render()) from None


def _runtime(frames: Path, workflow_files: tuple[Path, ...], agent: str, variables_file: Path | None) -> FsmRuntime:
    workflows = {}
    for path in workflow_files:
        wf = Workflow.load(path)
        workflows[wf.name] = wf
    variables: dict[str, Any] = {}
    if variables_file is not None:
        try:
            variables = json.loads(variables_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise click.ClickException(f"--variables {variables_file}: {exc}; give a JSON object of variable name -> value") from None
        if not isinstance(variables, dict):
            raise click.ClickException(f"--variables {variables_file}: must hold a JSON object of variable name -> value")
    from .versions import resolver

    return FsmRuntime(frames, workflows, variables, agent=agent, shared=True, versions=resolver(list(workflow_files)))


_common = [
    click.option("--frames", type=click.Path(path_type=Path), required=True, help="Folder of the frames (shared by the hooks and the MCP server)."),
    click.option("--workflow", "workflow_files", type=click.Path(path_type=Path), multiple=True, required=True, help="Workflow YAML (repeatable)."),
    click.option("--agent", default="main", show_default=True, help="Whose frame stack."),
]


def _with_common(fn: Any) -> Any:
    for option in reversed(_common):
        fn = option(fn)
    return fn


@fsm.command(epilog=examples(
    f"study fsm hook pre-tool-use --frames /tmp/frames --workflow {WORKFLOW} < hook-input.json",
    "(in .claude/settings.json: a command hook per event; see docs/fsm.md)",
))
@click.argument("event", type=click.Choice(HOOK_EVENTS))
@_with_common
@click.option("--tool-prefix", default=None, help="Strip this prefix from tool names (e.g. mcp__sopbench__) so the workflow can use bare names.")
@click.option("--fsm-server", default="fsm", show_default=True, help="MCP server name of the FSM tools; its tools are never gated.")
@click.option("--max-blocks", type=click.IntRange(min=0), default=None,
              help="stop only: let the stop through after this many blocks in a row (Codex CLI has no cap of its own; "
                   "Claude Code's is CLAUDE_CODE_STOP_HOOK_BLOCK_CAP).")
@click.option("--workspace", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="The folder the built-in tools' paths are relative to (workflows naming shell, read, edit, write) "
                   "[default: the hook input's cwd].")
def hook(event: str, frames: Path, workflow_files: tuple[Path, ...], agent: str, tool_prefix: str | None, fsm_server: str,
         max_blocks: int | None, workspace: Path | None) -> None:
    """A command hook of Claude Code or Codex CLI (both speak the same hook JSON): hook JSON on
    stdin, hook JSON output on stdout.

    Anything that prevents a decision (unreadable input, a broken workflow or frames file)
    refuses the tool call or the end of the turn, with the error as the reason, so a
    misconfiguration never silently lets the agent off the workflow.
    """
    from . import hooks

    try:
        hook_input = json.loads(sys.stdin.read() or "null")
        if not isinstance(hook_input, dict):
            raise ValueError("the hook input on stdin must be a JSON object")
        rt = _runtime(frames, workflow_files, agent, None)
        root = str(workspace.resolve()) if workspace is not None else None
        if event == "pre-tool-use":
            out = hooks.pre_tool_use(rt, hook_input, tool_prefix=tool_prefix, fsm_server=fsm_server, workspace=root)
        elif event == "stop":
            out = hooks.stop(rt, hook_input)
            if max_blocks is not None:
                out = _capped_stop(frames, agent, hook_input, out, max_blocks)
        else:
            out = hooks.post_tool_use(rt, hook_input, ok=event == "post-tool-use", tool_prefix=tool_prefix, fsm_server=fsm_server,
                                      workspace=root)
    except (ValueError, OSError, WorkflowError, FrameStoreError) as exc:
        reason = f"FSM hook error ({event}): {exc}"
        click.echo(reason, err=True)
        if event == "pre-tool-use":
            out = hooks.deny_tool(reason)
        elif event == "stop":
            out = hooks.block_stop(reason)
        else:
            out = {}
    click.echo(json.dumps(out))


def _capped_stop(frames: Path, agent: str, hook_input: dict, out: dict, max_blocks: int) -> dict:
    """The stop gate's answer with a cap on blocks in a row: a stop after a block comes with
    ``stop_hook_active`` true; the count of those is kept per session in the frames folder
    (``stop_blocks.json``), and the stop after ``max_blocks`` of them goes through."""
    from . import hooks

    path = frames / f"stop_blocks-{agent}.json"
    try:
        counts = json.loads(path.read_text(encoding="utf-8"))
        counts = counts if isinstance(counts, dict) else {}
    except (OSError, ValueError):
        counts = {}
    session = str(hook_input.get("session_id") or "")
    count = int(counts.get(session, 0)) if hook_input.get("stop_hook_active") else 0
    if hooks.refusal(out) is None:
        count = 0
    elif count >= max_blocks:
        click.echo(f"FSM stop gate: {count} blocks in a row, the cap (--max-blocks {max_blocks}): the stop goes through",
                   err=True)
        out, count = {}, 0
    else:
        count += 1
    counts[session] = count
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(counts), encoding="utf-8")
    tmp.replace(path)
    return out


@fsm.command(epilog=examples(
    f"study fsm serve --frames /tmp/frames --workflow {WORKFLOW}",
    "(as an MCP server in .mcp.json or --mcp-config; see docs/fsm.md)",
))
@_with_common
@click.option("--variables", "variables_file", type=click.Path(path_type=Path), default=None, help="JSON object: initial variables of entered workflows.")
@click.option("--name", default="fsm", show_default=True, help="The MCP server's name.")
@click.option("--proposals", is_flag=True, help="Also serve propose_workflow_change (proposals go to the ledger in --frames; see docs/fsm.md).")
@click.option("--session", default=None, help="With --proposals: the label proposals record as their session (default: this server run).")
def serve(frames: Path, workflow_files: tuple[Path, ...], agent: str, variables_file: Path | None, name: str,
          proposals: bool, session: str | None) -> None:
    """Serve the FSM tools (enter, status, self_check, transition, exit) over stdio MCP."""
    from .mcp_server import serve_stdio

    try:
        rt = _runtime(frames, workflow_files, agent, variables_file)
    except (WorkflowError, FrameStoreError) as exc:
        raise click.ClickException(str(exc)) from None
    desk = None
    if proposals:
        from .proposals import ProposalDesk

        desk = ProposalDesk(rt, {wf.name: Path(wf.file) for wf in rt.workflows.values()}, frames, session=session, agent=agent)
    serve_stdio(rt, name=name, proposals=desk)


@fsm.command(epilog=examples(f"study fsm enter ReferralAbusePerAccount --frames /tmp/frames --workflow {WORKFLOW}"))
@click.argument("workflow_name")
@_with_common
@click.option("--variables", "variables_file", type=click.Path(path_type=Path), default=None, help="JSON object: the frame's initial variables.")
def enter(workflow_name: str, frames: Path, workflow_files: tuple[Path, ...], agent: str, variables_file: Path | None) -> None:
    """Enter WORKFLOW_NAME for the agent before a session starts (prints the status)."""
    from .outcomes import FsmRefusal

    try:
        rt = _runtime(frames, workflow_files, agent, variables_file)
        click.echo(json.dumps(rt.enter(workflow_name), indent=2))
    except (WorkflowError, FrameStoreError, FsmRefusal) as exc:
        raise click.ClickException(str(exc)) from None


@fsm.command(epilog=examples(f"study fsm status --frames /tmp/frames --workflow {WORKFLOW}"))
@_with_common
def status(frames: Path, workflow_files: tuple[Path, ...], agent: str) -> None:
    """Print where the agent is: workflow, state, permitted tools, transitions."""
    try:
        rt = _runtime(frames, workflow_files, agent, None)
    except (WorkflowError, FrameStoreError) as exc:
        raise click.ClickException(str(exc)) from None
    from .review_cli import version_of_frames

    click.echo(json.dumps({**rt.status(), **version_of_frames(rt, workflow_files)}, indent=2))


@fsm.command("build-referral", epilog=examples(
    "study fsm build-referral --check     # are the committed workflows and reminder up to date?",
    "study fsm build-referral --root /tmp/generated",
))
@click.option("--check", is_flag=True, help="Do not write: exit 1 if the committed files differ from what the script generates.")
@click.option("--root", type=click.Path(path_type=Path), default=None, help="Write under this folder instead of preregistration/.")
def build_referral(check: bool, root: Path | None) -> None:
    """Generate the study's workflows and reminder text from the SOP."""
    from . import build_referral_workflow as build

    if check:
        problems = build.differences(root)
        for line in problems:
            click.echo(line, err=True)
        if problems:
            click.echo("Run `study fsm build-referral` (and amend the preregistration if it is frozen).", err=True)
            sys.exit(1)
        click.echo("generated workflows and reminder are up to date")
        return
    for path in build.write(root):
        click.echo(f"wrote {path}")


@fsm.command("build", epilog=examples(
    "study fsm build --task dangerous_goods --root /tmp/dg-workflows",
    "study fsm build --task referral_abuse_detection_v2 --check     # the frozen workflows, byte for byte",
    "study fsm build --task my_task/manifest.yaml --root my_study/preregistration",
))
@click.option("--task", "task_name", default=None, help="A vendored task's name or a manifest file (default: the project's task).")
@click.option("--check", is_flag=True, help="Do not write: exit 1 if the files under the folder differ from what the builder generates.")
@click.option("--root", type=click.Path(path_type=Path), default=None,
              help="Write under this folder (default: preregistration/, for the project's own task only).")
def build(task_name: str | None, check: bool, root: Path | None) -> None:
    """Generate a task's workflows (FSM, Stop-only, FSM-bound, FSM-lean, FSM-lean-bound) and reminder."""
    from study.paths import prereg_dir
    from sopbench_tools.tasks import project_task_name, resolve_task

    from . import task_build

    task = _task_or_exit(task_name, resolve_task)
    if root is None:
        if task.name != project_task_name():
            click.echo(f"Error: {task.name} is not this project's task ({project_task_name()}); give --root DIR "
                       "to write its workflows elsewhere (or make a project for it with `study new --task`).", err=True)
            sys.exit(2)
        root = prereg_dir()
    if check:
        problems = task_build.differences(task, root)
        for line in problems:
            click.echo(line, err=True)
        if problems:
            click.echo(f"Run `study fsm build --task {task.name}` (and amend the preregistration if it is frozen).", err=True)
            sys.exit(1)
        click.echo(f"generated workflows and reminder of {task.name} are up to date")
        return
    for path in task_build.write(task, root):
        click.echo(f"wrote {path}")


def _task_or_exit(task_name: str | None, resolve: Any) -> Any:
    """The task ``--task`` names (a name or a manifest path), or exit 2 with what is wrong."""
    from sopbench_tools.tasks import TaskError, load_task

    try:
        if task_name is not None and (task_name.endswith((".yaml", ".yml")) or "/" in task_name):
            return load_task(Path(task_name))
        return resolve(task_name)
    except TaskError as exc:
        click.echo(exc.render(), err=True)
        sys.exit(2)


def _add_review_commands() -> None:
    from .review_cli import REVIEW_COMMANDS

    for command in REVIEW_COMMANDS:
        fsm.add_command(command)


_add_review_commands()
