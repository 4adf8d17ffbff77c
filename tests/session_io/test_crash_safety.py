"""A crash loses at most the event being written: a log cut anywhere, or a writer killed at any
moment, is accepted by the validator up to its last complete line, and its session loads (as
incomplete) instead of breaking the analysis or the status."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap

from analysis.corpus import SessionWriter
from analysis.loading import load_corpus
from sopbench_tools.orders import order_for_seed
from study.runner.status import scan
from study.session_io.reader import read_log
from study.session_io.vocabulary import SessionStatus

from .conftest import MODEL


def test_a_log_cut_at_any_byte_is_valid_up_to_its_last_complete_line(tmp_path):
    folder = tmp_path / MODEL / "FSM" / "seed-2"
    w = SessionWriter(folder, model=MODEL, condition="FSM", seed=2, order=order_for_seed(2)[:3])
    for account in w.order:
        w.retrieve(account)
        w.say("Nächster Schritt — ünïcode ✓ " * 5)     # multi-byte characters: cuts land inside them
        w.record(account, "No Action")
        w.decide(account, "No Action")
    w.end("completed", 0.5)
    data = (folder / "events.jsonl").read_bytes()
    for cut in random.Random(7).sample(range(1, len(data)), 80):
        (folder / "events.jsonl").write_bytes(data[:cut])
        log = read_log(folder / "events.jsonl")          # strict: raises on any error
        assert len(log.events) == data[:cut].count(b"\n"), cut
        assert len(log.warnings) == (0 if data[:cut].endswith(b"\n") else 1), cut


_WRITER = textwrap.dedent("""
    import sys
    from pathlib import Path
    from study.session_io.meta import runner_identity, write_meta
    from study.session_io.writer import EventLog
    folder = Path(sys.argv[1])
    folder.mkdir(parents=True)
    write_meta(folder, {"model": "sim:m", "condition": "FSM", "seed": 2, "simulated": True, "status": "running",
                        "runner": runner_identity()})
    with EventLog(folder / "events.jsonl") as log:
        log.emit("session_start", schema=2, condition="FSM", seed=2, model="sim:m", simulated=True,
                 manifest_sha256="unchecked", code_version="x", cli_version=None, order=["ACC100000"], limits={})
        n = 0
        while True:
            n += 1
            log.emit("assistant_text", text="é" * (1000 * (n % 97)))   # long lines: a kill can land mid-write
            print(n, flush=True)
""")


def test_a_writer_killed_at_random_moments_leaves_a_log_that_validates_and_loads(tmp_path):
    rng = random.Random(11)
    root = tmp_path / "sessions"
    for attempt in range(4):
        folder = root / "m" / "FSM" / f"seed-{attempt + 2}"
        child = subprocess.Popen([sys.executable, "-c", _WRITER, str(folder)], stdout=subprocess.PIPE, text=True)
        wanted = rng.randint(1, 120)
        for _ in range(wanted):                                   # wait on the writer's reports, not on time
            assert child.stdout.readline(), "the writer stopped reporting"
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        log = read_log(folder / "events.jsonl")                   # strict
        assert len(log.events) >= wanted + 1 and log.end is None
    corpus = load_corpus(root, workers=1, include_exploratory=True)
    assert corpus.sessions.height == 0
    assert [why.reason for _, why in corpus.excluded] == ["incomplete: no session_end (still running, or crashed)"] * 4
    rows = scan(root)
    assert [(r.status, r.problems) for r in rows] == [(SessionStatus.UNFINISHED, [])] * 4
