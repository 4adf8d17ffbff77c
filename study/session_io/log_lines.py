"""The lines of ``events.jsonl`` as JSON objects: the first step of the reference reading
(``reader``), which names what is wrong with each line that is not one.

A clean file is parsed in one call; otherwise line by line, where a line is skipped with an
issue when it is not UTF-8 (``Rule.ENCODING``), not one JSON object or a crash's hole of NUL
bytes (``Rule.JSON``), and a last line cut short without its newline is a warning
(``Rule.TORN``). Blank lines are skipped. What the events say is checked later
(``reader.validate_log``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from .issues import Issue, Rule

#: The JSON parser of every log line, in both readings: msgspec's, which ``typed_events`` decodes
#: with too, so that the two readings agree on every number and string (orjson, say, reads an
#: integer beyond 64 bits as a float).
JSON = msgspec.json.Decoder()


def parse_lines(path: Path, data: bytes) -> tuple[list[dict[str, Any]], list[Issue], list[int]]:
    """The events of ``data`` (the bytes of ``path``), the issues of the lines that are not
    events, and the file line of each event."""
    try:
        events = JSON.decode(b"[" + data.rstrip(b"\n").replace(b"\n", b",") + b"]")
        if all(type(e) is dict for e in events) and data.count(b"\n") == len(events) and b"\n\n" not in data:
            return events, [], list(range(1, len(events) + 1))
    except (msgspec.DecodeError, RecursionError):   # RecursionError: nested deeper than msgspec reads
        pass
    events, issues, numbers = [], [], []
    lines = data.split(b"\n")
    torn_possible = not data.endswith(b"\n")
    if lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            obj = JSON.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            if torn_possible and number == len(lines) and b"\x00" not in raw:   # NULs: a crash's hole, not a torn line
                issues.append(Issue(Rule.TORN, path, number, f"{path}:{number}: truncated last line "
                                    f"skipped (a crash while it was written): {raw[:80]!r}", warning=True))
                continue
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                issues.append(Issue(Rule.ENCODING, path, number, f"line is not UTF-8 (byte {exc.start}): {raw[:80]!r}"))
                continue
            obj = None                      # not JSON: malformed, like JSON that is not an object
        if obj is None and not raw.strip(b"\x00"):
            issues.append(Issue(Rule.JSON, path, number, f"line of {len(raw):,} NUL bytes (a crash left "
                                "a hole in the file): every line must be one JSON object"))
            continue
        if type(obj) is not dict:
            issues.append(Issue(Rule.JSON, path, number, f"malformed event line {raw[:120]!r}: "
                                "every line must be one JSON object with 'seq' and 'kind'"))
            continue
        events.append(obj)
        numbers.append(number)
    return events, issues, numbers
