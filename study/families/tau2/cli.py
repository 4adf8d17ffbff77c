"""``study tau2``: the τ²-bench family's own commands.

``study tau2 build --domain telecom`` writes the preregistered study of a domain
(``preregistration/studies/tau2-<domain>/``, ``scaffold.py``); ``--check`` says whether the files
there are the builder's bytes (exit 1 naming each file that is not). Freezing is ``study prereg
freeze``'s. Without the ``tau2`` extra every command says in one line how to install it.
"""

from __future__ import annotations

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
                             "study run-all --study tau2-telecom --model sim:oracle --seeds 1-12"))
def tau2() -> None:
    """The τ²-bench family (the paper's Analysis 2): its preregistered studies. docs/tau2.md."""


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
