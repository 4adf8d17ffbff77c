"""JSON out of untrusted session files: every document the viewer sends (server) or writes
(bundle), and every record a transcript reader shows raw, goes through ``dumps``.

Session files are untrusted: a log line may hold JSON nested deeper than orjson writes (255
levels) or an integer beyond 64 bits, both valid to read and both a crash to write back. A
document that orjson refuses is written again with such values replaced by a short text that
says what was left out, so a damaged session still gets a page.
"""

from __future__ import annotations

from typing import Any

import orjson

#: Values nested deeper than this are shown as a note (far below orjson's limit of 255).
MAX_DEPTH = 64
_INT = 2**63


def shallow(value: Any, depth: int = 0) -> Any:
    """``value`` with containers below ``MAX_DEPTH`` levels and out-of-range integers replaced by text."""
    if isinstance(value, dict):
        if depth >= MAX_DEPTH:
            return f"… (nested deeper than {MAX_DEPTH} levels; not shown)"
        return {str(k): shallow(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if depth >= MAX_DEPTH:
            return f"… (nested deeper than {MAX_DEPTH} levels; not shown)"
        return [shallow(v, depth + 1) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT <= value < 2 * _INT:
        return str(value)
    return value


def dumps(doc: Any) -> bytes:
    """``doc`` as JSON bytes; values orjson cannot write are replaced (``shallow``)."""
    try:
        return orjson.dumps(doc)
    except orjson.JSONEncodeError:
        return orjson.dumps(shallow(doc))
