"""Refactors keep behaviour: the same session logs give byte-identical tables.

``tests/golden/`` holds two sets of session logs frozen on 2026-11-30, before the consolidation
of issues 10-12, and the tables and prediction tables the code of that day made from them:

- ``corpus_logs.tgz``: a generated corpus (``analysis.corpus.generate_corpus``, 60 accounts per
  session; Haiku 4.5 on all nine conditions and seeds 2-9 with one voided session, Sonnet 4.6 on
  three conditions and seeds 13-15);
- ``sim_logs.tgz``: real Claude Code sessions against the simulator (``study demo --accounts 8``:
  the drifting policy under five conditions, seeds 2 and 3), ``events.jsonl`` and ``meta.json``.

The expected outputs in ``expected/`` were written by ``study tables``/``study predictions`` of
commit 7ba680c and regenerated once, deliberately, for issue 14's rendering (commit 9c2d75e: labels,
headers, notes, LaTeX layout, the grader and turn-end columns, ``exclusions.md``/``.csv``; every
number of the earlier CSV columns unchanged). Regenerate them only for a change that is meant to
alter a table, and say so in the commit message.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from study.cli import main

GOLDEN = Path(__file__).resolve().parent.parent / "golden"

CASES = [
    # (archive, folder inside it, command, extra options, expected folder, formats)
    ("corpus_logs.tgz", "sessions", "tables", [], "corpus_tables", ("md", "csv", "tex")),
    ("corpus_logs.tgz", "sessions", "predictions", [], "corpus_predictions", ("md", "csv")),
    ("sim_logs.tgz", "simlogs", "tables", ["--include-exploratory"], "sim_tables", ("md", "csv", "tex")),
    ("sim_logs.tgz", "simlogs", "predictions", ["--include-exploratory"], "sim_predictions", ("md",)),
]


@pytest.mark.parametrize("archive,inner,command,extra,expected,formats", CASES,
                         ids=[c[4] for c in CASES])
def test_same_logs_give_byte_identical_tables(tmp_path, archive, inner, command, extra, expected, formats):
    with tarfile.open(GOLDEN / archive) as tar:
        tar.extractall(tmp_path, filter="data")
    out = tmp_path / "out"
    args = [command, "--sessions", str(tmp_path / inner), *extra, "--out", str(out)]
    for fmt in formats:
        args += ["--format", fmt]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    want = {p.name: p.read_bytes() for p in sorted((GOLDEN / "expected" / expected).iterdir())}
    got = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    assert sorted(got) == sorted(want)
    for name in want:
        assert got[name] == want[name], f"{expected}/{name} differs from the golden output"
