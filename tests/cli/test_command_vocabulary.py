"""One vocabulary across every ``study`` command (issue 13), checked on EVERY command and
subcommand of ``study.cli.COMMANDS`` (groups walked recursively), so a new command that breaks it
fails here:

- its ``--help`` ends with an Examples block, with at least one example of the command itself;
- every (visible) option has help text;
- the sessions folder is ``--sessions DIR`` wherever a command reads or writes sessions, and no
  other visible option or argument names a sessions folder;
- the output folder is ``--out DIR`` wherever a command writes output files;
- an unknown option and every bad input below is a usage error: exit code 2, one line, no
  traceback, nothing created.
"""

from __future__ import annotations

import re

import click
import pytest
from click.testing import CliRunner

from study.cli import COMMANDS, main

#: Commands that read or write sessions (the shared vocabulary of coordination/DESIGN).
READS_SESSIONS = {"run", "run-all", "status", "audit", "tables", "figures", "predictions", "view", "demo"}
#: Commands that write output files into a folder.
WRITES_OUTPUT = {"tables", "figures", "predictions", "power", "demo"}


def _walk() -> list[tuple[str, click.Command]]:
    found = []

    def visit(path: str, command: click.Command) -> None:
        found.append((path, command))
        if isinstance(command, click.Group):
            for name, sub in sorted(command.commands.items()):
                visit(f"{path} {name}", sub)

    ctx = click.Context(main)
    for name in sorted(COMMANDS):
        try:
            command = main.get_command(ctx, name)
        except Exception as exc:  # a module another helper is editing must not hide the others
            found.append((name, exc))
            continue
        visit(name, command)
    return found


COMMAND_TREE = _walk()
PATHS = [path for path, _ in COMMAND_TREE]


def command(path: str) -> click.Command:
    found = dict(COMMAND_TREE)[path]
    if isinstance(found, Exception):
        pytest.fail(f"study {path} cannot be loaded: {found!r}")
    return found


def visible_options(cmd: click.Command) -> list[click.Option]:
    return [p for p in cmd.params if isinstance(p, click.Option) and not p.hidden]


def test_the_walk_finds_every_command_and_the_subcommands():
    assert set(COMMANDS) <= set(PATHS)
    for sub in ("sim policies", "sim serve", "prereg verify", "prereg amend", "fsm validate", "tools serve"):
        assert sub in PATHS


@pytest.mark.parametrize("path", PATHS)
def test_help_ends_with_examples_of_the_command(path):
    cmd = command(path)
    result = CliRunner().invoke(main, [*path.split(), "--help"])
    assert result.exit_code == 0, result.output
    epilog = cmd.epilog or ""
    assert epilog.startswith("\b\nExamples:\n"), f"study {path}: no Examples epilog (cli_vocabulary.examples)"
    lines = [line.strip() for line in epilog.splitlines()[2:] if line.strip()]
    assert any(line.startswith(f"study {path}") for line in lines), f"study {path}: no example of itself: {lines}"
    assert "Examples:" in result.output and result.output.rstrip().endswith(lines[-1])


@pytest.mark.parametrize("path", PATHS)
def test_every_option_has_help(path):
    missing = [p.opts[0] for p in visible_options(command(path)) if not (p.help or "").strip()]
    assert not missing, f"study {path}: options without help: {missing}"


@pytest.mark.parametrize("path", PATHS)
def test_the_sessions_folder_is_named_sessions(path):
    cmd = command(path)
    top = path.split()[0]
    options = {p.opts[0]: p for p in visible_options(cmd)}
    if top in READS_SESSIONS and path == top:
        assert "--sessions" in options, f"study {path} reads sessions but has no --sessions DIR"
        sessions = options["--sessions"]
        assert sessions.name == "sessions" and isinstance(sessions.type, click.Path)
        assert not sessions.type.file_okay, f"study {path}: --sessions must be a folder"
    others = [name for name in options if "sessions" in name and name != "--sessions"]
    assert not others, f"study {path}: {others} name a sessions folder; call it --sessions"
    for name, option in options.items():
        if name != "--sessions" and isinstance(option.type, click.Path):
            assert not re.search(r"(?<!-)\bsessions folder", (option.help or "").lower()), (
                f"study {path}: {name} is the sessions folder; call it --sessions")
    folders = [p.name for p in cmd.params if isinstance(p, click.Argument) and not getattr(p, "hidden", False)
               and top in READS_SESSIONS and p.name in ("folder", "directory", "sessions", "root")]
    assert not folders, f"study {path}: the sessions folder is positional ({folders}); use --sessions DIR"


