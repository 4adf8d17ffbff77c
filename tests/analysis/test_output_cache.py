"""The output cache (``analysis.output_cache``): a rerun of ``study tables`` or ``study predictions``
whose inputs have not changed prints the same bytes without computing anything; a changed log,
plan, preregistration file, option or code file computes again; a file written in the same
moment as the tables is never trusted. The same proofs as the score cache's
(tests/analysis/test_score_cache.py)."""

from __future__ import annotations

import json
import pickle
import shutil
import tarfile
import time
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

import analysis.cli as cli
import analysis.score_cache as score_cache
from analysis.corpus import write_session
from study.cli import main
from study.paths import project_root

from .test_score_cache import _same_size_other_action

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


@pytest.fixture
def computed(monkeypatch):
    """How many times a command computed its analysis (a cached answer computes none)."""
    calls: list[Path | None] = []
    real = cli._analysis

    def counting(sessions, *args, **kwargs):
        calls.append(sessions)
        return real(sessions, *args, **kwargs)

    monkeypatch.setattr(cli, "_analysis", counting)
    return calls


@pytest.fixture
def settled(monkeypatch):
    """Files settle after 0.05 s instead of 2 s (the tests wait that long instead)."""
    monkeypatch.setattr(score_cache, "RACY_S", 0.05)

    def wait() -> None:
        time.sleep(0.2)
    return wait


def _study(tmp_path: Path, *args: str, cache: str = "cache") -> tuple[str, str, dict[str, bytes]]:
    """``study <args>`` with the cache in ``tmp_path/cache``: stdout, stderr, and the files written
    under ``tmp_path/out`` when ``--out`` is among the arguments (then removed)."""
    result = CliRunner().invoke(main, list(args), env={"STUDY_CACHE_DIR": str(tmp_path / cache)})
    assert result.exit_code == 0, (result.output, result.stderr, result.exception)
    out = tmp_path / "out"
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir())} if out.is_dir() else {}
    shutil.rmtree(out, ignore_errors=True)
    return result.stdout, result.stderr, files


