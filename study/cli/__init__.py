"""The ``study`` command: one click group naming its subcommands by strings only.
Layer 10: may import the foundations and layers 1-9 (docs/architecture.md).

The subcommands live in the modules that own them and are imported lazily, so ``study --help``
is fast and a broken optional part does not stop the others. To add a command, add a line to
``COMMANDS``: name -> "module:attribute", where the attribute is a click command or group.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import click

from study.cli.vocabulary import FolderPath, examples

COMMANDS: dict[str, tuple[str, str]] = {
    # name: ("module:attribute", one-line help shown in `study --help`)
    "run": ("study.runner.cli:run", "Run one session (one model, condition and seed)."),
    "run-all": ("study.runner.cli:run_all", "Run a model x condition x seed matrix in parallel, resumably."),
    "status": ("study.runner.status_command:status", "Show every session's status under a sessions folder."),
    "demo": ("study.demo:demo", "Run a small offline matrix on the simulator and print its (SIMULATED) tables."),
    "orders": ("sopbench_tools.cli:orders", "Print or write the seeded account orders."),
    "tools": ("sopbench_tools.cli:tools", "The SOP-Bench tool server (MCP over stdio)."),
    "task": ("study.project.task_cli:task", "List the SOP-Bench tasks; check one's manifest and tools."),
    "fsm": ("study.fsm.cli:fsm", "Validate, draw and enforce FSM workflows."),
    "sim": ("study.sim.cli:sim", "The offline simulator: a scripted model server for the real CLI."),
    "score": ("analysis.cli:score", "Score one session: metrics and escape routes."),
    "tables": ("analysis.cli:tables", "Regenerate the paper's tables from session logs."),
    "figures": ("analysis.cli:figures", "Regenerate the paper's figures from session logs."),
    "predictions": ("analysis.cli:predictions", "Evaluate the preregistered predictions."),
    "power": ("analysis.power.cli:power", "Simulate verdict probabilities and test power by number of seeds."),
    "new": ("study.project.cli:new", "Make a new study project for one SOP-Bench task, ready to freeze."),
    "prereg": ("study.prereg.cli:prereg", "Freeze, verify and amend the preregistration."),
    "audit": ("study.prereg.audit_cli:audit", "Check every session against the manifest it ran under."),
    "doctor": ("study.doctor:doctor", "Check this install: runtime, lock, and one short session of the bundled CLI."),
    "claude": ("study.runtimes.claude_code.command:claude", "Run the Claude Code CLI bundled with claude-agent-sdk."),
    "codex": ("study.runtimes.codex.command:codex", "Run the pinned Codex CLI, with a workflow's FSM wired in."),
    "runtime": ("study.runtimes.cli:runtime", "The agent runtimes (Claude Code, Codex CLI): list them, install Codex CLI."),
    "view": ("study.view.cli:view", "Browse sessions in a local web page (or write it as a static folder)."),
    "export": ("study.export.cli:export", "Write the sessions in other tools' formats (Inspect eval logs)."),
    "tau2": ("study.families.tau2.cli:tau2", "The τ²-bench family (the paper's Analysis 2): build its preregistered studies."),
    "staged": ("study.families.workspace.cli:staged", "The staged protocols (the paper's Analysis 3): build their preregistered studies."),
    "swebench": ("study.families.swebench.cli:swebench", "The SWE-bench family (the paper's Analysis 1): build its preregistered studies."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        target, _help = COMMANDS[name]
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):
                raise click.ClickException(f"'study {name}' is not available: {exc}") from exc
            raise
        return getattr(module, attr)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, epilog=examples(
    "study demo                                   # offline: a small matrix on the simulator (SIMULATED)",
    "study run --condition FSM --seed 2           # one session (needs ANTHROPIC_API_KEY)",
    "study run-all --models haiku-4.5 --seeds 2-9 --jobs 4",
    "study tables --format tex --out tables/      # the paper's tables from the logs",
    "study view                                   # browse what the agents did",
    "study <command> --help                       # each command's options and examples"))
@click.version_option(package_name="sop-fidelity-study")
@click.option("--project", "project", type=FolderPath(file_okay=False), default=None,
              help="The study project to work on (a folder made by `study new`; sets STUDY_ROOT).")
def main(project: Path | None) -> None:
    """A pre-registered study of whether LLM agents stay on procedure over long unattended runs.

    Quick start (offline, no API key): `study demo`. Check the install: `study doctor`. Run a
    session: `study run --condition FSM --seed 2`. Regenerate results: `study tables`,
    `study figures`. Check the freeze: `study prereg verify`. Start your own study on another
    SOP-Bench task: `study new --task dangerous_goods DIR` (docs/tasks.md).
    """
    if project is not None:
        if not (project / "preregistration").is_dir():
            raise click.UsageError(f"--project {project}: no preregistration/ folder there; give a folder made by `study new`")
        os.environ["STUDY_ROOT"] = str(project.resolve())


if __name__ == "__main__":
    main()
