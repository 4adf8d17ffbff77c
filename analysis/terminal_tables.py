"""A ``Table`` (analysis.render) as a terminal table, for commands that print tables to a person
(``study demo``): rich's box drawing instead of Markdown source, the best value per group in
bold and the second best underlined as terminal styles (no ``**`` or ``<u>`` tags), a rule
between groups, and the notes below. Files keep their Markdown, CSV and LaTeX forms."""

from __future__ import annotations

from rich import box
from rich.console import Console, Group
from rich.table import Table as RichTable
from rich.text import Text

from .render import Table, emphasis_marks, table_notes

STYLES = {"best": "bold", "second": "underline"}


def to_rich(table: Table) -> Group:
    """The table with its title above and its notes below, ready for ``Console.print``."""
    marks = emphasis_marks(table)
    out = RichTable(box=box.SIMPLE_HEAD, title=Text(f"Table {table.number}: {table.title}", style="bold"),
                    title_justify="left", show_lines=False, pad_edge=False)
    out.add_column(table.group)
    for c in table.columns:
        out.add_column(c.header, justify="left" if c.wrap or c.align == "l" else "right",
                       overflow="fold")
    previous = None
    for i, (group, cells) in enumerate(table.rows):
        texts = [Text(c.text, style=STYLES.get(marks.get((i, j), ""), "")) for j, c in enumerate(cells)]
        out.add_row(Text(group if group != previous else ""), *texts,
                    end_section=i + 1 < len(table.rows) and table.rows[i + 1][0] != group)
        previous = group
    notes = [Text(f"- {n}", style="dim") for n in table_notes(table)]
    return Group(out, *notes)


def print_tables(tables: list[Table], console: Console | None = None) -> None:
    """Print each table to the terminal (``console``: rich's default, the terminal's width)."""
    console = console or Console(highlight=False)
    for t in tables:
        console.print()
        console.print(to_rich(t))
