"""Every input of a study build is checked before anything is written (issue 50): ``study staged
build`` and ``study tau2 build`` (and any later family's, through ``study.families.study_files``).
A bad input is one line and exit 2, and nothing is written anywhere: not in the project, not
outside it, not in another study's folder. ``--check`` reads only its own study's folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main
from study.families.study_files import BuildInputError, check_seeds, study_folder

HERE = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A project (STUDY_ROOT) holding this checkout's preregistered studies, nested two folders deep
    in ``tmp_path`` so that a path escaping it would land in a folder the test watches."""
    root = tmp_path / "a" / "b" / "project"
    shutil.copytree(HERE / "preregistration" / "studies", root / "preregistration" / "studies")
    monkeypatch.setenv("STUDY_ROOT", str(root))
    monkeypatch.setenv("STUDY_CACHE_DIR", str(tmp_path / "cache"))
    return root


def snapshot(top: Path) -> dict[str, bytes | str]:
    out = {}
    for where, dirs, names in os.walk(top):
        for name in dirs + names:
            path = Path(where) / name
            rel = path.relative_to(top).as_posix()
            if rel.startswith("cache"):
                continue
            out[rel] = path.read_bytes() if path.is_file() and not path.is_symlink() else "folder-or-link"
    return out


def run(*args: str):
    return CliRunner().invoke(main, list(args))


BAD_STAGED = [
    (["--name", "../../../x"], "is not a study name"),
    (["--name", "/tmp/x"], "is not a study name"),
    (["--name", "../x"], "is not a study name"),
    (["--name", "tau2-telecom"], "study tau2-telecom exists and is of the tau2 family, not workspace"),
    (["--name", "autoresearch"], "study autoresearch exists and is a study of protocol 'autoresearch', not 'month-end-close'"),
    (["--name", "a" * 300], "(300 characters) is not a study name"),
    (["--name", "../../..", "--check"], "is not a study name"),
    (["--name", "ab\u202ecd"], "'ab\\u202ecd' is not a study name"),
    (["--name", "main"], "is not a study name"),
    (["--name", "Month"], "is not a study name"),
    (["--name", "-x"], "is not a study name"),
    (["--seeds", "0"], "seed 0 is not a seed"),
    (["--seeds", "-1"], "'-1' is not a seed"),
    (["--seeds", "1,1"], "names seed(s) 1 more than once"),
    (["--seeds", ""], "--seeds names no seed"),
    (["--seeds", "1,,2"], "'' is not a seed"),
    (["--seeds", "\u0661"], "is not a seed"),
    (["--seeds", "99999999999"], "is not a seed (whole numbers from 1 to 1,000,000)"),
]


@pytest.mark.parametrize("args, said", BAD_STAGED, ids=[" ".join(a)[:30] for a, _ in BAD_STAGED])
def test_a_bad_staged_build_input_is_one_line_and_exit_2_and_writes_nothing(project, tmp_path, args, said):
    before = snapshot(tmp_path)
    done = run("staged", "build", "--protocol", "month-end-close", *args)
    assert done.exit_code == 2, done.output
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and said in lines[0], done.output
    assert "Traceback" not in done.output
    assert snapshot(tmp_path) == before


def test_a_good_build_writes_only_its_own_study_and_check_reads_only_it(project, tmp_path):
    done = run("staged", "build", "--protocol", "month-end-close", "--name", "month-end-close-12", "--turns", "12",
               "--seeds", "3, 4")
    assert done.exit_code == 0, done.output
    made = project / "preregistration" / "studies" / "month-end-close-12"
    assert (made / "study.yaml").read_text(encoding="utf-8").count("seeds: [3, 4]") == 1
    assert run("staged", "build", "--protocol", "month-end-close", "--name", "month-end-close-12", "--turns", "12",
               "--seeds", "3,4", "--check").exit_code == 0
    # --check reports a link or special file in its folder, never follows or reads it
    (made / "escape").symlink_to(tmp_path)
    os.mkfifo(made / "pipe")
    done = run("staged", "build", "--protocol", "month-end-close", "--name", "month-end-close-12", "--turns", "12",
               "--seeds", "3,4", "--check")
    assert done.exit_code == 1
    assert "not a regular file: escape" in done.output and "not a regular file: pipe" in done.output
    # rewriting a study with its own builder is allowed; the same name for another protocol is not
    assert run("staged", "build", "--protocol", "autoresearch", "--name", "month-end-close-12").exit_code == 2


