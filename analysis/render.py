"""Tables as data, and their Markdown, CSV and LaTeX forms.

A ``Table`` is rows of ``Cell``s grouped by a first column (the model, or a section). A cell
has the text shown in Markdown and LaTeX, the raw values written to CSV (a column may expand to
several CSV columns, e.g. a CI to its two ends) and, in columns marked ``emphasis``, the number
ranked within its group: the best is bold, the second best underlined in LaTeX (italic in
Markdown, which has no underline). Output is a pure function of the table: no timestamps, so
the same logs give the same bytes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

FORMATS = ("md", "csv", "tex")


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

    @property
    def name(self) -> str:
        return f"table{self.number}"


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


def _marks(table: Table) -> dict[tuple[int, int], str]:
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


def to_markdown(table: Table) -> str:
    marks = _marks(table)
    style = {"best": "**{}**", "second": "_{}_"}
    head = [table.group] + [c.header for c in table.columns]
    lines = [f"**Table {table.number}: {table.title}**", "",
             "| " + " | ".join(head) + " |", "|" + "|".join(" --- " for _ in head) + "|"]
    for i, (group, cells) in enumerate(table.rows):
        texts = [style[marks[(i, j)]].format(c.text) if (i, j) in marks else c.text
                 for j, c in enumerate(cells)]
        cells_md = [t.replace("|", "\\|").replace("\n", " ") for t in [group] + texts]
        lines.append("| " + " | ".join(cells_md) + " |")
    if any(c.emphasis for c in table.columns):
        table_notes = ["Best value per model in bold, second best in italics."] + table.notes
    else:
        table_notes = table.notes
    lines += [""] + [f"- {n}" for n in table_notes] if table_notes else []
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


_TEX_ESCAPE = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
               "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}",
               "±": r"$\pm$", "≥": r"$\geq$", "≤": r"$\leq$"}


def tex_escape(text: str) -> str:
    return "".join(_TEX_ESCAPE.get(ch, ch) for ch in text)


def to_latex(table: Table) -> str:
    marks = _marks(table)
    style = {"best": r"\textbf{%s}", "second": r"\underline{%s}"}
    spec = "ll" + "r" * (len(table.columns) - 1)
    lines = [r"\begin{table}[t]", r"\centering", r"\small", rf"\begin{{tabular}}{{{spec}}}",
             r"\toprule",
             " & ".join(tex_escape(h) for h in [table.group] + [c.header for c in table.columns])
             + r" \\", r"\midrule"]
    previous = None
    for i, (group, cells) in enumerate(table.rows):
        if previous is not None and group != previous:
            lines.append(r"\midrule")
        texts = [style[marks[(i, j)]] % tex_escape(c.text) if (i, j) in marks else tex_escape(c.text)
                 for j, c in enumerate(cells)]
        lines.append(" & ".join([tex_escape(group) if group != previous else ""] + texts) + r" \\")
        previous = group
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines += [r"\par\smallskip{\footnotesize"] + [tex_escape(n) + r"\\" for n in table.notes] + ["}"]
    lines += [rf"\caption{{\textbf{{{tex_escape(table.title)}}}}}",
              rf"\label{{tab:{table.name}}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


RENDERERS = {"md": to_markdown, "csv": to_csv, "tex": to_latex}


def render(table: Table, fmt: str) -> str:
    if fmt not in RENDERERS:
        raise ValueError(f"unknown format {fmt!r}; choose one of {FORMATS}")
    return RENDERERS[fmt](table)
