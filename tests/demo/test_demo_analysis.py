"""The demo tabulates exactly the sessions it ran (``study.demo.demo_analysis``): over a folder
holding only those sessions, its corpus is the one ``study tables --sessions DIR
--include-exploratory`` builds, column for column (turn ends included, which only the log shows)."""

from __future__ import annotations

import tarfile
from pathlib import Path

from analysis.loading import load_corpus
from study.demo import demo_analysis
from study.session_io import find_sessions

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def test_the_demo_corpus_equals_the_analysis_corpus_of_the_same_sessions(tmp_path):
    with tarfile.open(GOLDEN / "sim_logs.tgz") as tar:
        tar.extractall(tmp_path, filter="data")
    (root,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    demo = demo_analysis(root, find_sessions(root)).corpus
    analysis = load_corpus(root, allow_simulated=True, include_exploratory=True)
    assert demo.sessions.sort("path").equals(analysis.sessions.sort("path"))
    assert demo.accounts.sort(["path", "decision_seq"]).equals(analysis.accounts.sort(["path", "decision_seq"]))
    assert demo.sessions["turn_ends"].sum() == analysis.sessions["turn_ends"].sum() > 0
