"""The AutoResearch scorer: from a run's ledger and its workspace's git history alone.

:func:`score` reads ``ledger.tsv`` and asks git (a subprocess) about each row's candidate commit;
it applies the paper's row rules (appendix D.3), the same code the stage check runs
(:func:`stage_check.row_problems`), and measures the run:

- ``valid_rows``: rows that break no rule (of ``rows`` present; the plan requires ``required``);
- ``complete``: every row valid, and the rows' stages exactly the plan's in order (each stage
  its number of trials, none skipped, merged or added);
- ``best_accuracy``: the highest metric among the rows decided ``keep`` (None: no kept row with a
  numeric metric).

It never runs the training script and needs no FSM: the plain and FSM runs are scored alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from .protocol import FULL_PLAN, LEDGER_FIELDS, LEDGER_NAME, Plan
from .stage_check import as_row, read_ledger, row_problems


@dataclass(frozen=True)
class RowVerdict:
    position: int  # 1-based among the ledger's rows
    line: int  # the line of ledger.tsv
    trial: str
    stage: str
    decision: str
    metric: float | None
    #: (rule, what is wrong) for every rule the row breaks, in the rules' order; () = valid
    problems: tuple[tuple[str, str], ...]

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def rule(self) -> str | None:
        """The first rule the row breaks (None: valid)."""
        return self.problems[0][0] if self.problems else None


@dataclass(frozen=True)
class LedgerScore:
    rows: tuple[RowVerdict, ...]
    required: int
    complete: bool
    best_accuracy: float | None
    #: what stands between the ledger and a complete protocol ("" when complete)
    incomplete_because: str

    @property
    def valid_rows(self) -> int:
        return sum(row.valid for row in self.rows)

    @property
    def invalid_rows(self) -> int:
        return len(self.rows) - self.valid_rows


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def score(workspace: Path, plan: Plan = FULL_PLAN) -> LedgerScore:
    """Score the run whose workspace is ``workspace`` under ``plan`` (see the module docstring)."""
    workspace = Path(workspace)
    ledger = workspace / LEDGER_NAME
    if not ledger.is_file():
        return LedgerScore((), plan.total, False, None, f"no {LEDGER_NAME}")
    header, rows = read_ledger(ledger)
    verdicts = []
    for position, (line, fields) in enumerate(rows, 1):
        row = as_row(fields)
        verdicts.append(RowVerdict(position, line, row["trial"], row["stage"], row["decision"], _number(row["metric"]),
                                   tuple(row_problems(fields, workspace))))
    kept = [v.metric for v in verdicts if v.decision == "keep" and v.metric is not None]
    reasons = []
    if header is None or [h.strip() for h in header] != list(LEDGER_FIELDS):
        reasons.append("the ledger's header is not the protocol's")
    invalid = sum(not v.valid for v in verdicts)
    if invalid:
        reasons.append(f"{invalid} invalid row{'s' * (invalid != 1)}")
    if [v.stage for v in verdicts] != plan.sequence():
        reasons.append(f"the rows' stages are not the plan's {plan.total} in order")
    return LedgerScore(tuple(verdicts), plan.total, not reasons, max(kept) if kept else None, "; ".join(reasons))


def outcome(workspace: Path, plan: Plan = FULL_PLAN, seed: int | None = None) -> dict:
    """The ``outcome`` event's fields of the run whose workspace is ``workspace`` (what the run
    logs at its end, and what the audit re-derives from the workspace: ``workspace.evidence``)."""
    result = score(workspace, plan)
    rows = [{"trial": r.trial, "stage": r.stage, "decision": r.decision, "metric": r.metric, "valid": r.valid,
             "rule": r.rule, "problems": [list(p) for p in r.problems]} for r in result.rows]
    return {"protocol": "autoresearch", "seed": seed, "rows": rows, "valid_rows": result.valid_rows,
            "invalid_rows": result.invalid_rows, "required_rows": result.required, "complete": result.complete,
            "best_accuracy": result.best_accuracy, "incomplete_because": result.incomplete_because}
