"""Every column of Tables 1, 2, 6, 7 and 8 is defined in the notes under its table (the
"Columns:" note), in every format that carries notes (Markdown, LaTeX, the terminal), on the
golden corpora and with --plain-headers; CSV carries the data only."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from analysis.loading import load_corpus
from analysis.plain_wording import PLAIN_REMARK_HEADER, plain_headers
from analysis.render import render
from analysis.table_notes import define
from analysis.tables import Analysis, build_tables
from study.protocol.plan import load_plan
from study.paths import prereg_dir

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


@pytest.fixture(scope="module", params=[("corpus_logs.tgz", "sessions", False), ("sim_logs.tgz", "simlogs", True)],
                ids=["corpus", "sim"])
def tables(request, tmp_path_factory):
    archive, inner, exploratory = request.param
    root = tmp_path_factory.mktemp("golden")
    with tarfile.open(GOLDEN / archive) as tar:
        tar.extractall(root, filter="data")
    corpus = load_corpus(root / inner, allow_simulated=True, include_exploratory=exploratory)
    return build_tables(Analysis.build(corpus, load_plan(None), prereg_dir()))


def _columns_note(table) -> str:
    notes = [n for n in table.notes if n.startswith("Columns: ")]
    assert len(notes) == 1, table.notes
    return notes[0]


def test_every_column_of_every_table_is_defined_in_its_notes(tables):
    assert {t.number for t in tables} == {1, 2, 6, 7, 8}
    for table in tables:
        note = _columns_note(table)
        for header in [table.group, *(c.header for c in table.columns)]:
            assert define(header), f"Table {table.number}: column {header!r} has no definition"
            assert f"{header}: {define(header)}" in note, f"Table {table.number}: {header!r} is not in the note"


def test_the_definitions_reach_every_format_that_has_notes(tables):
    for table in tables:
        md, tex = render(table, "md"), render(table, "tex")
        assert "Columns: " in md and "Columns: " in tex
        assert _columns_note(table) in md
        assert "Columns" not in render(table, "csv")      # CSV is the data alone


def test_the_remark_column_is_defined_under_either_header(tables):
    table8 = next(t for t in tables if t.number == 8)
    assert "First token remark (median decided): the accounts decided when the agent's own text first" in _columns_note(table8)
    plain = next(t for t in plain_headers(tables) if t.number == 8)
    assert f"{PLAIN_REMARK_HEADER}: the accounts decided" in _columns_note(plain)
    assert "First token remark (median decided):" not in _columns_note(plain)


def test_an_unknown_column_has_no_definition():
    assert define("FC 101-150") == "FC of the accounts at positions 101 to 150 of the seed's order"
    assert define("No such column") is None
