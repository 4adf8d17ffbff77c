"""The licences travel with the package (PEP 639): the root LICENSE (MIT, the code), the
vendored SOP-Bench data's LICENSE (CC BY-NC 4.0) and the vendored τ²-bench task data's (MIT,
Sierra Research) are declared in pyproject.toml and carried by
the built wheel and sdist, whose metadata states the licence expression.

The build uses the backend pyproject.toml requires (setuptools >= 77, the first to read PEP 639
expressions). The build backend is not in the lock (docs/dependencies.md); when the installed
setuptools is older, the test installs one into a throw-away venv, as `pip install -e .` does
with build isolation, and is skipped only when no index is reachable for that."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
EXPRESSION = "MIT AND CC-BY-NC-4.0"
#: the root LICENSE, the SOP-Bench repository's LICENSE over the data, and the LICENSE.md
#: (distribution conditions) that eight vendored SOP-Bench task folders carry, then τ²-bench's
#: (in the order pyproject.toml's license-files names them, as the metadata lists them)
LICENCES = ["LICENSE", "sopbench_tools/data/LICENSE", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "sopbench_tools" / "data" / "sopbench").glob("*/LICENSE.md")),
    "study/families/tau2/data/LICENSE"]


def test_pyproject_declares_the_licences_the_pep_639_way():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == EXPRESSION
    globs = project["project"]["license-files"]
    assert sorted(str(p.relative_to(ROOT)) for g in globs for p in ROOT.glob(g)) == sorted(LICENCES)
    assert not any(c.startswith("License ::") for c in project["project"].get("classifiers", []))
    assert any(Version(r.split(">=")[1]) >= Version("77") for r in project["build-system"]["requires"]
               if r.startswith("setuptools>="))
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert "Attribution-NonCommercial 4.0 International" in (ROOT / LICENCES[1]).read_text(encoding="utf-8")
    assert (ROOT / LICENCES[-1]).read_text(encoding="utf-8").startswith("MIT License\n\nCopyright (c) 2025 Sierra Research")


def _builder(tmp: Path) -> str:
    """A Python whose setuptools reads PEP 639 metadata."""
    try:
        import setuptools
        if Version(setuptools.__version__) >= Version("77.0.3"):
            return sys.executable
    except ImportError:
        pass
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    python = str(venv / "bin" / "python")
    got = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                          "setuptools>=77.0.3"], capture_output=True, text=True, timeout=300)
    if got.returncode != 0:
        pytest.skip(f"needs setuptools >= 77 and no index is reachable to install it: {got.stderr[-300:]}")
    return python


def _source_copy(tmp: Path) -> Path:
    """The checkout's files (tracked or new, not ignored), so the build leaves the checkout clean."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    src = tmp / "src"
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    return src


@pytest.mark.timeout(900)
def test_built_wheel_and_sdist_carry_both_licence_files(tmp_path):
    python, src, dist = _builder(tmp_path), _source_copy(tmp_path), tmp_path / "dist"
    dist.mkdir()
    # build_meta rewrites sys.argv while it builds: read the arguments first
    script = ("import sys; from pathlib import Path; from setuptools import build_meta as b; "
              "out, names = sys.argv[1], Path(sys.argv[2]); "
              "names.write_text(' '.join([b.build_sdist(out), b.build_wheel(out)]))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}   # the copy is built, nothing else
    built = subprocess.run([python, "-c", script, str(dist), str(tmp_path / "names")], cwd=src, env=env,
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    sdist_name, wheel_name = (tmp_path / "names").read_text().split()

    with zipfile.ZipFile(dist / wheel_name) as wheel:
        names = set(wheel.namelist())
        info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        metadata = wheel.read(f"{info}/METADATA").decode()
        for licence in LICENCES:
            assert wheel.read(f"{info}/licenses/{licence}") == (ROOT / licence).read_bytes()
    assert f"License-Expression: {EXPRESSION}" in metadata.splitlines()
    assert [l for l in metadata.splitlines() if l.startswith("License-File:")] == [
        f"License-File: {licence}" for licence in LICENCES]

    with tarfile.open(dist / sdist_name) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        for licence in LICENCES:
            assert sdist.extractfile(f"{top}/{licence}").read() == (ROOT / licence).read_bytes()
        assert f"License-Expression: {EXPRESSION}" in sdist.extractfile(f"{top}/PKG-INFO").read().decode()
