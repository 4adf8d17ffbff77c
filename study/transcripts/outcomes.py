"""What a session of another task family than SOP-Bench's came to, from its log's ``outcome``
event (τ²-bench's evaluator, a staged protocol's scorer: docs/contracts.md, "Session log"), in the
words ``study status``, the viewer and the Inspect export share.

- ``verdict(outcome)``: one line (``reward 1``, ``not judged``, ``8/8 rows valid, complete``,
  ``2/2 periods correct``), its class (``pass``, ``fail``, ``none``: not judged, or no outcome)
  and one cell per unit of the work (the task; each ledger row; each period), each with its class
  and title: the matrix's strip;
- ``details(outcome, events)``: the same, with every figure the family's evaluator gave (the
  reward's parts and basis, how the conversation ended, a transfer, the harness's turns; each row
  and the rule it breaks; each period's fields), for a page.

The outcome is the log's, never recomputed: an untrusted record, so every field is checked for
its type and a list is cut to ``LIST_CAP`` entries. Nothing here raises.
"""

from __future__ import annotations

import math
from typing import Any

#: At most this many rows or periods are listed (a forged outcome may hold any number).
LIST_CAP = 500
TRANSFER_TOOL = "transfer_to_human_agents"
PASS, FAIL, NONE = "pass", "fail", "none"
#: Families whose outcome their own ``reading`` part words (the family face of issue 48; TEMPORARY
#: until the family registry lands and every reader asks ``part(family, "reading")``).
_FAMILY_READINGS = {"swebench": "study.families.swebench.reading"}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _g(value: Any) -> str:
    number = _number(value)
    return f"{number:g}" if number is not None else "–"


def _short(value: Any, cap: int = 300) -> str:
    text = value if isinstance(value, str) else "" if value is None else str(value)
    return text if len(text) <= cap else text[:cap] + "…"


def _list(value: Any) -> list[dict[str, Any]]:
    return [x for x in value[:LIST_CAP] if isinstance(x, dict)] if isinstance(value, list) else []


def protocol_of(outcome: dict[str, Any]) -> str | None:
    """``tau2``, ``autoresearch``, ``month-end-close``, another protocol's name, or None."""
    if outcome.get("family") == "tau2":
        return "tau2"
    return outcome.get("protocol") if isinstance(outcome.get("protocol"), str) else None


def verdict(outcome: dict[str, Any] | None) -> dict[str, Any]:
    """``text``, ``class`` and ``cells`` (see the module docstring) of an ``outcome`` event (None:
    the session has none yet: it runs, or it ended before its family judged it)."""
    if not isinstance(outcome, dict):
        return {"text": "no outcome", "class": NONE, "cells": []}
    if outcome.get("family") in _FAMILY_READINGS:   # TEMPORARY until the family registry lands
        import importlib

        return importlib.import_module(_FAMILY_READINGS[outcome["family"]]).verdict(outcome)
    protocol = protocol_of(outcome)
    if protocol == "tau2":
        reward = _number(outcome.get("reward"))
        if outcome.get("judged") is False or reward is None:
            return {"text": "not judged", "class": NONE,
                    "cells": [{"class": NONE, "title": "not judged: the reward needs a judge that did not run"}]}
        cls = PASS if reward >= 1.0 else FAIL
        return {"text": f"reward {reward:g}", "class": cls, "cells": [{"class": cls, "title": f"reward {reward:g}"}]}
    if protocol == "autoresearch":
        rows = _list(outcome.get("rows"))
        valid, required = _int(outcome.get("valid_rows")), _int(outcome.get("required_rows"))
        complete = outcome.get("complete") is True
        cells = [{"class": PASS if r.get("valid") is True else FAIL,
                  "title": f"trial {_short(r.get('trial'), 20)} ({_short(r.get('stage'), 40)}): "
                           + ("valid" if r.get("valid") is True else f"breaks rule {_short(r.get('rule'), 40)}")} for r in rows]
        missing = max(0, (required or 0) - len(rows))
        cells += [{"class": NONE, "title": "a trial the ledger does not hold"}] * min(missing, LIST_CAP)
        text = f"{valid if valid is not None else '?'}/{required if required is not None else '?'} rows valid, " \
               + ("complete" if complete else "not complete")
        return {"text": text, "class": PASS if complete else FAIL, "cells": cells}
    if protocol == "month-end-close":
        periods = _list(outcome.get("periods"))
        correct = _int(outcome.get("correct_periods"))
        cells = [{"class": PASS if p.get("correct") is True else FAIL if p.get("started") is True else NONE,
                  "title": f"{_short(p.get('period'), 20)}: " + ("correct" if p.get("correct") is True else
                                                            f"{_short(p.get('right'), 5)}/11 fields" if p.get("started") is True
                                                            else "not started")} for p in periods]
        text = f"{correct if correct is not None else '?'}/{len(periods)} periods correct"
        return {"text": text, "class": PASS if periods and correct == len(periods) else FAIL, "cells": cells}
    return {"text": f"outcome of {_short(protocol or outcome.get('family'), 40)}", "class": NONE, "cells": []}


