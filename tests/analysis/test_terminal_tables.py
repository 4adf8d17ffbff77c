"""Tables printed to a terminal (``study demo``) are terminal tables: box rules, emphasis as bold
and underline styles, never Markdown source (``**``, ``<u>``, ``|``)."""

from __future__ import annotations

import io

from rich.console import Console

from analysis.render import Cell, Column, Table, num
from analysis.terminal_tables import print_tables, to_rich


def _table() -> Table:
    t = Table(1, "SIMULATED - Main results", "Model", [Column("Condition", align="l"), Column("FC", emphasis=True)])
    t.rows = [("sim:drifting", [Cell("Plain"), num(5.5)]), ("sim:drifting", [Cell("FSM"), num(8.0)]),
              ("sim:drifting", [Cell("Remind-loop"), num(7.5)]), ("other", [Cell("FSM"), num(1.0)])]
    t.notes = ["Seeds: 2-3."]
    return t


def test_printed_as_a_terminal_table_without_markdown_tags():
    out = io.StringIO()
    print_tables([_table()], Console(file=out, width=100, color_system=None))
    text = out.getvalue()
    assert "<u>" not in text and "**" not in text and "| --- |" not in text
    lines = text.splitlines()
    assert lines[1].rstrip() == "Table 1: SIMULATED - Main results"
    assert any(set(line.strip()) == {"─"} for line in lines)        # a rule under the header
    assert text.count("sim:drifting") == 1                         # the group named once
    assert "- Best value per model in bold, second best underlined." in text and "- Seeds: 2-3." in text


def test_best_bold_and_second_underlined_as_styles():
    console = Console(file=io.StringIO(), width=100, color_system="standard", force_terminal=True)
    console.print(to_rich(_table()))
    ansi = console.file.getvalue()
    assert "\x1b[1m8.0\x1b[0m" in ansi and "\x1b[4m7.5\x1b[0m" in ansi
    assert "\x1b[1m5.5" not in ansi and "\x1b[4m5.5" not in ansi


def test_into_a_pipe_a_wide_table_keeps_every_cell_whole_and_breaks_only_headers():
    t = Table(8, "How each condition left the procedure", "Model",
              [Column("Condition", wrap=True)] + [Column(f"Decides without looking {i}") for i in range(9)])
    t.rows = [("sim:drifting", [Cell("Remind-loop")] + [Cell("3/3 (104.7)") for _ in range(9)])]
    out = io.StringIO()
    print_tables([t], Console(file=out, width=80, color_system=None))
    lines = out.getvalue().splitlines()
    (row,) = [line for line in lines if "Remind-loop" in line]
    assert row.split() == ["sim:drifting", "Remind-loop"] + ["3/3", "(104.7)"] * 9
    assert any(line.split()[-2:] == ["looking", "8"] for line in lines)   # headers wrap at spaces
    assert max(len(line.rstrip()) for line in lines if "Remind-loop" in line or "─" in line) > 80
