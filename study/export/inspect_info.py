"""What an info event of the Inspect export says, in words: a line saying what happened, then the
log record's fields, as Markdown.

``inspect view`` draws an InfoEvent's ``data`` as Markdown when it is a text and as a raw JSON
panel otherwise (its ``InfoEventView``), so a transcript of records as data opens with JSON, and a
field holding a tool's JSON answer (a controller's lookups in a family's log) shows as an escaped
string.
Here every field is one line (``name``: its value as inline code) or, when the value has several
lines, is long, or is JSON itself, a code block (JSON pretty-printed). The record stays whole, as
data, in the event's ``metadata`` (``inspect_events``), for ``events_df`` and scripts.

The line in words is this module's for the common kinds of every session log (``TITLES``); a
family's own kinds get theirs from its ``inspect`` part (``info_title(kind, fields)``), any other
kind its name. Nothing here raises on a record of other types than the runner writes.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import orjson

from study.families.registry import part_of
from study.transcripts import outcomes

#: A value longer than this (or of several lines, or JSON) is a code block rather than inline code.
INLINE = 100


def code(value: Any) -> str:
    """``value`` as Markdown inline code (backticks inside kept: a longer fence, padded)."""
    text = value if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    text = text.replace("\n", " ")
    ticks = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if ticks or text.startswith(" ") or text.endswith(" ") else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else "(empty)"


def block(text: str, language: str = "") -> str:
    """``text`` as a fenced code block whose fence no run of backticks in it closes."""
    ticks = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, ticks + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _json_text(text: str) -> Any:
    """The JSON object or array ``text`` holds, or None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        value = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, (dict, list)) else None


def value_markdown(value: Any) -> tuple[str, bool]:
    """A field's value: (its Markdown, whether it is a block of its own)."""
    if isinstance(value, str):
        found = _json_text(value)
        if found is not None:
            return block(orjson.dumps(found, option=orjson.OPT_INDENT_2).decode(), "json"), True
        if "\n" in value or len(value) > INLINE:
            return block(value), True
        return code(value), False
    if isinstance(value, (dict, list)):
        compact = orjson.dumps(value, default=str).decode()
        if len(compact) > INLINE:
            return block(orjson.dumps(value, option=orjson.OPT_INDENT_2, default=str).decode(), "json"), True
        return code(compact), False
    return code(value), False


def fields_markdown(fields: dict[str, Any]) -> str:
    """Each field as a line of a list, or its name and a block."""
    out: list[str] = []
    items: list[str] = []
    for name, value in fields.items():
        shown, own = value_markdown(value)
        if not own:
            items.append(f"- **{name}**: {shown}")
            continue
        if items:
            out, items = [*out, "\n".join(items)], []
        out.append(f"**{name}**:\n\n{shown}")
    return "\n\n".join([*out, "\n".join(items)] if items else out)


def _state(value: Any) -> str:
    return code(value) if value not in (None, "") else "(none)"


def _session_start(f: dict[str, Any]) -> str:
    runtime = f.get("runtime") or "claude-code"
    return (f"The session began: {code(f.get('model'))} under {code(f.get('condition'))}, seed "
            f"{code(f.get('seed'))}, on {code(runtime)} {code(f.get('cli_version'))}"
            + (" (simulated)" if f.get("simulated") is True else ""))


def _transition(f: dict[str, Any]) -> str:
    moved = f"FSM: {_state(f.get('from'))} → {_state(f.get('to'))}"
    return moved if f.get("ok") is True else moved + ": refused"


def _stop(f: dict[str, Any]) -> str:
    if f.get("outcome") == "blocked":
        return "The stop gate blocked the agent's stop: it goes on"
    return "The agent's turn ended"


def _outcome(f: dict[str, Any]) -> str:
    return f"The verdict: {code(outcomes.verdict(f)['text'])}"


#: The line in words of the common kinds of every session log (``study.session_io.events``).
TITLES: dict[str, Callable[[dict[str, Any]], str]] = {
    "session_start": _session_start,
    "session_end": lambda f: f"The session ended: {code(f.get('status'))}",
    "transition": _transition,
    "stop": _stop,
    "resume": lambda f: f"The runner resumed the agent (resume {code(f.get('n'))})",
    "assistant_text": lambda f: "The agent's own text (outside any tool)",
    "call_end": lambda f: f"The CLI's call {code(f.get('n'))} ended",
    "model_usage": lambda f: f"A response of the {code(f.get('role'))}'s model {code(f.get('model'))}",
    "proposal": lambda f: f"The agent proposed a change of the workflow ({code(f.get('id'))})",
    "api_retry": lambda f: f"The CLI retried a request to the model API (attempt {code(f.get('attempt'))})",
    "context_start": lambda f: f"Context {code(f.get('n'))} began" + (f": {code(f.get('unit'))}" if f.get("unit") else ""),
    "context_end": lambda f: f"Context {code(f.get('n'))} ended: {code(f.get('ended'))}",
    "commit": lambda f: f"A commit: {code(str(f.get('sha'))[:10])} {code(f.get('subject'))}",
    "outcome": _outcome,
}


def title(kind: str, fields: dict[str, Any], family: str | None) -> str:
    """The line in words of a record of ``kind`` (module docstring)."""
    own = getattr(part_of(family, "inspect"), "info_title", None)
    found = own(kind, fields) if own is not None else None
    if found is None and kind in TITLES:
        found = TITLES[kind](fields)
    return found or kind.replace("_", " ").capitalize()


def info_text(kind: str, fields: dict[str, Any], family: str | None) -> str:
    """An info event's text: the line in words (bold), then its fields (module docstring)."""
    head = title(kind, fields, family)
    body = fields_markdown(fields)
    return f"**{head}**" + (f"\n\n{body}" if body else "")
