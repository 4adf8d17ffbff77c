"""Tables as data, and their Markdown, CSV and LaTeX forms.

A ``Table`` is rows of ``Cell``s grouped by a first column (the model, or a section). A cell
has the text shown in Markdown and LaTeX, the raw values written to CSV (a column may expand to
several CSV columns, e.g. a CI to its two ends) and, in columns marked ``emphasis``, the number
ranked within its group. One convention in every format (the paper's): the best value per group
in bold, the second best underlined (``<u>…</u>`` in Markdown, which has no underline syntax),
and the note :data:`EMPHASIS_NOTE` says so under the table. Output is a pure function of the
table: no timestamps, so the same logs give the same bytes.

LaTeX: a ``table`` float for an ``article`` page, needing ``booktabs`` and ``tabularx``: the
caption (with the paper's table number, kept by setting the counter) and ``\\label`` above the
table, the notes below it; the table is exactly ``\\linewidth`` wide (``tabularx``), prose columns
(``Column.wrap``) are wrapping ``X`` columns, headers of number columns break over lines, and a
group is a heading row spanning the table rather than a column of its own. Options
(``LatexOptions``, defaults = the bytes above): ``numbering="none"`` drops the counter, so LaTeX
numbers the tables in document order; ``style="typeset"`` sets comparisons as math symbols,
short label columns at their natural width in a ``tabular*`` that spreads the spare width
between the columns, and the widest ``\tabcolsep`` (4pt, 3pt, else 2pt) with which the table fits.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field, replace

FORMATS = ("md", "csv", "tex")
#: ``paper``: each table keeps the paper's number (``\setcounter`` before its caption); ``none``:
#: LaTeX numbers the tables in the order of the document.
NUMBERINGS = ("paper", "none")
#: ``default``: the tables as they have always been written (the golden files); ``typeset``:
#: ``>=``/``<=``/``<``/``>`` as math symbols, a label column only as wide as its longest entry
#: (the spare width spread between the columns) and a wider ``\tabcolsep``.
LATEX_STYLES = ("default", "typeset")

#: The note under every table with emphasis columns, in Markdown and LaTeX alike.
EMPHASIS_NOTE = "Best value per model in bold, second best underlined."


@dataclass(frozen=True)
class Cell:
    text: str
    values: tuple = ()           # CSV values (default: the text)
    rank: float | None = None    # compared within the group in emphasis columns (higher is better)

    def csv_values(self) -> tuple:
        return self.values or (self.text,)


@dataclass(frozen=True)
class Column:
    header: str
    csv: tuple[str, ...] = ()    # CSV headers (default: the header)
    emphasis: bool = False
    wrap: bool = False           # prose: a wrapping, left-aligned column in LaTeX
    align: str = "r"             # LaTeX alignment of a column that does not wrap: r (numbers) or l
    short: str | None = None     # LaTeX header, where the full one would widen the column
    weight: float = 1.0          # share of the prose width among the wrapping columns

    def csv_headers(self) -> tuple[str, ...]:
        return self.csv or (self.header,)


@dataclass
class Table:
    number: int
    title: str
    group: str                                  # header of the grouping column
    columns: list[Column]
    rows: list[tuple[str, list[Cell]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: a part of a table the paper prints as one (Table 10's ``a`` and ``b``): its files' names
    suffix: str = ""

    @property
    def name(self) -> str:
        return f"table{self.number}{self.suffix}"

    @property
    def label(self) -> str:
        """The LaTeX label, ``tab:table<N>`` (N: the paper's number)."""
        return f"tab:{self.name}"


def num(x: float | None, digits: int = 1, *, signed: bool = False) -> Cell:
    """A number shown with ``digits`` decimals (``-`` if missing), kept exact-ish in CSV."""
    if x is None:
        return Cell("-", ("",), None)
    text = f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return Cell(text, (csv_number(x),), x)


def csv_number(x: float | int | None) -> str:
    if x is None:
        return ""
    if isinstance(x, int) or float(x).is_integer():
        return str(int(x))
    return f"{float(x):.12g}"


def emphasis_marks(table: Table) -> dict[tuple[int, int], str]:
    """(row, column) -> "best" or "second", per group, for emphasis columns."""
    marks: dict[tuple[int, int], str] = {}
    groups: dict[str, list[int]] = {}
    for i, (group, _cells) in enumerate(table.rows):
        groups.setdefault(group, []).append(i)
    for j, col in enumerate(table.columns):
        if not col.emphasis:
            continue
        for rows in groups.values():
            ranked = sorted({table.rows[i][1][j].rank for i in rows
                             if table.rows[i][1][j].rank is not None}, reverse=True)
            if len(rows) < 2 or not ranked:
                continue
            for i in rows:
                r = table.rows[i][1][j].rank
                if r == ranked[0]:
                    marks[(i, j)] = "best"
                elif len(ranked) > 1 and r == ranked[1]:
                    marks[(i, j)] = "second"
    return marks


def table_notes(table: Table) -> list[str]:
    """The notes printed under the table: the emphasis convention (if any column has emphasis),
    then the table's own."""
    head = [EMPHASIS_NOTE] if any(c.emphasis for c in table.columns) else []
    return head + table.notes


def to_markdown(table: Table) -> str:
    marks = emphasis_marks(table)
    style = {"best": "**{}**", "second": "<u>{}</u>"}
    head = [table.group] + [c.header for c in table.columns]
    lines = [f"**Table {table.number}: {table.title}**", "",
             "| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    for i, (group, cells) in enumerate(table.rows):
        texts = [style[marks[(i, j)]].format(c.text) if (i, j) in marks else c.text
                 for j, c in enumerate(cells)]
        cells_md = [t.replace("|", "\\|").replace("\n", " ") for t in [group] + texts]
        lines.append("| " + " | ".join(cells_md) + " |")
    notes = table_notes(table)
    lines += [""] + [f"- {n}" for n in notes] if notes else []
    return "\n".join(lines) + "\n"


def to_csv(table: Table) -> str:
    """The table as CSV, after one comment line with its title (so a CSV made from simulated
    sessions says SIMULATED too; read it with ``comment_prefix="#"`` in polars or
    ``comment="#"`` in pandas)."""
    buf = io.StringIO()
    buf.write(f"# Table {table.number}: {table.title}\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([table.group] + [h for c in table.columns for h in c.csv_headers()])
    for group, cells in table.rows:
        writer.writerow([group] + [v for c in cells for v in c.csv_values()])
    return buf.getvalue()


# Every character LaTeX treats specially, and the non-ASCII ones our texts use, as text-mode
# commands that print them in the default (OT1) font encoding of a plain article: there ``<``,
# ``>``, ``|`` and ``"`` would print as other glyphs (¡, ¿, —, ”). A ``/`` may break a line (paths).
_TEX_ESCAPE = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
               "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}",
               "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
               '"': r"{\ttfamily\char34}", "`": r"\textasciigrave{}", "/": r"/\allowbreak{}",
               "±": r"$\pm$", "≥": r"$\geq$", "≤": r"$\leq$", "×": r"$\times$", "−": r"$-$",
               "→": r"$\rightarrow$", "–": "--", "—": "---", "…": r"\ldots{}", "\n": " "}


@dataclass(frozen=True)
class LatexOptions:
    numbering: str = "paper"
    style: str = "default"

    def __post_init__(self):
        if self.numbering not in NUMBERINGS or self.style not in LATEX_STYLES:
            raise ValueError(f"numbering in {NUMBERINGS}, style in {LATEX_STYLES}")


_COMPARISONS = re.compile(r"(>=|<=|<|>)")
_MATH = {">=": r"$\geq$", "<=": r"$\leq$", "<": "$<$", ">": "$>$"}


def tex_math_escape(text: str) -> str:
    """``tex_escape``, with comparisons (``>=``, ``<=``, ``<``, ``>``) as math symbols."""
    return "".join(_MATH[part] if part in _MATH else tex_escape(part) for part in _COMPARISONS.split(text))


def tex_escape(text: str) -> str:
    """``text`` as LaTeX that prints it literally (``--`` stays two hyphens)."""
    out = []
    for i, ch in enumerate(text):
        out.append(_TEX_ESCAPE.get(ch, ch))
        if ch == "-" and text[i + 1:i + 2] == "-":
            out.append("{}")    # no en-dash ligature
    return "".join(out)


def header_lines(header: str, width: int) -> list[str]:
    """``header`` broken greedily into lines of at most ``width`` characters, at spaces and
    after the hyphen of a hyphenated word or range (``SOP-|Bench``, ``151-|200``); a longer piece
    keeps its own line."""
    pieces = [p for word in header.split() for p in re.split(r"(?<=[A-Za-z0-9]-)(?=[A-Za-z0-9])", word)]
    lines: list[str] = []
    joined = False       # the last piece ended with a hyphen: the next one continues the word
    for piece in pieces:
        sep = "" if joined else " "
        if lines and len(lines[-1]) + len(sep) + len(piece) <= width:
            lines[-1] += sep + piece
        else:
            lines.append(piece)
        joined = piece[-2:-1].isalnum() and piece.endswith("-")
    return lines or [""]


def _columns(table: Table) -> list[tuple[Column, list[Cell]]]:
    """Each column of ``table`` with its cells, in order."""
    return [(c, [cells[j] for _g, cells in table.rows]) for j, c in enumerate(table.columns)]


def _widest(cells: list[Cell]) -> int:
    """The length of a column's longest cell text (at least 4)."""
    return max([len(c.text) for c in cells] + [4])


def _head_lines(col: Column, cells: list[Cell]) -> list[str]:
    """The LaTeX header of a column that does not wrap, in lines no wider than its widest cell."""
    return header_lines(col.short or col.header, _widest(cells))


def _width(col: Column, cells: list[Cell]) -> int:
    """A column's natural width in characters: its widest cell, or its header's longest line."""
    widest = _widest(cells)
    return widest if col.wrap else max(widest, max(len(x) for x in _head_lines(col, cells)))


def _tex_header(col: Column, cells: list[Cell], esc=tex_escape, wrap: bool | None = None) -> str:
    if col.wrap if wrap is None else wrap:
        return esc(col.short or col.header)
    lines = _head_lines(col, cells)
    if len(lines) == 1:
        return esc(lines[0])
    return (rf"\begin{{tabular}}[b]{{@{{}}{col.align}@{{}}}}" + r"\\".join(esc(x) for x in lines)
            + r"\end{tabular}")


def _prose(weight: float, total: float, count: int) -> str:
    r"""A wrapping column; ``tabularx`` shares the free width by the columns' ``\hsize`` factors,
    which must add up to the number of X columns."""
    factor = "" if total == count else rf"\hsize={weight * count / total:.3g}\hsize"
    return rf">{{{factor}\raggedright\arraybackslash}}X"


#: Points per character, roughly (half an em), and the text width of a 10pt article.
_SIZES = ((r"\footnotesize", 4.4), (r"\scriptsize", 3.85))
_TEXTWIDTH_PT = 345.0
_TABCOLSEP_PT = 2.0


def _font(table: Table, tabcolsep: float = _TABCOLSEP_PT) -> str:
    r"""``\footnotesize``, or ``\scriptsize`` when the columns' natural widths (prose columns at
    12 characters) would not fit the text width at ``\footnotesize``."""
    chars = sum(min(_width(c, cells), 12) if c.wrap else _width(c, cells) for c, cells in _columns(table))
    gaps = 2 * tabcolsep * (len(table.columns) - 1)
    return next((size for size, per_char in _SIZES if chars * per_char + gaps <= _TEXTWIDTH_PT), _SIZES[-1][0])


#: ``typeset``: the gaps between columns tried, widest first (the widest with which the table's
#: estimated width fits), and the longest label a wrapping column may have to be set at its
#: natural width instead (condition names, not prose).
_TYPESET_TABCOLSEPS_PT, _LABEL_CHARS = (4.0, 3.0), 24


def _fits(table: Table, tabcolsep: float) -> bool:
    r"""The columns' estimated natural widths (prose at 12 characters) fit the text width at
    ``\scriptsize`` or larger."""
    chars = sum(min(_width(c, cells), 12) if c.wrap else _width(c, cells) for c, cells in _columns(table))
    return chars * _SIZES[-1][1] + 2 * tabcolsep * (len(table.columns) - 1) <= _TEXTWIDTH_PT


def _typeset_tabcolsep(table: Table) -> float:
    return next((sep for sep in _TYPESET_TABCOLSEPS_PT if _fits(table, sep)), _TABCOLSEP_PT)


def _natural(table: Table, font: str, tabcolsep: float) -> set[int]:
    """``typeset``: the wrapping columns set at their natural width (``l``) instead of ``X``:
    short labels, when the whole table then still fits the text width."""
    short = {j for j, (c, cells) in enumerate(_columns(table)) if c.wrap and _widest(cells) <= _LABEL_CHARS}
    per_char = dict(_SIZES)[font]
    chars = sum(_width(replace(c, wrap=False), cells) for c, cells in _columns(table))
    fits = chars * per_char + 2 * tabcolsep * (len(table.columns) - 1) <= _TEXTWIDTH_PT
    every = short == {j for j, c in enumerate(table.columns) if c.wrap}
    return short if short and every and fits else set()


def to_latex(table: Table, options: LatexOptions = LatexOptions()) -> str:
    marks = emphasis_marks(table)
    style = {"best": r"\textbf{%s}", "second": r"\underline{%s}"}
    typeset = options.style == "typeset"
    esc = tex_math_escape if typeset else tex_escape
    tabcolsep = _typeset_tabcolsep(table) if typeset else _TABCOLSEP_PT
    n = len(table.columns)
    font = _font(table, tabcolsep)
    natural = _natural(table, font, tabcolsep) if typeset else set()
    if natural:   # no X column: tabular* spreads the spare width between the columns
        spec = "".join("l" if j in natural else c.align for j, c in enumerate(table.columns))
        env, head = "tabular*", rf"\begin{{tabular*}}{{\linewidth}}{{@{{\extracolsep{{\fill}}}}{spec}@{{}}}}"
    else:
        wrapping = [c for c in table.columns if c.wrap] or table.columns[:1]   # tabularx needs one X column
        total = sum(c.weight for c in wrapping)
        spec = "".join(_prose(c.weight, total, len(wrapping)) if c in wrapping else c.align for c in table.columns)
        env, head = "tabularx", rf"\begin{{tabularx}}{{\linewidth}}{{@{{}}{spec}@{{}}}}"
    heads = [_tex_header(c, cells, esc, wrap=c.wrap and j not in natural)
             for j, (c, cells) in enumerate(_columns(table))]
    counter = ([rf"\setcounter{{table}}{{{table.number - 1}}}% keeps the paper's number: Table {table.number}"]
               if options.numbering == "paper" else [])
    lines = [r"\begin{table}[t]", r"\centering", font, rf"\setlength{{\tabcolsep}}{{{tabcolsep:g}pt}}"
             if typeset else rf"\setlength{{\tabcolsep}}{{{_TABCOLSEP_PT}pt}}",
             *counter, rf"\caption{{\textbf{{{esc(table.title)}}}}}", rf"\label{{{table.label}}}",
             head, r"\toprule", " & ".join(heads) + r" \\", r"\midrule"]
    previous = None
    for i, (group, cells) in enumerate(table.rows):
        if group != previous:
            if previous is not None:
                lines.append(r"\midrule")
            lines.append(rf"\multicolumn{{{n}}}{{@{{}}>{{\raggedright\arraybackslash}}p{{\linewidth}}@{{}}}}"
                         rf"{{\textit{{{esc(group)}}}}} \\")
        texts = [style[marks[(i, j)]] % esc(c.text) if (i, j) in marks else esc(c.text)
                 for j, c in enumerate(cells)]
        lines.append(" & ".join(texts) + r" \\")
        previous = group
    lines += [r"\bottomrule", rf"\end{{{env}}}"]
    notes = table_notes(table)
    if notes:
        lines += [r"\par\smallskip", r"{\raggedright\scriptsize"] + [esc(x) + r"\par" for x in notes] + ["}"]
    lines += [r"\end{table}"]
    return "\n".join(lines) + "\n"


RENDERERS = {"md": to_markdown, "csv": to_csv, "tex": to_latex}


def render(table: Table, fmt: str, latex: LatexOptions | None = None) -> str:
    """``table`` in ``fmt``; ``latex`` (numbering, style) applies to ``tex`` only."""
    if fmt not in RENDERERS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {FORMATS}")
    if fmt == "tex" and latex is not None:
        return to_latex(table, latex)
    return RENDERERS[fmt](table)
