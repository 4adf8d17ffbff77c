"""``study staged``: the staged protocols' own commands (the paper's Analysis 3).

``study staged build --protocol autoresearch`` writes a protocol's preregistered study into
``preregistration/studies/<name>/`` (``scaffold.py``; ``--turns`` and ``--seeds`` for a variant
such as the month-end close at 24 turns a period); ``--check`` says whether the files there are the
builder's bytes (exit 1 naming each one that is not). Freezing is ``study prereg freeze``'s.
"""

from __future__ import annotations

import click

from study.cli.vocabulary import examples

from .scaffold import PROTOCOLS


@click.group(epilog=examples("study staged build --protocol autoresearch",
                             "study staged build --protocol month-end-close --name month-end-close-24 --turns 24 --seeds 1",
                             "study run-all --study month-end-close --model sim:oracle --seeds 1-2"))
def staged() -> None:
    """The staged protocols (the paper's Analysis 3): their preregistered studies. docs/staged.md."""


@staged.command(epilog=examples("study staged build --protocol autoresearch",
                                "study staged build --protocol month-end-close --check"))
@click.option("--protocol", type=click.Choice(sorted(PROTOCOLS)), required=True, help="The staged protocol.")
@click.option("--name", default=None, help="The study's name (its folder) [default: the protocol's].")
@click.option("--turns", type=click.IntRange(min=1), default=None,
              help="The turn cap of one context [default: 40 for the month-end close, 200 for AutoResearch].")
@click.option("--seeds", default=None, metavar="S[,S]", help="The preregistered seeds [default: the paper's].")
@click.option("--check", is_flag=True, help="Write nothing: exit 1 naming each file that differs from the builder's.")
def build(protocol: str, name: str | None, turns: int | None, seeds: str | None, check: bool) -> None:
    """Write a staged protocol's preregistered study into preregistration/studies/<name>/."""
    from study.families.study_files import check_seeds, checked_build, study_folder

    from .scaffold import study_files

    def inputs():
        seed_list = check_seeds(seeds)
        study = PROTOCOLS[protocol][1] if name is None else name
        root = study_folder(study, "workspace", ("protocol", protocol))
        return root, lambda: study_files(protocol, study, turns=turns, seeds=seed_list)

    checked_build(inputs, check=check, doc="docs/staged.md")
