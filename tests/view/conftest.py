"""Fixtures of the viewer tests: a corpus of real simulator sessions, the `study view` server as a
subprocess, and a headless Chromium driven by Selenium (Debian's /usr/bin/chromium and
/usr/bin/chromedriver; Selenium Manager never runs, so nothing is downloaded)."""

from __future__ import annotations

import contextlib
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Screenshots are also copied here for a person to look at.
SHOTS = Path("/tmp/viewer-shots")


def _run_sim(out: Path, policy: str, condition: str, accounts: int, seed: int = 2) -> Path:
    from study.runner.session import SessionSpec, run_session

    return run_session(SessionSpec(model=f"sim:{policy}", condition=condition, seed=seed, accounts=accounts,
                                   out_root=out, limit_overrides={"spending_usd": 1e6}))


@pytest.fixture(scope="session")
def sim_corpus(tmp_path_factory) -> Path:
    """Real Claude Code sessions against the simulator: the adversarial policy (it interleaves
    accounts) under Plain and FSM, plus the golden drifting sessions of tests/golden/sim_logs.tgz."""
    root = tmp_path_factory.mktemp("viewer") / "sessions"
    root.mkdir()
    _run_sim(root, "adversarial", "Plain", 6)
    _run_sim(root, "adversarial", "FSM", 6)
    with tarfile.open(GOLDEN / "sim_logs.tgz") as tar:
        tar.extractall(root.parent, filter="data")
    shutil.copytree(root.parent / "simlogs" / "exploratory" / "sim-drifting", root / "exploratory" / "sim-drifting")
    return root


@contextlib.contextmanager
def serving(root: Path, tmp_path: Path):
    """`study view --sessions <root> --port 0` running as a subprocess; yields (address, process)."""
    errors = tmp_path / "server.stderr"
    with open(errors, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "study.cli", "view", "--sessions", str(root), "--port", "0"],
                                stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        line = proc.stdout.readline()     # the address, printed once the socket listens
        match = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert match, (line, errors.read_text())
        yield match.group(), proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture
def server(sim_corpus, tmp_path):
    """`study view --sessions <corpus> --port 0` running; yields its address."""
    with serving(sim_corpus, tmp_path) as (address, _proc):
        yield address


@pytest.fixture
def golden_corpus(tmp_path) -> Path:
    """The golden drifting sessions of tests/golden/sim_logs.tgz (12 small simulator sessions,
    no transcripts), a fresh copy per test: tests damage them."""
    with tarfile.open(GOLDEN / "sim_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "simlogs"


def chrome_options(user_data: Path):
    from selenium.webdriver.chrome.options import Options

    options = Options()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--window-size=1300,1000",
                 f"--user-data-dir={user_data}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})     # driver.get_log("browser"): uncaught errors
    return options


@pytest.fixture
def browser(tmp_path, monkeypatch):
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        pytest.skip("Debian's chromium and chromium-driver are not installed (.ci/run installs them)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")     # the driver's path is given; Selenium Manager must not reach out either
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)),
                              options=chrome_options(tmp_path / "chrome-profile"))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def screenshot(driver, tmp_path: Path, name: str) -> Path:
    """Save a full-page screenshot under the test's folder and copy it to /tmp/viewer-shots/."""
    height = driver.execute_script("return Math.min(document.body.scrollHeight, 4000)")
    driver.set_window_size(1300, max(1000, height + 40))
    path = tmp_path / f"{name}.png"
    driver.save_screenshot(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, SHOTS / path.name)
    return path
