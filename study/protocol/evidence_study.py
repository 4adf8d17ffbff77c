"""The study a session's evidence is re-derived under (``study.session_io.verdicts``): each family's
evidence part first reads from its study what the evidence is checked against (a domain, a
protocol, a frozen order of tasks), and the log's two ends; these are those steps, one for all."""

from __future__ import annotations

from typing import Any, Callable


def read_family_study(study: str, family: str, read: Callable[[Any], Any], *, whose: str, unknown: str,
                      errors: tuple[type[Exception], ...] = ()) -> tuple[Any, list[str]]:
    """``(read(definition), [])`` for study ``study`` when it is one of ``family``; else ``(None,
    [why])``: a study of another family ("… not ``whose``") or one that cannot be read, by
    ``load_study`` or by ``read`` (``errors``: what ``read`` raises), so its ``unknown`` is unknown."""
    from study.protocol.studies import StudyDefinitionError, load_study

    try:
        definition = load_study(study)
        if definition.family != family:
            return None, [f"study {study} is of family {definition.family}, not {whose}"]
        return read(definition), []
    except (StudyDefinitionError, *errors) as exc:
        return None, [f"its study cannot be read, so its {unknown} is unknown: {exc}"]


def log_ends(events: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The log's first event (``session_start``; empty for an empty log) and its last ``session_end``."""
    start = events[0] if events else {}
    return start, next((e for e in reversed(events) if e.get("kind") == "session_end"), None)
