"""Every path a command takes names the same place however it is typed (issue 33).

A relative ``--sessions`` folder used to void every session before its first model call: the
agent CLI runs in the session's ``work/`` folder, where the relative path of its launcher named
nothing. Each command now resolves its paths once, at its edge (``study.cli.vocabulary``,
``study.paths.given_path``). This matrix runs each writing command through the real ``study``
command with each form of a path — absolute, ``x``, ``../x``, through a linked folder, and with
spaces and non-ASCII characters — and each reading command on what it wrote, and checks
that everything lands where the path names (small batches on the simulator: ``--accounts 2``).
Every command runs in this process (``CliRunner`` on the ``study`` group) from the working folder,
which is what it resolves its paths against, with the environment a ``study`` process of the
frozen copy would have; what the bug was about still happens between processes: each session's
CLI (and run-all's worker) is a process of its own, the CLI in the session's folder, where a path
left relative names nothing. In-process, a command costs no interpreter start and no imports.

Each form's sessions are made once, when a test of that form first asks for them
(``Forms.made``), and the tests of one form share an ``xdist_group``, so they run on one worker.

``run`` and ``run-all`` (whose sessions' CLIs run in another folder, where the bug was) run in
every form. Every other command resolves its paths in this process with the one click type of
``study.cli.vocabulary`` (``FolderPath``), so the cheap reading commands check that type in every
form; ``demo`` (a session plus tables and figures) and ``new`` run in the two forms where writing
through the OS differs from the plain case (``FULL``: through a linked folder; with spaces and
non-ASCII characters), and the reading commands that cost seconds (``figures``, ``power``:
matplotlib's files) in the second of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from study.runtimes.codex import pin

pytestmark = pytest.mark.e2e

BIN = str(Path(sys.executable).parent)        # where the install put the `study` command
REPO = Path(__file__).resolve().parents[2]
ODD = "mit Leerzeichen und Ümläuten ✓"
#: form -> how it is typed from the working folder (``{base}``: an absolute folder), and where
#: it really is below ``base``
#: (``./x`` is not among them: every command reads a path as a ``pathlib.Path``, for which ``./x`` is
#: ``x``: ``Path("./x") == Path("x")``.)
FORMS = {
    "absolute": ("{base}/abs", "abs"),
    "relative": ("rel", "cwd/rel"),
    "parent": ("../up", "up"),
    "linked": ("linked/inside", "target/inside"),
    "spaces-unicode": (f"{ODD}/sub", f"cwd/{ODD}/sub"),
}
CODEX = pin.problem() is None
#: the forms in which every command runs (the others: run, run-all and the cheap reading commands)
FULL = ("linked", "spaces-unicode")


@dataclass
class Form:
    name: str
    typed: str          # the prefix as typed in the command
    real: Path          # the folder it names

    def arg(self, *parts: str) -> str:
        return "/".join((self.typed, *parts))

    def at(self, *parts: str) -> Path:
        return self.real.joinpath(*parts)


class Forms:
    """A frozen project, a working folder and each form's writing commands, run on first use."""

    def __init__(self, base: Path, project: Path):
        self.base, self.project, self.cwd = base, project, base / "cwd"
        self.cwd.mkdir()
        (base / "target").mkdir()
        (self.cwd / "linked").symlink_to(base / "target", target_is_directory=True)
        self.env = {**os.environ, "STUDY_ROOT": str(project), "STUDY_CACHE_DIR": str(base / "cache"),
                    "PYTHONPATH": os.pathsep.join(filter(None, [str(project), os.environ.get("PYTHONPATH")])),
                    "PATH": BIN + os.pathsep + os.environ.get("PATH", "")}
        self.env.pop("STUDY_SESSIONS", None)
        self.env.setdefault(pin.DIR_ENV, str(pin.install_dir()))    # the checkout's pinned Codex CLI
        self.runs: dict[str, dict[str, subprocess.CompletedProcess]] = {}

    def form(self, name: str) -> Form:
        typed, real = FORMS[name]
        return Form(name, typed.format(base=self.base), self.base / real)

    def study(self, *args: str) -> subprocess.CompletedProcess:
        """A writing command, in this process, from the working folder, in the environment above
        (restored after); an exception that escapes the command is its failure, with its traceback."""
        import traceback

        from click.testing import CliRunner

        from study.cli import main

        with pytest.MonkeyPatch.context() as patch:
            patch.chdir(self.cwd)
            for name in ("STUDY_ROOT", "STUDY_CACHE_DIR", "PYTHONPATH", "PATH", pin.DIR_ENV):
                patch.setenv(name, self.env[name])
            patch.delenv("STUDY_SESSIONS", raising=False)
            done = CliRunner().invoke(main, list(args), prog_name="study")
        stderr = done.stderr
        if done.exception is not None and not isinstance(done.exception, SystemExit):
            stderr += "".join(traceback.format_exception(*done.exc_info))
        return subprocess.CompletedProcess(args, done.exit_code, done.stdout, stderr)

    def read(self, monkeypatch, *args: str) -> subprocess.CompletedProcess:
        """A reading command, in this process, from the working folder."""
        from click.testing import CliRunner

        from study.cli import main

        monkeypatch.chdir(self.cwd)
        env = {k: self.env[k] for k in ("STUDY_ROOT", "STUDY_CACHE_DIR")}
        result = CliRunner().invoke(main, list(args), env=env)
        return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)

    def made(self, name: str) -> tuple[Form, dict[str, subprocess.CompletedProcess]]:
        """Run the writing commands with this form once: run (with --task FILE), run-all (on Codex
        CLI where it is installed), and in the ``FULL`` forms demo and new (with --task FILE); and
        lay out the input files the reading commands take (a plan, an effect model)."""
        form = self.form(name)
        if name not in self.runs:
            form.real.mkdir(parents=True, exist_ok=True)
            tasks = form.at("task files")
            tasks.mkdir()
            shutil.copyfile(self.project / "sopbench_tools/tasks/manifests/referral_abuse_detection_v2.yaml",
                            tasks / "referral_abuse_detection_v2.yaml")
            shutil.copytree(self.project / "sopbench_tools/data/referral_abuse_detection_v2",
                            tasks / "referral_abuse_detection_v2")
            shutil.copyfile(REPO / "tests/fixtures/tasks/tiny_parcels.yaml", tasks / "tiny_parcels.yaml")
            shutil.copytree(REPO / "tests/fixtures/tasks/tiny_parcels", tasks / "tiny_parcels")
            shutil.copyfile(self.project / "preregistration/predictions.yaml", form.at("plan ü.yaml"))
            shutil.copyfile(REPO / "examples/effects/paper_table1.yaml", form.at("effects ü.yaml"))
            runtime = "codex" if CODEX else "claude-code"
            self.runs[name] = {
                "run": self.study("run", "--model", "sim:oracle", "--condition", "Plain", "--seed", "2", "--accounts", "2",
                                  "--task", form.arg("task files", "referral_abuse_detection_v2.yaml"), "--sessions", form.arg("sessions")),
                "run-all": self.study("run-all", "--models", "sim:oracle", "--runtime", runtime, "--conditions", "FSM",
                                      "--seeds", "2", "--accounts", "2", "--jobs", "1", "--sessions", form.arg("sessions")),
            }
            if name in FULL:
                self.runs[name] |= {
                    "demo": self.study("demo", "--conditions", "Plain", "--seeds", "2", "--accounts", "1", "--jobs", "1",
                                       "--runtime", "claude-code", "--sessions", form.arg("demo"),
                                       "--out", form.arg("demo out")),
                    "new": self.study("new", "--task", form.arg("task files", "tiny_parcels.yaml"),
                                      form.arg("new project")),
                }
        return form, self.runs[name]