def _golden(tmp_path: Path) -> Path:
    with tarfile.open(GOLDEN / "corpus_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    return tmp_path / "sessions"


@pytest.mark.parametrize("command,expected,formats", [
    ("tables", "corpus_tables", ("md", "csv", "tex")), ("predictions", "corpus_predictions", ("md", "csv"))])
def test_golden_outputs_are_byte_identical_from_the_cache_without_computing(tmp_path, computed, command,
                                                                             expected, formats):
    root = _golden(tmp_path)
    args = [command, "--sessions", str(root), "--out", str(tmp_path / "out")]
    for fmt in formats:
        args += ["--format", fmt]
    want = {p.name: p.read_bytes() for p in sorted((GOLDEN / "expected" / expected).iterdir())}
    cold = _study(tmp_path, *args)
    assert cold[2] == want and len(computed) == 1
    warm = _study(tmp_path, *args)
    assert warm == cold and len(computed) == 1                    # from the cache: nothing computed
    printed = _study(tmp_path, *args[:3], *args[5:])              # without --out: the same texts, printed
    order = sorted((name for name in want if name.startswith("table")),
                   key=lambda name: (int(name.split(".")[0][5:]), formats.index(name.split(".")[1])))
    assert printed[0] == "\n".join(want[name].decode("utf-8") for name in order) and len(computed) == 1
    shutil.rmtree(tmp_path / "cache")
    assert _study(tmp_path, *args) == cold and len(computed) == 2      # deleted: computed again, same bytes


def _corpus(root: Path) -> Path:
    for condition, episodes in (("FSM", ["fc"] * 10), ("Remind-loop", ["fc"] * 6 + ["blind"] * 4)):
        for seed in (2, 3):
            write_session(root / "m" / condition / f"seed-{seed}", model="m", condition=condition, seed=seed,
                          episodes=episodes, accounts=10, noise=False)
    return root


def test_a_changed_log_is_computed_again_even_with_its_size_and_mtime_kept(tmp_path, computed, settled):
    root = _corpus(tmp_path / "sessions")
    settled()
    args = ("tables", "--sessions", str(root), "--allow-simulated", "--format", "csv")
    before = _study(tmp_path, *args)
    assert _study(tmp_path, *args) == before and len(computed) == 1
    log = root / "m" / "FSM" / "seed-2" / "events.jsonl"
    st = log.stat()
    _same_size_other_action(log)
    assert (log.stat().st_size, log.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    after = _study(tmp_path, *args)
    assert len(computed) == 2 and after != before
    assert after == _study(tmp_path, *args, cache="elsewhere")          # what a computation without it gives
    settled()
    assert _study(tmp_path, *args) == after and len(computed) == 3     # and that is cached in turn


def test_a_new_or_removed_session_is_computed_again(tmp_path, computed, settled):
    root = _corpus(tmp_path / "sessions")
    settled()
    args = ("tables", "--sessions", str(root), "--allow-simulated")
    before = _study(tmp_path, *args)
    write_session(root / "m" / "FSM" / "seed-4", model="m", condition="FSM", seed=4, episodes=["fc"] * 10,
                  accounts=10, noise=False)
    assert _study(tmp_path, *args) != before and len(computed) == 2
    shutil.rmtree(root / "m" / "FSM" / "seed-4")
    assert _study(tmp_path, *args) == before and len(computed) == 3


def test_a_changed_plan_or_option_is_computed_again(tmp_path, computed, settled):
    root = _corpus(tmp_path / "sessions")
    plan = tmp_path / "plan.yaml"
    plan.write_text((project_root() / "preregistration" / "predictions.yaml").read_text(encoding="utf-8"),
                    encoding="utf-8")
    settled()
    args = ("predictions", "--sessions", str(root), "--allow-simulated", "--plan", str(plan))
    before = _study(tmp_path, *args)
    assert _study(tmp_path, *args) == before and len(computed) == 1
    text = plan.read_text(encoding="utf-8")
    plan.write_text(text.replace('text: "Prompting is not enough', 'text: "Changed: prompting is not enough', 1),
                    encoding="utf-8")
    settled()
    changed = _study(tmp_path, *args)
    assert len(computed) == 2 and changed != before
    assert _study(tmp_path, *args) == changed and len(computed) == 2
    for option in (["--format", "csv"], ["--include-exploratory"], ["--numbering", "none"]):
        other = _study(tmp_path, *args, *option)
        n = len(computed)
        assert _study(tmp_path, *args, *option) == other and len(computed) == n     # each cached on its own
    assert _study(tmp_path, *args) == changed and len(computed) == 5


@pytest.fixture
def own_project(tmp_path, monkeypatch):
    """A project whose preregistration folder is a copy of this one's (STUDY_ROOT)."""
    project = tmp_path / "project"
    shutil.copytree(project_root() / "preregistration", project / "preregistration")
    monkeypatch.setenv("STUDY_ROOT", str(project))
    return project


def test_a_new_amendment_or_a_changed_preregistration_file_is_computed_again(tmp_path, computed, settled,
                                                                             own_project):
    root = _corpus(tmp_path / "sessions")
    settled()
    args = ("tables", "--sessions", str(root), "--allow-simulated")
    before = _study(tmp_path, *args)
    amendment = {"n": 1, "time": "2026-12-01T00:00:00Z", "reason": "a test amendment", "files": []}
    (own_project / "preregistration" / "amendments.jsonl").write_text(json.dumps(amendment) + "\n", encoding="utf-8")
    settled()
    amended = _study(tmp_path, *args)
    assert len(computed) == 2 and amended != before
    assert _study(tmp_path, *args) == amended and len(computed) == 2
    conditions = own_project / "preregistration" / "conditions.yaml"
    conditions.write_text(conditions.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    settled()
    assert _study(tmp_path, *args) == amended and len(computed) == 3       # same bytes, but computed again


def test_a_file_changed_as_the_tables_were_made_is_never_trusted(tmp_path, computed, monkeypatch):
    """A file of the entry changed less than RACY_S before the command began: no entry is written,
    so the next run computes again (a write in the same clock tick would leave its proof as it was)."""
    root = _corpus(tmp_path / "sessions")
    plan = tmp_path / "plan.yaml"
    plan.write_text((project_root() / "preregistration" / "predictions.yaml").read_text(encoding="utf-8"),
                    encoding="utf-8")
    monkeypatch.setattr(score_cache, "RACY_S", 60.0)       # the plan was "just written"
    args = ("predictions", "--sessions", str(root), "--allow-simulated", "--plan", str(plan))
    first = _study(tmp_path, *args)
    assert _study(tmp_path, *args) == first and len(computed) == 2
    assert not list((tmp_path / "cache" / "tables").glob("*.entry"))


class _LongAgo:
    """``time`` for the score cache's hashing: every file looks changed in the same tick as it is
    hashed, so no proof is kept (what happens to a log written as it is hashed)."""

    @staticmethod
    def time_ns() -> int:
        return 0


def test_a_log_hashed_as_it_was_written_keeps_no_proof_and_is_hashed_again(tmp_path, computed, settled,
                                                                          monkeypatch):
    """A log without a proof in the entry is hashed at each lookup, so a change that keeps its size,
    its mtime and (in the same tick) its ctime is still seen."""
    root = _corpus(tmp_path / "sessions")
    settled()
    monkeypatch.setattr(score_cache, "time", _LongAgo)
    args = ("tables", "--sessions", str(root), "--allow-simulated", "--format", "csv")
    first = _study(tmp_path, *args)
    [entry_file] = (tmp_path / "cache" / "tables").glob("*.entry")
    entry = pickle.loads(entry_file.read_bytes())
    assert all(k.log_proof is None and k.meta_proof is None for k in entry.sessions)
    assert _study(tmp_path, *args) == first and len(computed) == 1      # hashed again, the same: cached
    _same_size_other_action(root / "m" / "FSM" / "seed-2" / "events.jsonl")
    assert _study(tmp_path, *args) != first and len(computed) == 2


def test_a_changed_source_file_of_the_entry_is_computed_again(tmp_path, computed, settled):
    """The entry names the source of every module of the project loaded when it was made (the
    scorer, the statistics, the tables, this command); a file whose sha256 is not the entry's
    is a miss."""
    root = _corpus(tmp_path / "sessions")
    settled()
    args = ("tables", "--sessions", str(root), "--allow-simulated", "--format", "csv")
    first = _study(tmp_path, *args)
    [entry_file] = (tmp_path / "cache" / "tables").glob("*.entry")
    entry = pickle.loads(entry_file.read_bytes())
    names = {Path(path).relative_to(project_root()).as_posix() for path, _sha, _proof in entry.files
             if Path(path).is_relative_to(project_root())}
    assert {"analysis/statistics.py", "analysis/tables.py", "analysis/scoring.py", "analysis/cli.py",
            "study/session_io/reader.py", "preregistration/predictions.yaml",
            "preregistration/conditions.yaml"} <= names
    i = next(i for i, f in enumerate(entry.files) if f[0].endswith("analysis/statistics.py"))
    files = list(entry.files)
    files[i] = (files[i][0], "0" * 64, None)     # as if statistics.py had been another file then
    entry_file.write_bytes(pickle.dumps(replace(entry, files=tuple(files))))
    assert _study(tmp_path, *args) == first and len(computed) == 2


def test_a_broken_entry_is_a_miss_never_an_error(tmp_path, computed, settled):
    root = _corpus(tmp_path / "sessions")
    settled()
    args = ("tables", "--sessions", str(root), "--allow-simulated")
    first = _study(tmp_path, *args)
    for entry in (tmp_path / "cache" / "tables").glob("*.entry"):
        entry.write_bytes(b"not a pickle")
    assert _study(tmp_path, *args) == first and len(computed) == 2


def _figures(tmp_path: Path, root: Path, *more: str, cache: str = "cache") -> tuple[str, dict[str, bytes]]:
    """``study figures`` into ``tmp_path/figures``: what it printed and the bytes of each file there
    (which stay: a warm run writes them again over the same names)."""
    out = tmp_path / "figures"
    result = CliRunner().invoke(main, ["figures", "--sessions", str(root), "--allow-simulated", "--out", str(out),
                                       *more], env={"STUDY_CACHE_DIR": str(tmp_path / cache)})
    assert result.exit_code == 0, (result.output, result.exception)
    return result.stdout, {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_figures_are_written_again_byte_identical_from_the_cache_and_drawn_again_for_a_changed_log(
        tmp_path, computed, settled):
    root = _corpus(tmp_path / "sessions")
    settled()
    printed, cold = _figures(tmp_path, root)
    assert sorted(cold) == sorted(f"{n}.{x}" for n in ("figure1", "fc_windows", "routes_heatmap")
                                  for x in ("png", "pdf")) and len(computed) == 1
    shutil.rmtree(tmp_path / "figures")                            # deleted: written again from the cache
    assert _figures(tmp_path, root) == (printed, cold) and len(computed) == 1
    assert _figures(tmp_path, root, cache="elsewhere")[1] == cold and len(computed) == 2   # drawn: the same bytes
    log = root / "m" / "FSM" / "seed-2" / "events.jsonl"
    _same_size_other_action(log)                                   # another log: FC and so the figures change
    changed = _figures(tmp_path, root)[1]
    assert len(computed) == 3 and changed["figure1.png"] != cold["figure1.png"]