def transferred(events: list[dict[str, Any]]) -> bool:
    """Whether the conversation ended in a successful transfer to a human agent."""
    return any(isinstance(e, dict) and e.get("kind") == "tool_call" and e.get("tool") == TRANSFER_TOOL
               and e.get("ok") is True and e.get("allowed") is not False for e in events)


def details(outcome: dict[str, Any] | None, events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Everything the family's evaluator said (see the module docstring); None without an outcome."""
    if not isinstance(outcome, dict):
        return None
    if outcome.get("family") in _FAMILY_READINGS:   # TEMPORARY until the family registry lands
        import importlib

        return importlib.import_module(_FAMILY_READINGS[outcome["family"]]).details(outcome, events)
    found = verdict(outcome)
    protocol = protocol_of(outcome)
    doc: dict[str, Any] = {"protocol": protocol, "headline": found["text"], "class": found["class"], "facts": []}
    facts = doc["facts"]
    if protocol == "tau2":
        basis = [str(b) for b in outcome.get("reward_basis") or [] if isinstance(b, str)] \
            if isinstance(outcome.get("reward_basis"), list) else []
        parts = outcome.get("parts") if isinstance(outcome.get("parts"), dict) else {}
        doc["judged"] = outcome.get("judged") is not False and _number(outcome.get("reward")) is not None
        doc["reward"] = _number(outcome.get("reward"))
        doc["parts"] = [{"name": _short(k, 60), "value": _number(v), "in_basis": k in basis}
                        for k, v in sorted(parts.items())[:LIST_CAP]]
        doc["basis"] = basis
        if not doc["judged"]:
            facts.append(["not judged", "the reward needs a judge of the task's natural-language assertions "
                                        "that did not run: never passed nor failed"])
        facts += [["task", _short(outcome.get("task_id"))], ["domain", _short(outcome.get("domain"))],
                  ["ended", _short(outcome.get("termination_reason"))],
                  ["transferred to a human agent", "yes" if transferred(events) else "no"],
                  ["agent turns", _g(outcome.get("agent_turns"))],
                  ["written by the harness", _g(outcome.get("scripted_turns"))],
                  ["of them the controller's", _g(outcome.get("controller_turns"))],
                  ["customer's device actions", _g(outcome.get("customer_device_actions"))]]
        if outcome.get("note"):
            facts.append(["τ²-bench's note", _short(outcome.get("note"))])
    elif protocol == "autoresearch":
        doc["rows"] = [{"trial": _short(r.get("trial"), 20), "stage": _short(r.get("stage"), 60),
                        "decision": _short(r.get("decision"), 60), "metric": _number(r.get("metric")),
                        "valid": r.get("valid") is True, "rule": _short(r.get("rule"), 60) if r.get("rule") else None,
                        "problems": [_short(p) for p in r.get("problems") or [] if isinstance(p, str)][:20]
                        if isinstance(r.get("problems"), list) else []} for r in _list(outcome.get("rows"))]
        facts += [["valid rows", f"{_g(outcome.get('valid_rows'))} of {_g(outcome.get('required_rows'))} required"],
                  ["invalid rows", _g(outcome.get("invalid_rows"))],
                  ["complete", "yes" if outcome.get("complete") is True else "no"],
                  ["best accuracy", _g(outcome.get("best_accuracy"))]]
        if outcome.get("incomplete_because"):
            facts.append(["not complete because", _short(outcome.get("incomplete_because"), 1000)])
    elif protocol == "month-end-close":
        doc["periods"] = [{"period": _short(p.get("period"), 20), "started": p.get("started") is True,
                           "correct": p.get("correct") is True, "right": _int(p.get("right")),
                           "fraction": _number(p.get("fraction")), "problem": _short(p.get("problem")) or None}
                          for p in _list(outcome.get("periods"))]
        facts += [["correct periods", f"{_g(outcome.get('correct_periods'))} of {len(doc['periods'])}"],
                  ["turn cap a period", _g(outcome.get("turn_cap"))]]
    return doc
