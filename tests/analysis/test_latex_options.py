"""LaTeX options of `study tables`/`study predictions`: the defaults write today's bytes (the
golden tables); ``--numbering none`` leaves the numbers to LaTeX; ``--latex-style typeset`` sets
comparisons as math, a label column only as wide as it needs and a wider ``\\tabcolsep``, and
still fits an article's text width. ``--plain-headers`` renames and defines Table 8's "First
token remark" without touching the default."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from analysis.plain_wording import PLAIN_REMARK_HEADER, plain_headers
from analysis.render import LatexOptions, render, tex_math_escape
from study.cli import main

from .test_latex import _compile, needs_pdflatex, paper_tables  # noqa: F401  (the fixture)

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
TYPESET = LatexOptions(numbering="none", style="typeset")


def test_comparisons_become_math_symbols():
    assert tex_math_escape(">= 6/8, <= 10, < 80%, > 0 & a_b") == (
        r"$\geq$ 6/\allowbreak{}8, $\leq$ 10, $<$ 80\%, $>$ 0 \& a\_b")


def test_the_defaults_are_todays_bytes(paper_tables):  # noqa: F811
    for t in paper_tables:
        assert render(t, "tex", LatexOptions()) == render(t, "tex") == render(t, "tex", LatexOptions("paper", "default"))


def test_numbering_none_drops_only_the_counter(paper_tables):  # noqa: F811
    for t in paper_tables:
        paper, none = render(t, "tex"), render(t, "tex", LatexOptions(numbering="none"))
        assert "\\setcounter{table}" not in none
        assert [l for l in paper.splitlines() if not l.startswith("\\setcounter{table}")] == none.splitlines()


def test_typeset_style(paper_tables):  # noqa: F811
    tex = {t.number: render(t, "tex", TYPESET) for t in paper_tables}
    assert "$\\geq$ 6/\\allowbreak{}8 seeds" in tex[6] and "\\textgreater{}=" not in tex[6]
    # condition labels at their natural width, the spare width spread between the columns
    assert "\\begin{tabular*}{\\linewidth}{@{\\extracolsep{\\fill}}lllrrrrrr@{}}" in tex[2]
    assert re.search(r"\\begin\{tabular\*\}\{\\linewidth\}\{@\{\\extracolsep\{\\fill\}\}lr+@\{\}\}", tex[8])
    # prose keeps its wrapping columns
    assert "\\begin{tabularx}" in tex[6] and "\\begin{tabularx}" in tex[7]
    assert "\\setlength{\\tabcolsep}{4pt}" in tex[2] and "\\setlength{\\tabcolsep}{4pt}" in tex[6]


@needs_pdflatex
def test_typeset_tables_compile_number_in_order_and_fit(paper_tables, tmp_path):  # noqa: F811
    body = "\n\\clearpage\n".join(render(t, "tex", TYPESET) for t in paper_tables)
    log, aux, text = _compile(tmp_path, body)
    assert "Overfull \\hbox" not in log, log[log.find("Overfull"):][:600]
    assert "too wide" not in log
    numbers = dict(re.findall(r"\\newlabel\{tab:table(\d)\}\{\{(\d)\}", aux))
    assert numbers == {"1": "1", "2": "2", "6": "3", "7": "4", "8": "5"}
    if text:
        assert "≥" in text


def test_plain_headers_rename_and_define_the_remark_column_only_when_asked(paper_tables):  # noqa: F811
    table8 = paper_tables[-1]
    assert [c.header for c in table8.columns][-1] == "First token remark (median decided)"
    (renamed,) = plain_headers([table8])
    assert renamed.columns[-1].header == PLAIN_REMARK_HEADER and renamed.columns[-1].csv == table8.columns[-1].csv
    assert renamed.notes[1].startswith("First remark on tokens, context or budget (the paper's \"First token remark\")")
    assert "not the FSM's one-time transition tokens" in renamed.notes[1]
    assert render(renamed, "csv") == render(table8, "csv")
    assert [t.notes for t in plain_headers(paper_tables[:-1])] == [t.notes for t in paper_tables[:-1]]


def test_cli_options_reach_the_files(tmp_path):
    with tarfile.open(GOLDEN / "sim_logs.tgz") as archive:
        archive.extractall(tmp_path, filter="data")
    sessions = str(tmp_path / "simlogs")
    runner = CliRunner()
    default = runner.invoke(main, ["tables", "--sessions", sessions, "--include-exploratory", "--format", "tex"])
    assert default.exit_code == 0, default.output
    expected = "\n".join((GOLDEN / "expected" / "sim_tables" / f"table{n}.tex").read_text() for n in (1, 2, 6, 7, 8))
    assert default.stdout == expected
    typeset = runner.invoke(main, ["tables", "--sessions", sessions, "--include-exploratory", "--format", "tex",
                                   "--numbering", "none", "--latex-style", "typeset", "--plain-headers"])
    assert typeset.exit_code == 0, typeset.output
    assert "\\setcounter{table}" not in typeset.stdout and "\\begin{tabular*}" in typeset.stdout
    assert "First remark on tokens, context or budget" in typeset.stdout
    bad = runner.invoke(main, ["predictions", "--sessions", sessions, "--numbering", "roman"])
    assert bad.exit_code == 2
