"""``study tau2``: the τ²-bench family's own commands.

``study tau2 build --domain telecom`` writes the preregistered study of a domain
(``preregistration/studies/tau2-<domain>/``, ``scaffold.py``); ``--check`` says whether the files
there are the builder's bytes (exit 1 naming each file that is not). Freezing is ``study prereg
freeze``'s. ``study tau2 replay RESULTS.json --domain telecom`` replays real conversations (a
``tau2 run`` results file) through a domain's FSM (``replay.py``). Without the ``tau2`` extra
every command says in one line how to install it.
"""

from __future__ import annotations

from pathlib import Path

import click

from study.cli.vocabulary import examples

from .availability import tau2_problem


def _need_tau2() -> None:
    """Without the extra, one line with the install line and exit 2 (as ``study run`` says it)."""
    problem = tau2_problem()
    if problem is not None:
        from study.cli.vocabulary import UsageError

        raise UsageError(problem)


@click.group(epilog=examples("study tau2 build --domain telecom", "study tau2 build --domain telecom --check",
                             "study tau2 replay results.json --domain telecom",
                             "study run-all --study tau2-telecom --model sim:oracle --seeds 1-12"))
def tau2() -> None:
    """The τ²-bench family (the paper's Analysis 2): its preregistered studies, replays. docs/tau2.md."""


@tau2.command(epilog=examples("study tau2 build --domain telecom", "study tau2 build --domain airline --check"))
@click.option("--domain", type=click.Choice(["telecom", "airline", "retail"]), required=True,
              help="The τ²-bench domain (its test split, v1.0.1's data).")
@click.option("--check", is_flag=True, help="Write nothing: exit 1 naming each file that differs from the builder's.")
def build(domain: str, check: bool) -> None:
    """Write the preregistered study of a τ²-bench domain into preregistration/studies/tau2-<domain>/."""
    _need_tau2()
    from study.families.study_files import checked_build, study_folder

    from .scaffold import study_files

    def inputs():
        return study_folder(f"tau2-{domain}", "tau2", ("domain", domain)), lambda: study_files(domain)

    checked_build(inputs, check=check, doc="docs/tau2.md")


@tau2.command(epilog=examples("study tau2 replay results.json --domain telecom",
                              "study tau2 replay results.json --domain telecom --task 3 --all-actions",
                              "study tau2 replay results.json --domain telecom --workflow my-telecom.yaml --format json"))
@click.argument("results", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--domain", type=click.Choice(["telecom", "airline", "retail"]), required=True,
              help="The τ²-bench domain the conversations are of (its workflow, unless --workflow).")
@click.option("--workflow", "workflow_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="A workflow file to judge them by instead of the domain's (e.g. a draft, before freezing it).")
@click.option("--task", default=None, metavar="ID", help="Only the conversation of this task id (or 1-based position).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: a report a researcher reads; json: every action, transfer and the ledger, for a script.")
@click.option("--all-actions", is_flag=True, help="Text: list every action, not only denials and transfers.")
@click.option("--no-controller", is_flag=True,
              help="Telecom: do not emulate the controller's fresh tests (judge by the rules alone).")
def replay(results: Path, domain: str, workflow_file: Path | None, task: str | None, fmt: str, all_actions: bool,
           no_controller: bool) -> None:
    """Replay the conversations of a tau2 results file (what `tau2 run` writes) through a domain's FSM.

    Every action of the agent's, in order, is judged by the FSM's gate (allowed, or denied with the
    rule and its reason), then recorded with what followed it in the real conversation; reported:
    each denial and transfer (with the faults the evidence then showed open), the ledger at the
    end, and the totals. docs/tau2.md, "Replaying real conversations".
    """
    _need_tau2()
    import json

    from .replay import ReplayError, as_text, replay_file

    try:
        result = replay_file(results, domain, workflow_file=workflow_file, task=task, controller=not no_controller)
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    if fmt == "json":
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        click.echo(as_text(result, all_actions=all_actions))
