"""The LaTeX tables compile in a plain ``article`` and fit its text width; every special
character prints as itself. The compile tests need ``pdflatex`` (with booktabs and tabularx) and
are skipped without it; CI installs it (``.ci/run``)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analysis.corpus import corpus_conditions, generate_corpus
from analysis.loading import load_corpus
from study.protocol.plan import load_plan
from analysis.render import Cell, Column, Table, render, tex_escape
from analysis.tables import Analysis, build_tables

from .conftest import HAIKU, MAIN_SEEDS, SONNET

#: Every character LaTeX treats specially, those the default OT1 encoding prints as other glyphs,
#: and the non-ASCII ones the plan and the tables use.
EVERYTHING = 'a\\b & 50% $5 #1 x_y {z} ~ ^ <80% >=95% a|b "q" `t` --x ± ≥ ≤ × − → – — … path/to/x'

needs_pdflatex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")


def test_every_special_character_is_escaped():
    assert tex_escape(EVERYTHING) == (
        r"a\textbackslash{}b \& 50\% \$5 \#1 x\_y \{z\} \textasciitilde{} \^{} \textless{}80\% "
        r"\textgreater{}=95\% a\textbar{}b {\ttfamily\char34}q{\ttfamily\char34} \textasciigrave{}t\textasciigrave{} "
        r"-{}-x $\pm$ $\geq$ $\leq$ $\times$ $-$ $\rightarrow$ -- --- \ldots{} path/\allowbreak{}to/\allowbreak{}x")


def _compile(tmp_path: Path, body: str, name: str = "doc") -> tuple[str, str, str]:
    """Compile ``body`` in a minimal article; returns the log, the aux file and the text of the PDF."""
    tex = tmp_path / f"{name}.tex"
    tex.write_text("\\documentclass{article}\n\\usepackage{booktabs,tabularx}\n\\begin{document}\n"
                   + body + "\n\\end{document}\n", encoding="utf-8")
    for _ in range(2):   # twice: references
        result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
                                cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout[-3000:]
    log = (tmp_path / f"{name}.log").read_text(encoding="latin-1")
    text = ""
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", "-layout", f"{name}.pdf", "-"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60).stdout
    return log, (tmp_path / f"{name}.aux").read_text(encoding="latin-1"), text


@needs_pdflatex
def test_the_special_characters_print_as_themselves(tmp_path):
    t = Table(1, EVERYTHING, "Model", [Column("Name", wrap=True), Column("Value")])
    t.rows.append((EVERYTHING, [Cell(EVERYTHING), Cell("1.0")]))
    t.notes = [EVERYTHING]
    log, _aux, text = _compile(tmp_path, render(t, "tex"))
    assert "Overfull" not in log
    shots = Path("/tmp/latex-shots")   # for a person to look at (\_ is drawn as a rule: no text)
    shots.mkdir(exist_ok=True)
    if shutil.which("pdftoppm"):
        subprocess.run(["pdftoppm", "-r", "150", "-png", "-singlefile", "doc.pdf", str(shots / "escaping")],
                       cwd=tmp_path, check=True, timeout=60)
    if text:
        flat = re.sub(r"\s+", "", text)
        for probe in ("<80%", ">=95%", "a|b", "{z}", "$5", "#1", "50%", "path/to/x", "--x"):
            assert probe in flat, probe
        assert "¡" not in text and "¿" not in text


@pytest.fixture(scope="module", params=[200, 20], ids=["200-accounts", "20-accounts"])
def paper_tables(request, tmp_path_factory) -> list[Table]:
    """Every table of a full-size corpus: all nine conditions of Haiku 4.5 on seeds 2-9, Sonnet 4.6
    and the catch-up on 13-15, a voided session; at 200 and at 20 accounts."""
    accounts = request.param
    root = tmp_path_factory.mktemp(f"c{accounts}") / "sessions"
    generate_corpus(root, models={HAIKU: list(corpus_conditions())}, seeds=MAIN_SEEDS, accounts=accounts,
                    voided={(HAIKU, "Remind", 5)})
    generate_corpus(root, models={SONNET: ["Plain", "Remind-loop", "FSM"], HAIKU: ["FSM"]}, seeds=[13, 14, 15],
                    accounts=accounts, rng_seed=1)
    return build_tables(Analysis.build(load_corpus(root), load_plan(), tmp_path_factory.mktemp("prereg")))


def test_every_table_has_its_papers_number_label_caption_above_and_notes_below(paper_tables):
    assert [t.number for t in paper_tables] == [1, 2, 6, 7, 8]
    for t in paper_tables:
        tex = render(t, "tex")
        assert tex.count(f"\\setcounter{{table}}{{{t.number - 1}}}") == 1
        assert tex.index("\\caption{") < tex.index(f"\\label{{tab:table{t.number}}}") < tex.index("\\begin{tabularx}")
        assert tex.index("\\end{tabularx}") < tex.index("Amendments: none recorded.")


@needs_pdflatex
def test_every_table_compiles_and_fits_the_text_width_of_an_article(paper_tables, tmp_path):
    body = "\n\\clearpage\n".join(render(t, "tex") for t in paper_tables)
    log, aux, text = _compile(tmp_path, body)
    assert "Overfull \\hbox" not in log, log[log.find("Overfull"):][:600]
    assert "too wide" not in log            # tabularx: X columns too narrow
    # LaTeX numbers them as the paper does, and \ref finds each label
    numbers = dict(re.findall(r"\\newlabel\{tab:table(\d)\}\{\{(\d)\}", aux))
    assert numbers == {str(n): str(n) for n in (1, 2, 6, 7, 8)}
    if text:
        for n in (1, 2, 6, 7, 8):
            assert f"Table {n}:" in text
        assert "second best underlined" in text


@needs_pdflatex
def test_a_table_as_wide_as_the_page_measures_at_most_the_text_width(paper_tables, tmp_path):
    """Measure the widest table's box directly: \\wd of the tabularx is \\linewidth."""
    t = paper_tables[0]
    tex = render(t, "tex")
    inner = tex[tex.index("\\begin{tabularx}"):tex.index("\\end{tabularx}") + len("\\end{tabularx}")]
    size = re.search(r"\\(footnotesize|scriptsize)", tex).group(0)
    body = (f"{size}\\setlength{{\\tabcolsep}}{{2pt}}\\setbox0\\hbox{{{inner}}}"
            "\\typeout{WIDTH=\\the\\wd0;TEXTWIDTH=\\the\\textwidth}")
    log, _aux, _text = _compile(tmp_path, body, "measure")
    width, textwidth = re.search(r"WIDTH=([\d.]+)pt;TEXTWIDTH=([\d.]+)pt", log).groups()
    assert float(width) <= float(textwidth) + 0.01
    assert "Overfull" not in log
