"""Each reading command imports what it uses (issue 35): run in a fresh process on a small corpus,
``study status``, ``audit``, ``score``, ``tables``, ``predictions``, ``figures``, ``prereg
show``/``verify`` and the start of ``study view`` never import the agent runtimes' adapters or the
agent SDKs, and only a command that computes a statistic or draws a figure imports the statistics
stack; a ``study tables``, ``study predictions`` or ``study figures`` answered from the output cache
imports none of it.

The probe runs ``study.cli.main`` with the arguments in a new interpreter and writes
``sorted(sys.modules)`` at exit (``study view`` returns as soon as it listens)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = r"""
import atexit, importlib.abc, importlib.machinery, json, os, sys

def _modules():
    with open(os.environ["PROBE_OUT"], "w") as fh:
        json.dump(sorted(sys.modules), fh)

class _ServeOnce(importlib.abc.MetaPathFinder):
    # study view: the server returns as soon as it listens (what is imported until then is its start)
    def find_spec(self, name, path, target=None):
        if name != "study.view.server":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            module.serve = lambda root, sock: []
        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, _ServeOnce())
atexit.register(_modules)
if os.environ.get("PROBE_SETTLED"):
    # the files of this checkout count as settled at once (another edit of the tree in the last
    # two seconds must not keep the output cache from storing the first run; its rule has tests
    # of its own): what is checked here is what the second run imports
    import analysis.score_cache
    analysis.score_cache.RACY_S = 0.0
from study.cli import main
main(sys.argv[1:], prog_name="study")
"""

#: The agent runtimes' adapters and the agent SDKs: no reading command imports them.
RUNTIMES = ("study.runtimes.claude_code.adapter", "study.runtimes.claude_code.sdk",
            "study.runtimes.claude_code.options", "study.runtimes.codex.adapter",
            "study.runtimes.codex.bridge_server", "claude_agent_sdk", "mcp", "study.runner.session",
            "study.runner.driver", "study.runner.wiring", "study.sim")
#: The statistics stack: imported only by a command that computes a statistic or draws a figure.
STATISTICS = ("scipy", "statsmodels", "pandas", "numpy", "polars", "matplotlib")
#: What computing the tables needs (polars frames, numpy, scipy's tests) and what it never does.
NOT_FOR_TABLES = ("statsmodels", "pandas", "matplotlib")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from analysis.corpus import write_session

    root = tmp_path_factory.mktemp("reading") / "sessions"
    for condition, episodes in (("FSM", ["fc"] * 10), ("Remind-loop", ["fc"] * 6 + ["blind"] * 4)):
        for seed in (2, 3, 4):
            write_session(root / "m" / condition / f"seed-{seed}", model="m", condition=condition, seed=seed,
                          episodes=episodes, accounts=10)
    return root


def imported(tmp_path: Path, *args: str, settled: bool = False) -> set[str]:
    """The modules ``study <args>`` imported, run in a new interpreter."""
    out = tmp_path / f"modules-{len(list(tmp_path.glob('modules-*')))}.json"
    env = {**os.environ, "PROBE_OUT": str(out), "STUDY_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": str(ROOT), **({"PROBE_SETTLED": "1"} if settled else {})}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env, cwd=ROOT,
                          timeout=300)
    assert out.is_file(), done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return set(json.loads(out.read_text()))


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The names of ``names`` (packages included with their submodules) that are in ``modules``."""
    return [n for n in names if any(m == n or m.startswith(n + ".") for m in modules)]


@pytest.mark.parametrize("args", [
    ("--help",),
    ("status", "--sessions", "{root}"),
    ("status", "--sessions", "{root}", "--json"),
    ("audit", "--sessions", "{root}"),
    ("score", "{root}/m/FSM/seed-2"),
    ("prereg", "show"),
    ("prereg", "verify"),
    ("view", "--sessions", "{root}", "--port", "0"),
], ids=lambda args: " ".join(a for a in args if "{" not in a))
def test_a_reading_command_imports_no_runtime_and_no_statistics(tmp_path, corpus, args):
    modules = imported(tmp_path, *(a.format(root=corpus) for a in args))
    assert loaded(modules, RUNTIMES) == []
    assert loaded(modules, STATISTICS) == []


@pytest.mark.parametrize("command", ["tables", "predictions"])
def test_tables_import_the_statistics_only_to_compute_them_and_none_from_the_output_cache(tmp_path, corpus,
                                                                                         command):
    args = (command, "--sessions", str(corpus), "--include-exploratory", "--format", "md", "--format", "csv")
    cold = imported(tmp_path, *args, settled=True)
    assert loaded(cold, RUNTIMES) == [] and loaded(cold, NOT_FOR_TABLES) == []
    assert "analysis.statistics" in cold                 # it computed them
    warm = imported(tmp_path, *args)
    assert loaded(warm, RUNTIMES) == [] and loaded(warm, STATISTICS) == []
    assert loaded(warm, ("analysis.scoring", "analysis.statistics", "analysis.tables", "study.session_io.reader")) == []


def test_figures_import_no_runtime_and_no_matplotlib_from_the_output_cache(tmp_path, corpus):
    args = ("figures", "--sessions", str(corpus), "--out", str(tmp_path / "figures"))
    modules = imported(tmp_path, *args, settled=True)
    assert loaded(modules, RUNTIMES) == [] and loaded(modules, ("statsmodels", "pandas")) == []
    assert "matplotlib" in modules
    warm = imported(tmp_path, *args)
    assert loaded(warm, RUNTIMES) == [] and loaded(warm, STATISTICS) == []
    assert loaded(warm, ("analysis.scoring", "analysis.figures", "study.session_io.reader")) == []
