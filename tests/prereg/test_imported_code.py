"""Finding 4 of issue 10: the code that runs is the code that is checked.

With ``STUDY_ROOT`` pointing at a pristine frozen copy while Python imports an edited copy of the
package (``PYTHONPATH``, as an edited install would be), the run check used to verify the copy
and pass, and the session recorded a clean manifest hash and code version. Now the check hashes
the frozen code as imported and refuses, naming the file; ``code_version`` says ``+dirty``.
Everything runs in subprocesses, so the import location is real, not simulated.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from study.prereg.files import CODE_PACKAGES
from study.prereg.imported import package_dir

EDITED = "study/protocol/limits.py"

CHECK = """
import json, study
from study.prereg import PreregViolation, check_before_run, code_version
try:
    result = {"manifest": check_before_run()}
except PreregViolation as exc:
    result = {"refused": str(exc), "problems": exc.problems}
result.update(code_version=code_version(), study=study.__file__)
print(json.dumps(result))
"""


def installed_copy(dest: Path) -> Path:
    """A copy of the installed packages and their lock file, importable with ``PYTHONPATH=dest``."""
    from study.runtimes.lock import lock_path

    for name in CODE_PACKAGES:
        shutil.copytree(package_dir(name), dest / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(lock_path(), dest / lock_path().name)
    return dest


def in_subprocess(code: str, *, root: Path, pythonpath: Path | None, args=(), cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "STUDY_ROOT": str(root)}
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def checked(root: Path, pythonpath: Path | None, cwd: Path) -> dict:
    import json

    done = in_subprocess(CHECK, root=root, pythonpath=pythonpath, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


@pytest.fixture
def pristine(tmp_path, frozen_project):
    return frozen_project(tmp_path / "pristine")


def test_an_edited_install_is_refused_against_a_pristine_study_root(tmp_path, pristine):
    commit = subprocess.run(["git", "-C", str(pristine), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    clean = installed_copy(tmp_path / "clean-install")
    edited = installed_copy(tmp_path / "edited-install")
    with open(edited / EDITED, "a", encoding="utf-8") as fh:
        fh.write("\n# a change made after the freeze, outside the checked root\n")
    (edited / "study/runner/patch.py").write_text("PATCHED = True\n", encoding="utf-8")

    # The same code as the pristine root, imported from elsewhere: the check holds, the version is clean.
    same = checked(pristine, clean, cwd=tmp_path)
    assert same["study"] == str(clean / "study/__init__.py")
    assert "manifest" in same, same.get("refused")
    assert same["code_version"] == commit

    # The edited copy imported, the pristine root checked: refused, naming the files.
    bypass = checked(pristine, edited, cwd=tmp_path)
    assert bypass["study"] == str(edited / "study/__init__.py")
    assert "refused" in bypass, "the edited install passed the check"
    message = bypass["refused"]
    assert f"changed in the imported code: {EDITED} ({edited / EDITED})" in message
    assert "added in the imported code: study/runner/patch.py" in message
    assert f"study from {edited / 'study'}" in message
    assert f"changed in the imported code: {EDITED}" in bypass["problems"]
    assert bypass["code_version"] == commit + "+dirty"


@pytest.mark.e2e
def test_study_run_refuses_the_edited_install_and_creates_nothing(tmp_path, pristine):
    edited = installed_copy(tmp_path / "edited-install")
    with open(edited / EDITED, "a", encoding="utf-8") as fh:
        fh.write("\n# edited\n")
    out = tmp_path / "sessions"
    run = "import sys; from study.cli import main; sys.argv[0] = 'study'; main()"
    done = in_subprocess(run, root=pristine, pythonpath=edited, cwd=tmp_path,
                         args=["run", "--condition", "FSM", "--seed", "2", "--model", "sim:oracle", "--out", str(out)])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the preregistration check failed, nothing was started" in done.stderr
    assert f"changed in the imported code: {EDITED}" in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()


def test_verify_lists_the_imported_code_it_checked(tmp_path, pristine):
    edited = installed_copy(tmp_path / "edited-install")
    with open(edited / EDITED, "a", encoding="utf-8") as fh:
        fh.write("\n# edited\n")
    verify = "import sys; from study.cli import main; sys.argv[0] = 'study'; main()"
    done = in_subprocess(verify, root=pristine, pythonpath=edited, cwd=tmp_path, args=["prereg", "verify", "--problems-only"])
    assert done.returncode == 1
    assert f"Imported code: analysis from {edited / 'analysis'}" in done.stdout
    assert f"changed  {EDITED}  (imported: {edited / EDITED})" in done.stdout