def test_a_study_folder_that_is_a_link_or_no_study_is_refused(project, tmp_path):
    studies = project / "preregistration" / "studies"
    outside = tmp_path / "outside"
    outside.mkdir()
    (studies / "linked").symlink_to(outside)
    with pytest.raises(BuildInputError, match="is a link"):
        study_folder("linked", "workspace")
    (studies / "other").mkdir()
    (studies / "other" / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(BuildInputError, match="holds no study.yaml"):
        study_folder("other", "workspace")
    assert study_folder("fresh", "workspace") == studies / "fresh"
    assert not (studies / "fresh").exists()


def test_seeds_of_a_build():
    assert check_seeds(None) is None and check_seeds("1, 2,3") == [1, 2, 3]
    for bad in ("0", "-1", "1,1", "", " ", "x", "1.5", "2-3"):
        with pytest.raises(BuildInputError):
            check_seeds(bad)


def test_tau2_build_checks_its_study_too_and_without_the_extra_exits_2_with_the_install_line(project, tmp_path,
                                                                                              monkeypatch):
    import study.families.tau2.cli as tau2_cli

    studies = project / "preregistration" / "studies"
    shutil.rmtree(studies / "tau2-telecom")
    shutil.copytree(studies / "month-end-close", studies / "tau2-telecom")      # another family's study of that name
    (studies / "tau2-telecom" / "study.yaml").write_text(
        (studies / "month-end-close" / "study.yaml").read_text(encoding="utf-8").replace(
            "study: month-end-close", "study: tau2-telecom"), encoding="utf-8")
    before = snapshot(tmp_path)
    done = run("tau2", "build", "--domain", "telecom")
    if tau2_cli.tau2_problem() is None:
        assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1, done.output
        assert "study tau2-telecom exists and is of the workspace family, not tau2" in done.output
    assert snapshot(tmp_path) == before
    monkeypatch.setattr(tau2_cli, "tau2_problem", lambda: "τ²-bench is not installed (the optional tau2 extra); "
                        "install it with `pip install --require-hashes -r requirements-tau2.lock`")
    done = run("tau2", "build", "--domain", "telecom", "--check")
    assert done.exit_code == 2 and len(done.output.strip().splitlines()) == 1, done.output
    assert "pip install --require-hashes -r requirements-tau2.lock" in done.output
    assert snapshot(tmp_path) == before


def test_the_freeze_refuses_a_study_written_by_hand_with_a_bad_name_or_seeds(tmp_path):
    from study.prereg.freeze import study_problems

    studies = tmp_path / "preregistration" / "studies"
    for name, yaml in [("good", "study: good\nfamily: workspace\nparams:\n  seeds: [1, 2]\n"),
                       ("twice", "study: twice\nfamily: workspace\nparams:\n  seeds: [1, 1]\n"),
                       ("zero", "study: zero\nfamily: workspace\nparams:\n  seeds: [0]\n"),
                       ("empty", "study: empty\nfamily: workspace\nparams:\n  seeds: []\n"),
                       ("ab\u202ecd", "study: x\nfamily: workspace\n"),
                       ("named", "study: other\nfamily: tau2\n")]:
        (studies / name).mkdir(parents=True)
        (studies / name / "study.yaml").write_text(yaml, encoding="utf-8")
    found = study_problems(tmp_path)
    assert len(found) == 5 and not any("/good" in p for p in found), found
    assert any("\\u202e" in p for p in found) and any("names study 'other'" in p for p in found)
