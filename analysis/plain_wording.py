"""``study tables --plain-headers``: headers that cannot be misread, instead of the paper's.

Table 8's "First token remark (median decided)" is the number of accounts decided when the
agent's own text first mentioned tokens, context or budget (a remark about its token budget,
the escape route ``first_token_remark``); it has nothing to do with the FSM's one-time
transition tokens. The default keeps the paper's header (and the golden tables' bytes); with
``--plain-headers`` the column says what it counts and a note defines it. CSV column names
(``first_token_remark median``) do not change.
"""

from __future__ import annotations

from dataclasses import replace

from study.procedure.escape_routes import TOKEN_REMARK

from .render import Table

REMARK_CSV = ("first_token_remark median",)
PLAIN_REMARK_HEADER = "First remark on tokens, context or budget (median decided)"
REMARK_DEFINITION = ("First remark on tokens, context or budget (the paper's \"First token remark\"): the "
                     "accounts decided when the agent's own text first matched "
                     f"{TOKEN_REMARK.pattern}, a remark about its token budget, not the FSM's one-time "
                     "transition tokens; median over the sessions with such a remark, - if none had one.")


def plain_headers(tables: list[Table]) -> list[Table]:
    """``tables`` with Table 8's remark column renamed and defined in a note (others unchanged)."""
    out = []
    for t in tables:
        columns = [replace(c, header=PLAIN_REMARK_HEADER) if c.csv == REMARK_CSV else c for c in t.columns]
        if columns != t.columns:
            old = next(c.header for c in t.columns if c.csv == REMARK_CSV)
            notes = [n.replace(f"; {old}: ", f"; {PLAIN_REMARK_HEADER}: ") if n.startswith("Columns: ") else n
                     for n in t.notes]
            t = replace(t, columns=columns, notes=[*notes[:1], REMARK_DEFINITION, *notes[1:]])
        out.append(t)
    return out
