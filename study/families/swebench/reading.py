"""How a SWE-bench session reads, from its log alone: the family's ``reading`` part (layer 2 in the
family face of issue 48; the readers ask it through the family registry once it lands).

A session is one task in one context with the CLI's own tools; its ``outcome`` event is the
official harness's verdict on the final patch with the process measures (``family.py`` writes it):

- ``verdict(outcome)``: one line (``resolved``, ``unresolved``, each with the procedure's
  verdict), its class and one cell (the task); ``details(outcome, events)``: every figure, for a
  page; ``group_words``: a group's verdicts in words;
- ``running(progress)``, ``unfinished(events)``: a session without an outcome yet;
- ``score_lines(outcome, events)``: what ``study score`` prints and adds to its JSON;
- ``inspect_scores``, ``inspect_metadata``, ``SCORES``, ``INSPECT_COUNTED``: the Inspect export's;
- ``UNITS``: what the session's unit is called, and that a session decides none (the readers show
  its verdict instead of a count: ``study.families.units``);
- the record rules: ``UNIT_END`` (the context's end ends the one unit: the audit counts the
  decisions by it), ``CONTEXTS`` and ``BUILTIN_TOOLS`` (the agent's calls are the CLI's own tools,
  compared with the transcript as the CLI names them); ``MARKERS``: none of its own kinds.

The outcome is the log's, never recomputed here: an untrusted record, so every field is checked
for its type and every text cut. Nothing here raises. Standard library only.
"""

from __future__ import annotations

import math
from typing import Any, Callable

PROTOCOL = "swebench"
#: What a session's unit is called (``study.families.units``): one task, which the session does not
#: decide (None): the harness's verdict (resolved or not) says how it went.
UNITS = ("task", "tasks", None)
UNIT_END = "context_end"
CONTEXTS = True
BUILTIN_TOOLS = True
SCORES = {PROTOCOL: ("resolved", "procedure_followed", "new_tests", "empty_patch")}
PASS, FAIL, NONE = "pass", "fail", "none"
LIST_CAP = 500
INSPECT_COUNTED = "(a session the harness could not grade is voided: it has no outcome)"
MARKERS: dict[str, Callable[[dict[str, Any]], tuple[str, str]]] = {}


def _short(value: Any, cap: int = 300) -> str:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return text if len(text) <= cap else text[:cap] + "…"


def _pair(value: Any) -> str:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        return f"{value[0]}/{value[1]}"
    return "–"


def _names(value: Any) -> list[str]:
    return [_short(x, 80) for x in value[:LIST_CAP] if isinstance(x, str)] if isinstance(value, list) else []


def protocol_of(record: dict[str, Any]) -> str:
    return PROTOCOL


def verdict(outcome: dict[str, Any]) -> dict[str, Any]:
    """``text``, ``class`` and ``cells`` of the family's ``outcome`` event."""
    resolved = outcome.get("resolved") is True
    followed = outcome.get("procedure_followed") is True
    text = ("resolved" if resolved else "unresolved") + ("" if followed else ", procedure not followed")
    if outcome.get("empty_patch") is True:
        text += ", empty patch"
    cls = PASS if resolved else FAIL
    return {"text": text, "class": cls,
            "cells": [{"class": cls, "title": f"{_short(outcome.get('instance_id'), 80)}: {text}"}]}


def details(outcome: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """Everything the harness and the measures said, for a page."""
    found = verdict(outcome)
    doc: dict[str, Any] = {"protocol": PROTOCOL, "headline": found["text"], "class": found["class"], "facts": []}
    log = outcome.get("phase_log") if isinstance(outcome.get("phase_log"), list) else []
    doc["phase_log"] = [{"sha": _short(c.get("sha"), 40), "phases": _names(c.get("phases"))}
                        for c in log[:LIST_CAP] if isinstance(c, dict)]
    doc["facts"] = [
        ["task", _short(outcome.get("instance_id"))],
        ["the harness", _short(outcome.get("reason"))],
        ["FAIL_TO_PASS passed", _pair(outcome.get("fail_to_pass"))],
        ["PASS_TO_PASS passed", _pair(outcome.get("pass_to_pass"))],
        ["patch", "empty" if outcome.get("empty_patch") is True else
         f"{_short(outcome.get('patch_lines'), 12)} lines in {', '.join(_names(outcome.get('patch_files'))[:20]) or '–'}"],
        ["new tests", ", ".join(_names(outcome.get("new_tests"))[:20]) or "none"],
        ["procedure followed", "yes" if outcome.get("procedure_followed") is True else
         f"no ({_short(outcome.get('procedure_problem'), 200)})"],
        ["commits", _short(outcome.get("commits"), 12)],
    ]
    return doc


def group_words(protocol: str | None) -> tuple[str, str, str]:
    return ("resolved", "unresolved", "no outcome")


def running(progress: Any) -> str:
    return "working" if getattr(progress, "contexts", 0) else "starting"


def unfinished(events: list[dict[str, Any]]) -> str:
    commits = sum(1 for e in events if isinstance(e, dict) and e.get("kind") == "commit")
    return f"no end yet: {commits} commit{'s' if commits != 1 else ''}"


def score_lines(outcome: dict[str, Any], events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    """What ``study score`` adds to its JSON (nothing) and prints."""
    followed = outcome.get("procedure_followed") is True
    lines = [f"  SWE-bench {_short(outcome.get('instance_id'), 80)}: {_short(outcome.get('verdict'), 40)} "
             f"({_short(outcome.get('reason'), 200)})",
             f"  patch: {'empty' if outcome.get('empty_patch') is True else _short(outcome.get('patch_lines'), 12) + ' lines'}"
             f"; new tests {len(_names(outcome.get('new_tests')))}; procedure followed "
             + ("yes" if followed else f"no ({_short(outcome.get('procedure_problem'), 200)})")]
    return {}, lines


def inspect_scores(protocol: str, outcome: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The verdict as the Inspect export's scores (each the fields of an Inspect ``Score``)."""
    meta = {k: outcome.get(k) for k in ("instance_id", "reason", "fail_to_pass", "pass_to_pass", "patch_sha256",
                                        "patch_files", "patch_lines", "procedure_problem", "commits")}
    resolved = outcome.get("resolved") is True
    return {"resolved": {"value": resolved, "answer": "resolved" if resolved else "unresolved",
                         "explanation": f"the official harness: {_short(outcome.get('reason'), 300)}", "metadata": meta},
            "procedure_followed": {"value": outcome.get("procedure_followed") is True,
                                   "explanation": _short(outcome.get("procedure_problem")) or "followed"},
            "new_tests": {"value": len(_names(outcome.get("new_tests")))},
            "empty_patch": {"value": outcome.get("empty_patch") is True}}


def inspect_metadata(outcome: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"instance_id": outcome.get("instance_id")} if outcome is not None else {}


def seconds(outcome: dict[str, Any]) -> float | None:
    """The grading's seconds an outcome records (a session's time without them is the agent's)."""
    value = outcome.get("grading_s")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) else None
