"""Fixtures shared by the test folders."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

#: What pyproject's addopts (``-n auto --dist loadgroup``) need: pytest-xdist, in the ``test`` extra
#: and the lock. Without it the suite still runs, in one process, and a warning says so.
NO_XDIST = ("pytest-xdist is not installed (or -p no:xdist): the tests run in one process, not on every core "
            "(pip install -e '.[test]', or the lock, brings it)")


def pytest_addoption(parser, pluginmanager):
    """Without pytest-xdist (or with ``-p no:xdist``), accept and ignore the options pyproject's
    addopts give it, so ``python -m pytest -q`` runs the suite serially instead of failing."""
    if pluginmanager.has_plugin("xdist"):
        return
    group = parser.getgroup("xdist-absent", "pytest-xdist is not installed: these options are ignored")
    # pytest reserves lowercase short options to itself and plugins; xdist declares -n this way too
    group._addoption("-n", "--numprocesses", dest="numprocesses", default=None, help="(needs pytest-xdist)")
    group.addoption("--dist", dest="dist", default="no", help="(needs pytest-xdist)")


def pytest_configure(config):
    if config.pluginmanager.has_plugin("xdist"):
        return
    config.addinivalue_line("markers", "xdist_group(name): run on one pytest-xdist worker (no effect without it)")
    if config.getoption("numprocesses") not in (None, "0"):
        config.issue_config_time_warning(pytest.PytestConfigWarning(NO_XDIST), stacklevel=2)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """Under ``--dist loadgroup``, put the tests that share a fixture made once per worker on one
    worker: those marked ``xdist_group`` (a fixture of session scope shared across modules), and,
    unmarked, those of one module that use a module-scoped fixture (group ``module:<file>``, so
    that the fixture is made once, not once on each worker).

    pytest-xdist tells its scheduler a test's group by appending ``@<group>`` to the test's node
    id, which it does by setting ``item._nodeid``; pytest 9.2 builds node ids from a structured
    ``item._id`` instead, so the suffix is lost and every group is silently spread over the
    workers (pytest-dev/pytest-xdist issue 1386, fix pending in PR 1388). On a worker, set the id
    with the suffix the way that fix does; where the suffix is already there (an older pytest or a
    fixed xdist), nothing changes."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        if not names and _uses_a_module_fixture(item):
            names = {f"module:{item.nodeid.split('::')[0]}"}
        if not names:
            continue
        suffix = "@" + "_".join(sorted(names))
        if item.nodeid.endswith(suffix):
            continue
        try:
            from _pytest.nodeid import NodeId
        except ImportError:   # pytest < 9.2 (the xdist_group marks are xdist's; a module group is ours)
            item._nodeid = item.nodeid + suffix
        else:
            item._id = NodeId.parse(item.nodeid + suffix)
        if not item.nodeid.endswith(suffix):  # pragma: no cover - a pytest naming tests yet otherwise
            raise pytest.UsageError(f"cannot put {item.nodeid} in its xdist_group: this pytest names tests otherwise")


def _uses_a_module_fixture(item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(defs and defs[-1].scope == "module" for defs in info.name2fixturedefs.values())


def run_git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "-c", "user.email=test@example.org", "-c", "user.name=test", *args],
        capture_output=True, text=True, check=True,
    )
    return done.stdout


def init_committed(root: Path, message: str = "plan") -> Path:
    """Make ``root`` a git checkout with everything in it committed."""
    run_git(root, "init", "-q")
    run_git(root, "add", ".")
    run_git(root, "commit", "-q", "-m", message)
    return root


def freeze_committed(root: Path) -> Path:
    """Freeze the preregistration of the checkout ``root`` and commit the freeze."""
    from study.prereg import freeze

    freeze(root)
    run_git(root, "add", "preregistration")
    run_git(root, "commit", "-q", "-m", "freeze")
    return root


@pytest.fixture
def outcomes_as_written(monkeypatch):
    """Family sessions' outcomes taken as written (logs written by hand have no evidence):
    tests/verdict_helpers.py."""
    from .verdict_helpers import outcomes_as_written as trust

    trust(monkeypatch)


@pytest.fixture
def git():
    """``git(root, *args)`` runs git in a test tree (with a test identity) and returns stdout."""
    return run_git


@pytest.fixture
def freeze_tree():
    """``freeze_tree(root)``: freeze a committed test checkout and commit the freeze."""
    return freeze_committed


def frozen_copy(dest: Path) -> Path:
    """A self-contained frozen checkout at ``dest`` (see ``frozen_project``); also used by
    benchmarks/slurm_single_node.sh."""
    from study.runtimes.lock import lock_path
    from study.paths import project_root
    from study.prereg.files import CODE_PACKAGES, RECORD_FILES, STAMPS_DIR
    from study.prereg.imported import package_dir
    from study.prereg.runtime import write_runtime

    source = project_root()
    records = {Path(rel).name for rel in RECORD_FILES} | {Path(STAMPS_DIR).name}   # the freeze's records: a new freeze here
    shutil.copytree(source / "preregistration", dest / "preregistration",
                    ignore=shutil.ignore_patterns("__pycache__", *records))
    for name in CODE_PACKAGES:
        # with the bytecode (copytree keeps each source's mtime, so a .pyc stays valid exactly while its
        # source is unchanged): every study process the tests start in the copy would otherwise compile
        # the package from source again (PYTHONDONTWRITEBYTECODE keeps it from caching that)
        shutil.copytree(package_dir(name), dest / name)
    shutil.copyfile(lock_path(), dest / lock_path().name)
    write_runtime(dest)
    return freeze_committed(init_committed(dest))


