"""``study swebench``: the SWE-bench family's own commands (the paper's Analysis 1).

``study swebench build`` writes its preregistered studies into ``preregistration/studies/``
(``scaffold.py``): ``swebench-local`` (the package's own instances, offline), ``swebench-easy100``
(drawn offline from the vendored metadata) and ``swebench-hard100`` (its plan and procedure; its
task list only with ``--dataset EXPORT``, a local export of SWE-bench Verified). ``--set`` writes
one; ``--check`` says whether the files there are the builder's bytes (exit 1 naming each one that
is not). Freezing is ``study prereg freeze``'s.
"""

from __future__ import annotations

from pathlib import Path

import click

from study.cli.vocabulary import examples

from .scaffold import SETS


@click.group(epilog=examples("study swebench build", "study swebench build --set hard-100 --dataset swe-bench-verified.jsonl",
                             "study run-all --study swebench-local --model sim:oracle --conditions Plain,FSM --seeds 1-3"))
def swebench() -> None:
    """The SWE-bench family (the paper's Analysis 1): its preregistered studies. docs/swebench.md."""


@swebench.command(epilog=examples("study swebench build", "study swebench build --set easy-100 --check",
                                  "study swebench build --set hard-100 --dataset swe-bench-verified.jsonl"))
@click.option("--set", "task_set", type=click.Choice(list(SETS)), default=None,
              help="The task set whose study to write [default: all three; Hard-100's list only with --dataset].")
@click.option("--dataset", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="A local export of SWE-bench Verified (.jsonl, .json, .parquet): Hard-100's task list is drawn "
                   "from its rows (docs/swebench.md says how to make one).")
@click.option("--check", is_flag=True, help="Write nothing: exit 1 naming each file that differs from the builder's.")
def build(task_set: str | None, dataset: Path | None, check: bool) -> None:
    """Write the SWE-bench studies into preregistration/studies/swebench-*/."""
    from study.families.study_files import write_study
    from study.paths import prereg_dir
    from study.protocol.studies import STUDIES_DIR

    from .scaffold import LIST_FILES, differences, study_files
    from .selection import load_rows

    if dataset is not None and task_set not in (None, "hard-100"):
        raise click.BadParameter("the dataset draws Hard-100's list: give --set hard-100 (or no --set)",
                                 param_hint="--dataset")
    rows = None
    if dataset is not None:
        try:
            rows = load_rows(dataset)
        except (OSError, ValueError, KeyError) as exc:
            raise click.ClickException(f"{dataset}: cannot read the dataset's rows ({exc})") from None
    failed = False
    for name in ([task_set] if task_set else list(SETS)):
        root = prereg_dir() / STUDIES_DIR / SETS[name][0]
        given = rows if name == "hard-100" else None
        try:
            files = study_files(name, given, dataset if given is not None else None)
        except ValueError as exc:
            raise click.ClickException(f"{name}: {exc}") from None
        if check:
            found = differences(root, name, given)
            for line in found:
                click.echo(f"{SETS[name][0]}: {line}")
            failed = failed or bool(found)
            if not found:
                click.echo(f"{root}: up to date")
            continue
        written = write_study(root, files)
        note = "" if name != "hard-100" or given is not None else \
            f" (no {' or '.join(LIST_FILES)}: give --dataset EXPORT to draw Hard-100's list)"
        click.echo(f"wrote {len(written)} files to {root}{note}")
    if check and failed:
        raise SystemExit(1)
    if not check:
        click.echo("freeze them with `study prereg freeze` (docs/swebench.md)")
