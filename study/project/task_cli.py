"""``study task list`` and ``study task check``: which SOP-Bench tasks a project can study, and
whether one's manifest, tools and workflows hold (the oracle's trial session: ``trial.py``)."""

from __future__ import annotations

from pathlib import Path

import click

from study.cli.vocabulary import UsageError, examples


#: the oracle session's batch when --items is not given
ORACLE_ITEMS = 3


class TaskProblem(click.ClickException):
    """A manifest or task folder that cannot be used (its problems, one a line, with the line): exit 2."""

    exit_code = 2


def _load(task: str):
    from sopbench_tools.tasks import TaskError, load_task

    try:
        return load_task(Path(task) if task.endswith((".yaml", ".yml")) else task)
    except TaskError as exc:
        if exc.problems and exc.problems[0].line is None and not Path(exc.file).exists():
            raise UsageError(exc.problems[0].message) from None
        raise TaskProblem(f"the task cannot be loaded ({len(exc.problems)} problem(s)):\n{exc.render()}") from None


@click.group(epilog=examples("study task list", "study task check dangerous_goods",
                             "study task check my_task/manifest.yaml --items 5"))
def task() -> None:
    """The SOP-Bench tasks the study can run: list them, check one."""


@task.command(name="list", epilog=examples("study task list", "study task list | grep 'NOT RUNNABLE' -A1"))
def list_tasks() -> None:
    """Every vendored task: runnable or why not (the reason `study run --task` gives), items, item
    noun, required tools, labels."""
    from sopbench_tools.tasks import PREREGISTERED_TASK, load_task, task_names
    from sopbench_tools.tasks.attribution import unsupported_reason

    for name in task_names():
        t = load_task(name)
        reason = unsupported_reason(t)
        mark = " (preregistered)" if name == PREREGISTERED_TASK else ""
        state = "NOT RUNNABLE" if reason else "runnable"
        click.echo(f"{name}{mark}: {state}; {len(t.item_ids)} {t.item.plural} by {t.item.id_column}; "
                   f"{len(t.required_tools)} required of {len(t.served_tools)} served tools; "
                   f"labels: {', '.join(t.labels)}")
        if reason:
            click.echo(f"    why: {' '.join(reason.split())}")


@task.command(epilog=examples("study task check dangerous_goods",
                              "study task check referral_abuse_detection_v2 --items 10",
                              "study task check my_task/my_task.yaml          # an own task folder's manifest"))
@click.argument("task_name", metavar="TASK")
@click.option("--items", type=click.IntRange(1), default=None,
              help="Compare the tools on the first N items only (default: every item); the oracle's session "
                   f"decides the first N of seed 2's order (default: {ORACLE_ITEMS}).")
@click.option("--oracle/--no-oracle", default=True, show_default=True,
              help="Also run the simulator's oracle under FSM through the real CLI and check FC = batch size.")
def check(task_name: str, items: int | None, oracle: bool) -> None:
    """Check TASK (a vendored task's name, or a manifest .yaml): the manifest against its folder
    (every file's sha256, columns, tools, labels), every served tool on every item against the
    task's own tools.py, and a short session of the simulator's oracle under FSM through the real
    CLI (in a scratch project of its own): it must decide every item compliantly (FC = batch size).
    Exit 0 when nothing is wrong, 1 when a check fails, 2 when it cannot load.
    """
    from sopbench_tools.tasks.attribution import unsupported_reason
    from sopbench_tools.tasks.check import folder_findings, tool_findings

    t = _load(task_name)
    click.echo(f"{t.name}: manifest {t.manifest}, folder {t.folder}")
    click.echo(f"  loaded: {len(t.files)} files sha256-checked, {len(t.item_ids)} {t.item.plural}, "
               f"{len(t.served_tools)} served tools ({len(t.required_tools)} required), record {t.record.tool}, "
               f"decision {t.decision.tool} ({', '.join(c.column for c in t.decision.columns)})")
    folder = folder_findings(t)
    tools, counts = tool_findings(t, items)
    if counts.get("pairs"):
        click.echo(f"  tools against tools.py: {counts['pairs']} (tool, item) pairs: {counts['equal_results']} equal "
                   f"results, {counts['equal_errors']} equal errors"
                   + (f", {counts['documented_difference']} documented differences" if counts["documented_difference"] else ""))
    for note in folder.notes + tools.notes:
        click.echo(f"  note: {note}")
    problems = folder.problems + tools.problems
    if oracle:
        problems += _oracle_problems(t, min(items or ORACLE_ITEMS, len(t.item_ids)))
    for problem in problems:
        click.echo(f"  PROBLEM: {problem}")
    if problems:
        raise SystemExit(1)
    click.echo("  ok" if unsupported_reason(t) is None else "  ok (the study cannot run the task, see the note)")


def _oracle_problems(t, items: int) -> list[str]:
    """Run the oracle under FSM on ``items`` items of ``t``; print its FC; the problems it shows."""
    import tempfile

    from sopbench_tools.tasks.attribution import unsupported_reason

    from .trial import ScratchError, make_scratch_project, run_sim_session

    reason = unsupported_reason(t)
    if reason:
        click.echo(f"  oracle: not run (the study cannot run the task: {' '.join(reason.split())})")
        return []
    with tempfile.TemporaryDirectory(prefix="study-task-check-") as tmp:
        try:
            project = make_scratch_project(Path(tmp))
        except ScratchError as exc:
            return [f"oracle: no scratch project: {exc}"]
        source = str(t.manifest) if t.manifest.parent != _manifest_dir() else t.name
        run = run_sim_session(project, source, "FSM", "oracle", items)
    if run.fc is None:
        return [f"oracle under FSM on {items} {t.item.plural}: no session was scored ({' '.join(run.error) or 'no log'})"]
    click.echo(f"  oracle under FSM (real CLI, simulated): FC {run.fc} of {run.batch} {t.item.plural}, "
               f"{run.decided} decided, {run.seconds} s")
    if not run.fc == run.batch == run.decided == items:
        return [f"oracle under FSM: FC {run.fc}, {run.decided} decided of a batch of {run.batch} (expected {items}): "
                "the workflow or the manifest keeps a compliant agent from deciding every item"]
    return []


def _manifest_dir() -> Path:
    from sopbench_tools.tasks import MANIFEST_DIR

    return MANIFEST_DIR