@pytest.fixture
def frozen_project(monkeypatch):
    """``frozen_project(dest)``: a self-contained checkout at ``dest``, frozen there (the freeze
    committed): this checkout's preregistration/, a snapshot of the installed packages (``study``,
    ``analysis``, ``sopbench_tools``) with the lock file beside them, and
    ``preregistration/runtime.json`` set to the installed runtime. For the rest of the test,
    ``PYTHONPATH`` puts the snapshot first, so a ``study`` subprocess imports the very code that was
    frozen (edits made meanwhile in the shared working tree do not reach it). Point the ``study``
    command at it with ``STUDY_ROOT=dest``; the real tree's freeze is never touched."""
    import os

    def make(dest: Path) -> Path:
        monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(dest), os.environ.get("PYTHONPATH")])))
        return frozen_copy(dest)

    return make


@pytest.fixture(scope="session")
def make_frozen_copy():
    """``frozen_copy`` itself, for fixtures of a wider scope than a test (``make_frozen_copy(dest)``
    makes the checkout; the commands run in it need ``PYTHONPATH=dest`` as ``frozen_project`` sets)."""
    return frozen_copy


def _tree_digests(root: Path) -> dict[str, str]:
    """sha256 of every file under ``root`` but git's own and Python's bytecode caches."""
    import hashlib

    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and not {".git", "__pycache__"} & set(p.relative_to(root).parts)}


@pytest.fixture(scope="session")
def _shared_frozen_checkout(tmp_path_factory):
    root = frozen_copy(tmp_path_factory.mktemp("shared-frozen") / "project")
    before = _tree_digests(root)
    yield root
    after = _tree_digests(root)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"a test changed the shared frozen checkout {root} (use frozen_project instead): {changed}"


@pytest.fixture
def shared_frozen_project(_shared_frozen_checkout, monkeypatch) -> Path:
    """The checkout ``frozen_project`` makes, made once per pytest worker and shared by the tests
    that only read it (``study`` commands pointed at it with ``STUDY_ROOT`` that write elsewhere,
    or are refused): ``PYTHONPATH`` puts its snapshot of the packages first for the rest of the
    test, as ``frozen_project`` does. A test that changes anything in it is an error at the end of
    the run; one that needs to change it uses ``frozen_project``."""
    import os

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(_shared_frozen_checkout),
                                                                   os.environ.get("PYTHONPATH")])))
    return _shared_frozen_checkout


class SharedSimSessions:
    """Finished real Claude Code sessions against the simulator, each run once per pytest worker
    and handed to every test that asks for the same one (see ``shared_sim_session``)."""

    def __init__(self, root: Path):
        self.root = root
        self.made: dict[tuple, Path] = {}
        self.digests: dict[Path, dict[str, str]] = {}

    def __call__(self, policy: str, condition: str, accounts: int | None = 4, seed: int = 1, *,
                 study: str | None = None, runtime: str | None = None) -> Path:
        key = (policy, condition, accounts, seed, study, runtime)
        if key not in self.made:
            from study.runner.session import SessionSpec, run_session

            folder = run_session(SessionSpec(model=f"sim:{policy}", condition=condition, seed=seed, accounts=accounts,
                                             study=study, runtime=runtime,
                                             out_root=self.root / (f"{policy}-{condition}-{accounts}-{seed}"
                                                                   + "".join(f"-{x}" for x in (study, runtime) if x))))
            self.made[key] = folder
            self.digests[folder] = _digests(folder)
        return self.made[key]

    def changed(self) -> list[str]:
        """The shared sessions some test changed (a file added, removed or edited)."""
        return [str(folder) for folder, digests in self.digests.items() if _digests(folder) != digests]


def _digests(folder: Path) -> dict[str, str]:
    import hashlib

    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


class ProbeListener:
    """A TCP port on 127.0.0.1 that records every connection made to it: the port the simulator's
    adversarial workspace agents try to connect to (``STUDY_SIM_PROBE_PORT``, set for the whole
    worker), so a test can see that no agent command reached it."""

    def __init__(self):
        import socket
        import threading

        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.connections: list[tuple[str, int]] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, peer = self.server.accept()
            except OSError:
                return
            self.connections.append(peer)
            conn.close()


@pytest.fixture(scope="session")
def probe_listener():
    """The worker's ``ProbeListener``; ``STUDY_SIM_PROBE_PORT`` names it while the worker runs."""
    import os

    listener = ProbeListener()
    before = os.environ.get("STUDY_SIM_PROBE_PORT")
    os.environ["STUDY_SIM_PROBE_PORT"] = str(listener.port)
    yield listener
    listener.server.close()
    if before is None:
        os.environ.pop("STUDY_SIM_PROBE_PORT", None)
    else:
        os.environ["STUDY_SIM_PROBE_PORT"] = before


@pytest.fixture(scope="session")
def shared_sim_session(tmp_path_factory, probe_listener):
    """``shared_sim_session(policy, condition, accounts=4, seed=1, study=None, runtime=None)``: the
    folder of a finished session of ``sim:<policy>`` under ``condition`` on the first ``accounts``
    of ``seed``'s order (of another study's: ``study``, its ``seed``-th unit; on ``runtime``)
    (``study.runner.session.run_session``, the real CLI), made once per worker in a
    tmp_path_factory folder and shared by every test that asks for the same one. Tests only read
    it: one that damages or edits a session copies it first; at the end of the run a shared
    session that any test changed is an error. Under pytest-xdist session fixtures are per
    worker: the tests sharing one session carry the same mark,
    ``xdist_group("sim-<policy>-<condition>-<accounts>-<seed>")``, so they run on one worker."""
    sessions = SharedSimSessions(tmp_path_factory.mktemp("shared-sim-sessions"))
    yield sessions
    changed = sessions.changed()
    assert not changed, f"a test changed these shared sessions (copy one before changing it): {changed}"

