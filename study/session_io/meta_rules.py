"""The rule ``meta.json`` and the log must agree by (docs/contracts.md, "Validation of a log"):
``meta.json`` is the runner's summary of a session, written beside its ``events.jsonl``, so every
field it shares with the log's ``session_start`` (model, condition, seed, simulated, exploratory,
runtime; the versions, limits and token reminder) or, once the log has ended, its ``session_end``
(status, cost, turns, duration, resumes, decisions, ...) must say what the log says, and its
values must be in range (``values``). Both readings of the reader (``reader``) apply it.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Any

from .issues import Issue, Rule
from .meta import SessionMeta
from .values import USD_SLACK, meta_out_of_range
from .vocabulary import SessionStatus

#: meta.json fields that must equal the session_start field of the same name when both are set.
_SAME_AS_START = ("model", "condition", "seed", "simulated", "exploratory", "runtime")
#: meta.json's summary fields that repeat session_start's (compared when both are set; numbers to
#: the runner's rounding, ``USD_SLACK``).
_SUMMARY_OF_START = ("model_id", "code_version", "cli_version", "sdk_version", "lock_sha256", "token_reminder",
                     "limits")
#: meta.json's summary fields that repeat session_end's (compared once the log has ended).
_SUMMARY_OF_END = ("cost_usd", "turns", "duration_s", "resumes", "decisions", "cost_complete", "cost_estimated_usd",
                   "error")


def meta_issues(log_path: Path, start: dict[str, Any], end: dict[str, Any] | None, meta: SessionMeta) -> list[Issue]:
    """Where ``meta.json`` contradicts the log at ``log_path`` (its ``session_start`` and, once it
    has ended, its ``session_end``), or its values are out of range; empty when they agree."""
    issues = []
    where = meta.problems[0].file if meta.problems else log_path.with_name("meta.json")
    for name in _SAME_AS_START:
        ours, theirs = _plain(getattr(meta, name)), start.get(name)
        if ours is not None and theirs is not None and ours != theirs:
            issues.append(Issue(Rule.META_LOG, where, None, f"meta.json says {name} {ours!r} but the log's "
                                f"session_start says {theirs!r}"))
    status = _plain(meta.status)
    if end is not None and status is not None and status != end.get("status"):
        if meta.status == SessionStatus.RUNNING:
            message = ("meta.json still says running although the log has ended (the runner stopped "
                       "before writing its final meta.json)")
        else:
            message = f"meta.json says status {status!r} but the log's session_end says {end.get('status')!r}"
        issues.append(Issue(Rule.META_LOG, where, None, message))
    if end is None and meta.status is not None and meta.status.final and not meta.voided:
        issues.append(Issue(Rule.META_LOG, where, None, f"meta.json says status {status!r} but the log "
                            "has no session_end"))
    fields = meta.to_dict()
    for message in meta_out_of_range(fields):
        issues.append(Issue(Rule.RANGE, where, None, message))
    for names, event, kind in ((_SUMMARY_OF_START, start, "session_start"), (_SUMMARY_OF_END, end or {}, "session_end")):
        for name in names:
            if name in fields and name in event and not _same(fields[name], event[name]):
                issues.append(Issue(Rule.META_LOG, where, None, f"meta.json says {name} {_short(fields[name])} but "
                                    f"the log's {kind} says {_short(event[name])}"))
    order = start.get("order")
    if type(fields.get("accounts")) is int and isinstance(order, list) and fields["accounts"] != len(order):
        issues.append(Issue(Rule.META_LOG, where, None, f"meta.json says accounts {fields['accounts']} but the "
                            f"log's batch has {len(order)}"))
    return issues


def _same(a: Any, b: Any) -> bool:
    """Equal, numbers to the runner's rounding of dollar figures (``USD_SLACK``)."""
    if type(a) in (int, float) and type(b) in (int, float):
        return abs(a - b) <= USD_SLACK or a == b
    return a == b


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _plain(value: Any) -> Any:
    """An enum member as the plain string the files hold."""
    return value.value if isinstance(value, Enum) else value