@pytest.mark.parametrize("path", PATHS)
def test_the_output_folder_is_named_out(path):
    cmd = command(path)
    options = {p.opts[0]: p for p in visible_options(cmd)}
    odd = sorted(set(options) & {"--output", "--out-dir", "--output-dir", "--outdir", "--dest", "--tables-dir"})
    assert not odd, f"study {path}: the output folder is --out DIR, not {odd}"
    if path in WRITES_OUTPUT:
        assert "--out" in options, f"study {path} writes output files but has no --out DIR"
        assert isinstance(options["--out"].type, click.Path) and not options["--out"].type.file_okay


#: `study claude` and `study codex` pass options they do not know to their CLI (codex: by exec, which would
#: replace the test's own process)
@pytest.mark.parametrize("path", [p for p in PATHS if p not in ("claude", "codex")])
def test_an_unknown_option_is_a_usage_error(path):
    result = CliRunner().invoke(main, [*path.split(), "--no-such-option"])
    assert result.exit_code == 2, f"study {path}: exit {result.exit_code}: {result.output}"
    assert "No such option" in result.output and "--no-such-option" in result.output
    assert "Traceback" not in result.output


#: Bad inputs of each command: (arguments, text the one-line error must contain).
BAD_INPUTS = [
    (["run", "--condition", "Nope", "--seed", "2", "--model", "sim:oracle", "--accounts", "2"], "Nope"),
    (["run", "--condition", "FSM", "--seed", "2", "--model", "nope-model", "--accounts", "2"], "nope-model"),
    (["run-all", "--seeds", "x", "--models", "sim:oracle", "--accounts", "2"], "--seeds"),
    (["run-all", "--seeds", "2", "--conditions", "Nope", "--models", "sim:oracle", "--accounts", "2"], "Nope"),
    (["demo", "--seeds", "0"], "--seeds"),
    (["demo", "--conditions", "Nope"], "Nope"),
    (["demo", "--policy", "genius"], "genius"),
    (["demo", "--accounts", "0"], "--accounts"),
    (["status", "--sessions", "{missing}"], "missing"),
    (["audit", "--sessions", "{missing}"], "missing"),
    (["tables", "--sessions", "{missing}"], "missing"),
    (["figures", "--sessions", "{missing}"], "missing"),
    (["predictions", "--sessions", "{missing}"], "missing"),
    (["score", "{missing}"], "missing"),
    (["orders"], "--seed"),
    (["sim", "serve", "--policy", "genius"], "genius"),
    (["fsm", "show", "{missing}"], "missing"),
    (["tools", "serve", "--accounts", "0"], "--accounts"),
    (["prereg", "amend", "preregistration/limits.yaml"], "--reason"),
]


@pytest.mark.parametrize("args,expected", [
    pytest.param(args, expected, marks=pytest.mark.xdist_group("cli-bad-inputs"), id=" ".join(args))
    for args, expected in BAD_INPUTS])
def test_bad_inputs_are_usage_errors_with_one_line_and_nothing_created(tmp_path, shared_frozen_project, monkeypatch,
                                                                       args, expected):
    """Each bad input of the table: exit code 2, an ``Error:`` line naming the problem, no traceback,
    and nothing created (the sessions folder given by --sessions stays absent). Run against a frozen
    copy of the project (made once per worker: the cases share an xdist_group), so the
    preregistration check before a run passes and only the input is judged, from its folder, in
    this process (``CliRunner``: the exit code and the output are the command's; an exception that
    escapes it is a traceback to a user). Every problem of a case is listed at once."""
    if args[0] not in COMMANDS:
        pytest.skip(f"study {args[0]} is not a command of this tree")
    root = shared_frozen_project
    monkeypatch.setenv("STUDY_ROOT", str(root))
    monkeypatch.chdir(root)
    missing = tmp_path / "missing"
    argv = [a.replace("{missing}", str(missing)) for a in args]
    if args[0] in ("run", "run-all", "demo"):
        argv += ["--sessions", str(missing)]
    done = CliRunner().invoke(main, argv, prog_name="study")
    text = done.output
    problems = []
    if done.exit_code != 2:
        problems.append(f"exit {done.exit_code}")
    if "Traceback" in text or not (done.exception is None or isinstance(done.exception, SystemExit)):
        problems.append(f"a traceback ({done.exception!r})")
    if "Error:" not in text or expected.replace("{missing}", str(missing)) not in text:
        problems.append(f"no error naming {expected!r}")
    if missing.exists():
        problems.append(f"created {missing}")
    assert not problems, f"study {' '.join(args)}: {', '.join(problems)}: {text.strip()[-300:]}"
