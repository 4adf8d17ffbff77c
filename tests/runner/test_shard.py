"""``run-all --shard K/N``: a deterministic split in which every session is in exactly one shard,
and shard processes sharing one sessions folder never run a session twice."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from study.cli import main
from study.runner.session import SessionSpec, prepare
from study.runner.shard import Shard, ShardError, canonical, parse_shard, select, split
from study.session_io.folders import find_sessions
from study.session_io.reader import log_events

CONDITIONS = ["Plain", "Sys", "Remind", "Plain-loop", "Sys-loop", "Remind-loop", "FSM", "Stop-only", "Gates-only"]


def _matrix(tmp_path, models=("sim:oracle", "sim:blind"), seeds=range(2, 10)):
    return [SessionSpec(condition=c, seed=s, model=m, accounts=3, out_root=tmp_path)
            for m in models for c in CONDITIONS for s in seeds]


def _dirs(specs):
    return [prepare(s).session_dir for s in specs]


def test_parse_shard():
    assert parse_shard("2/8") == Shard(2, 8) and str(parse_shard(" 1 / 1 ")) == "1/1"
    for bad in ("0/4", "5/4", "1/0", "1-4", "", "a/b", "-1/4"):
        with pytest.raises(ShardError):
            parse_shard(bad)


def test_every_session_is_in_exactly_one_shard_and_shards_are_balanced(tmp_path):
    specs = _matrix(tmp_path)
    folder = {id(s): d for s, d in zip(specs, _dirs(specs))}
    everything = sorted(folder.values())
    assert len(everything) == len(set(everything)) == 144
    for n in (1, 2, 3, 5, 7, 8, 144, 150):
        shards = [[folder[id(s)] for s in shard] for shard in split(specs, n)]
        assert sorted(d for shard in shards for d in shard) == everything, n     # each exactly once
        sizes = [len(shard) for shard in shards]
        assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 144, n
    assert select(specs, Shard(3, 8)) == split(specs, 8)[2]


def test_the_split_does_not_depend_on_how_the_matrix_was_spelled(tmp_path):
    specs = _matrix(tmp_path, seeds=range(2, 4))
    shuffled = specs[:]
    random.Random(7).shuffle(shuffled)
    doubled = specs + specs[:5]            # a session named twice is still one session
    shards = [[_dirs(shard) for shard in split(variant, 3)] for variant in (specs, shuffled, doubled)]
    assert shards[0] == shards[1] == shards[2]
    # round robin over the canonical order: each shard gets a mix of conditions and models
    first = split(specs, 3)[0]
    assert {s.model for s in first} == {"sim:oracle", "sim:blind"}
    assert len({s.condition for s in first}) == 6        # 12 of the 36 sessions, every third


RUN = """
import sys
import study.prereg
study.prereg.check_before_run = lambda root=None: "c0ffee" * 10 + "c0ff"
from study.cli import main
main(sys.argv[1:], prog_name="study")
"""


@pytest.mark.e2e
def test_shard_processes_on_one_folder_never_collide_and_status_shows_the_whole_matrix(tmp_path):
    """Shards 1/2 and 2/2 and, by mistake, shard 1/2 a second time run at once over one folder:
    every session runs exactly once (the claim turns the duplicate away) and completes."""
    args = ["run-all", "--models", "sim:oracle", "--conditions", "Plain,Stop-only", "--seeds", "2",
            "--accounts", "1", "--jobs", "1", "--sessions", str(tmp_path)]
    procs = [subprocess.Popen([sys.executable, "-c", RUN, *args, "--shard", shard], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for shard in ("1/2", "2/2", "1/2")]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, out + err
        outputs.append(out)
    ran = [int(re.search(r"^ran (\d+) session", out, re.M).group(1)) if "ran " in out else 0 for out in outputs]
    assert ran[1] == 1 and ran[0] + ran[2] == 1, outputs    # the duplicate of shard 1 ran what the other did not
    sessions = find_sessions(tmp_path)
    assert len(sessions) == 2
    for folder in sessions:
        events = log_events(folder / "events.jsonl")
        assert [e["kind"] for e in events].count("session_start") == 1
        assert events[-1]["kind"] == "session_end" and events[-1]["status"] == "completed"
        assert not list(folder.glob("attempt-*"))
    status = CliRunner().invoke(main, ["status", "--sessions", str(tmp_path), "--json"])
    rows = [json.loads(line) for line in status.stdout.splitlines()]
    assert sorted((r["condition"], r["seed"], r["status"]) for r in rows) == [
        ("Plain", 2, "completed"), ("Stop-only", 2, "completed")]
