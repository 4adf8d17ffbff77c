"""``study new --task T DIR``: make a study project for one task (see ``study.project.new``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from study.cli.vocabulary import FolderPath, TaskOrFile, examples
from study.paths import shell_word


@click.command("new", epilog=examples(
    "study new --task dangerous_goods ~/dg-study",
    "study new --task my_tasks/my_task.yaml ~/my-study     # your own task folder and manifest",
    "cd ~/dg-study && study prereg freeze && study run --model sim:oracle --condition FSM --seed 2 --accounts 5",
))
@click.option("--task", "task", type=TaskOrFile(), required=True, help="A vendored SOP-Bench task's name, or your own task manifest (a .yaml file).")
@click.argument("folder", type=FolderPath(file_okay=False))
def new(task: str, folder: Path) -> None:
    """Make FOLDER a new study project for one task: its own preregistration (conditions, limits,
    models, texts for the task, generated workflows, seeded orders, a predictions template and a
    plan.md to fill in), ready for `study prereg freeze`. Every command run inside FOLDER (or with
    `study --project FOLDER`) works on it. See docs/tasks.md."""
    from .new import NewProjectError, new_project

    try:
        made = new_project(task, folder)
    except NewProjectError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"made {folder}: a study of {made['task']} ({made['items']} items), "
               f"{made['files']} preregistration files, a snapshot of {made['code_files']} frozen code files, one git commit.")
    click.echo(f"next: edit {folder}/preregistration/plan.md and predictions.yaml, commit, then "
               f"`cd {shell_word(folder)} && study prereg freeze`")