@pytest.fixture(scope="module")
def forms(tmp_path_factory, make_frozen_copy) -> Forms:
    base = tmp_path_factory.mktemp("path-forms")
    return Forms(base, make_frozen_copy(base / "project"))


def _ok(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"


def _metas(folder: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(folder.rglob("meta.json")) if "attempt-" not in str(p)]


def _grouped(names):
    return [pytest.param(n, marks=pytest.mark.xdist_group(f"path-form-{n}")) for n in names]


@pytest.mark.parametrize("name", _grouped(FORMS))
def test_run_and_run_all_write_completed_sessions_into_the_folder_named(forms, name):
    form, runs = forms.made(name)
    _ok(runs["run"])
    _ok(runs["run-all"])
    metas = _metas(form.at("sessions"))
    assert len(metas) == 2, runs["run"].stdout
    for meta in metas:
        assert meta["status"] == "completed" and not meta["voided"], meta
        assert meta["decisions"] == 2
    assert {m["runtime"] for m in metas} == {"claude-code", "codex" if CODEX else "claude-code"}
    assert {m["condition"] for m in metas} == {"Plain", "FSM"}


@pytest.mark.parametrize("name", _grouped(FULL))
def test_demo_and_new_write_into_the_folders_named(forms, name):
    form, runs = forms.made(name)
    _ok(runs["demo"])
    (meta,) = _metas(form.at("demo"))
    assert meta["status"] == "completed" and not meta["voided"]
    assert (form.at("demo out", "tables", "table1.md")).is_file()
    assert any(form.at("demo out", "figures").glob("*.png"))
    _ok(runs["new"])
    assert (form.at("new project", "preregistration", "task.yaml")).is_file()


#: reading command -> (its arguments, given the form; what it must have written, below the form's folder)
READERS = {
    "status": (lambda f: ["status", "--sessions", f.arg("sessions")], None),
    "score": (lambda f: ["score", f.arg("sessions", "exploratory", "sim-oracle", "Plain", "seed-2-first-2")], None),
    "audit": (lambda f: ["audit", "--sessions", f.arg("sessions")], None),
    "tables": (lambda f: ["tables", "--sessions", f.arg("sessions"), "--include-exploratory", "--plan",
                          f.arg("plan ü.yaml"), "--out", f.arg("tables")], "tables/table1.md"),
    "predictions": (lambda f: ["predictions", "--sessions", f.arg("sessions"), "--include-exploratory",
                               "--out", f.arg("predictions")], "predictions/table6.md"),
    "figures": (lambda f: ["figures", "--sessions", f.arg("sessions"), "--include-exploratory",
                           "--out", f.arg("figures")], "figures/routes_heatmap.png"),
    "view": (lambda f: ["view", "--sessions", f.arg("sessions"), "--bundle", f.arg("bundle")], "bundle/index.html"),
    "power-sessions": (lambda f: ["power", "--sessions", f.arg("sessions"), "--include-exploratory",
                                  "--allow-simulated", "--seeds", "2", "--draws", "100", "--out", f.arg("power")],
                       "power/power_tests.md"),
    "power-effects": (lambda f: ["power", "--effects", f.arg("effects ü.yaml"), "--seeds", "3", "--draws", "100",
                                 "--out", f.arg("power effects")], "power effects/power_tests.md"),
}
try:        # `study export inspect` needs the optional inspect extra
    import inspect_ai  # noqa: F401
except ImportError:
    pass
else:
    READERS["export-inspect"] = (lambda f: ["export", "inspect", "--sessions", f.arg("sessions"),
                                            f.arg("inspect logs")], "inspect logs")


#: the reading commands that cost seconds each (matplotlib's PNG and PDF files), run in one form only: with
#: spaces and non-ASCII characters (their paths are resolved by the type the others check in every form)
COSTLY, COSTLY_FORM = {"figures", "power-sessions", "power-effects"}, "spaces-unicode"


@pytest.mark.parametrize("name,command", [
    pytest.param(name, command, marks=pytest.mark.xdist_group(f"path-form-{name}"), id=f"{name}-{command}")
    for name in FORMS for command in READERS if name == COSTLY_FORM or command not in COSTLY])
def test_each_reading_command_reads_the_folder_named_and_writes_where_told(forms, name, command, monkeypatch):
    form, runs = forms.made(name)
    _ok(runs["run"])
    args, written = READERS[command]
    done = forms.read(monkeypatch, *args(form))
    if command == "audit":      # exploratory sessions only: nothing to audit (exit 4), said of the right folder
        assert done.returncode == 4, done.stderr
        # named as a user types it (study.paths.shell_word): relative below the working folder
        from study.paths import shell_word

        monkeypatch.chdir(forms.cwd)
        assert "2 exploratory" in done.stderr and f"under {shell_word(form.at('sessions'))} is" in done.stderr
        return
    _ok(done)
    if command == "status":
        assert "session(s): 2 completed" in done.stdout
    if command == "score":
        assert "decided 2/2" in done.stdout
    if written is not None:
        assert form.at(written).is_file() or any(form.at(written).glob("*.eval")), done.stdout


@pytest.mark.xdist_group("path-form-spaces-unicode")
def test_a_printed_command_with_spaces_runs_as_printed(forms):
    """`study new`'s next step names the folder as one shell word."""
    form, runs = forms.made("spaces-unicode")
    line = next(line for line in runs["new"].stdout.splitlines() if line.startswith("next:"))
    command = line.split("`")[1]
    assert command.startswith("cd '") and command.endswith("&& study prereg freeze")
    done = subprocess.run(["sh", "-c", command.replace("study prereg freeze", "pwd")], cwd=forms.cwd,
                          capture_output=True, text=True)
    assert Path(done.stdout.strip()) == form.at("new project")
