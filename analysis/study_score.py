"""``study score`` of a session of another study than the main one: what its family's evaluator
said, from its log (the ``outcome`` event), in a few lines or as JSON.

The head (the model, condition, study, status, voided) is every family's; the lines under it and
what they add to the JSON are the family's (its ``reading`` part's ``score_lines``, found through
``study.families.registry``): a benchmark's reward and its parts, a protocol's rows or periods.
Every number comes from a log that passed the record rules (``study.session_io.record``), or the
command says why there is none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from study.families.registry import part_of
from study.session_io.record import read_record


def study_summary(session_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """(the JSON form, the lines) of ``session_dir``'s outcome; ValueError says why there is none."""
    record, session = read_record(Path(session_dir))
    why = record.exclusion(include_exploratory=True, study=record.study)
    if why is not None and why.kind.value in ("no-log", "invalid"):
        raise ValueError(f"{session_dir}: {why.reason}")
    events = list(session.log.events) if session.log is not None else []
    outcome = next((e for e in reversed(events) if e.get("kind") == "outcome"), None)
    head = (f"{'SIMULATED session' if record.simulated else 'Session'} {record.model} / {record.condition} / "
            f"{record.study} {Path(session_dir).name}: status {record.status}"
            + (f", VOIDED ({record.void_reason})" if record.voided else ""))
    if outcome is None:
        return {"study": record.study, "family": record.family, "status": str(record.status), "outcome": None}, \
            [head, "  no outcome: the log holds no verdict of the family's evaluator (the session did not reach its end)"]
    data = {"study": record.study, "family": record.family, "status": str(record.status),
            "cost_usd": record.cost_usd, "outcome": {k: v for k, v in outcome.items() if k not in ("seq", "t", "kind")}}
    lines = [head]
    reading = part_of(record.family, "reading")
    found = reading.score_lines(outcome, events) if reading is not None else None
    if found is not None:          # the family's own lines (a protocol no folder reads: the head alone)
        extra, more = found
        data.update(extra)
        lines += more
    return data, lines
