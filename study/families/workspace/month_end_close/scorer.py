"""The month-end scorer: each period's report against the generator's answers.

:func:`score` reads ``periods/<period>/close/report.json`` of each of the six periods and
compares its eleven fields with the true close of the company of the run's seed (:mod:`books`,
recomputed here: the answers are never stored). A field is right within its tolerance
(:data:`TOLERANCE`: 0.50 USD for money, exact for units); a period scores the fraction of its
eleven fields that are right, and is *correct* when all are. A period whose inputs were never
released is not *started* (the paper's "–": the budget ran out before it); a started period
without a readable report scores 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .books import REPORT_FIELDS, UNIT_FIELDS, close_books
from .world import generate

#: how far a reported field may be from the answer
TOLERANCE = {name: (0.0 if name in UNIT_FIELDS else 0.5) for name in REPORT_FIELDS}


@dataclass(frozen=True)
class FieldScore:
    field: str
    reported: float | None
    truth: float
    ok: bool


@dataclass(frozen=True)
class PeriodScore:
    period: str
    started: bool
    #: the report's fields (empty: no readable report)
    fields: tuple[FieldScore, ...]
    #: why the period has no score beyond 0 ("" when it has a report)
    problem: str = ""

    @property
    def right(self) -> int:
        return sum(f.ok for f in self.fields)

    @property
    def fraction(self) -> float:
        return self.right / len(REPORT_FIELDS)

    @property
    def correct(self) -> bool:
        return self.right == len(REPORT_FIELDS)


def _number(value) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def score_report(period: str, report_path: Path, truth: dict, started: bool = True) -> PeriodScore:
    """One period: the report at ``report_path`` against ``truth`` (field -> answer)."""
    if not started:
        return PeriodScore(period, False, (), "not started")
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return PeriodScore(period, True, (), "no report")
    except (OSError, ValueError) as exc:
        return PeriodScore(period, True, (), f"the report is not JSON ({exc})")
    if not isinstance(report, dict):
        return PeriodScore(period, True, (), "the report is not a JSON object")
    fields = []
    for name in REPORT_FIELDS:
        value = _number(report.get(name))
        ok = value is not None and abs(value - truth[name]) <= TOLERANCE[name] + 1e-9
        fields.append(FieldScore(name, value, truth[name], ok))
    return PeriodScore(period, True, tuple(fields))


def score(workspace: Path, seed: int) -> list[PeriodScore]:
    """Every period of the run of ``seed`` whose workspace is ``workspace``, in order."""
    workspace = Path(workspace)
    inputs = workspace.parent / "inputs"     # the run's inputs folder (workspace.py), if it has one
    scores = []
    for close in close_books(generate(seed)):
        folder = workspace / "periods" / close.period
        started = (inputs / close.period).is_dir() if inputs.is_dir() else (folder / "inputs").is_dir()
        scores.append(score_report(close.period, folder / "close" / "report.json", close.report, started))
    return scores


def outcome(workspace: Path, seed: int, periods: int, turn_cap: int) -> dict:
    """The ``outcome`` event's fields of the run of ``seed`` over its first ``periods`` periods
    (what the run logs at its end, and what the audit re-derives from the workspace:
    ``workspace.evidence``)."""
    scored = score(workspace, seed)[:periods]
    out = [{"period": p.period, "started": p.started, "fraction": round(p.fraction, 6), "correct": p.correct,
            "right": p.right, "problem": p.problem} for p in scored]
    return {"protocol": "month-end-close", "seed": seed, "periods": out,
            "correct_periods": sum(p["correct"] for p in out), "turn_cap": turn_cap}
