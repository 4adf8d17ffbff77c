"""A ``Table`` (analysis.render) as a terminal table, for commands that print tables to a person
(``study demo``): rich's box drawing instead of Markdown source, the best value per group in
bold and the second best underlined as terminal styles (no ``**`` or ``<u>`` tags), a rule
between groups, and the notes below. Files keep their Markdown, CSV and LaTeX forms. In a
terminal the table takes the terminal's width; into a pipe or a log, the width it needs."""

from __future__ import annotations

from rich import box
from rich.console import Console, Group
from rich.table import Table as RichTable
from rich.text import Text

from .render import Table, emphasis_marks, header_lines, table_notes

STYLES = {"best": "bold", "second": "underline"}
HEADER_CHARS = 10


def to_rich(table: Table) -> Group:
    """The table with its title above and its notes below, ready for ``Console.print``."""
    marks = emphasis_marks(table)
    out = RichTable(box=box.SIMPLE_HEAD, title=Text(f"Table {table.number}: {table.title}", style="bold"),
                    title_justify="left", show_lines=False, pad_edge=False)
    out.add_column(table.group)
    for j, c in enumerate(table.columns):
        # a header no wider than the column's cells (at least HEADER_CHARS), broken at spaces and hyphens
        widest = max([len(cells[j].text) for _, cells in table.rows] + [HEADER_CHARS])
        out.add_column("\n".join(header_lines(c.header, widest)),
                       justify="left" if c.wrap or c.align == "l" else "right", overflow="fold")
    previous = None
    for i, (group, cells) in enumerate(table.rows):
        texts = [Text(c.text, style=STYLES.get(marks.get((i, j), ""), "")) for j, c in enumerate(cells)]
        out.add_row(Text(group if group != previous else ""), *texts,
                    end_section=i + 1 < len(table.rows) and table.rows[i + 1][0] != group)
        previous = group
    notes = [Text(f"- {n}", style="dim") for n in table_notes(table)]
    return Group(out, *notes)


def print_tables(tables: list[Table], console: Console | None = None) -> None:
    """Print each table: in a terminal at its width (rich wraps what does not fit); into a pipe
    or a file as wide as the table needs, so no cell is broken."""
    console = console or Console(highlight=False)
    width = console.width
    wide = console.options.update(width=10_000, max_width=10_000)
    for t in tables:
        group = to_rich(t)
        if not console.is_terminal:   # print() caps at the console's width: widen the console
            console.width = max(width, console.measure(group.renderables[0], options=wide).maximum)
        console.print()
        console.print(group)
    console.width = width
