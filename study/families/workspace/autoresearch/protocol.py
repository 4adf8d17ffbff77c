"""The AutoResearch protocol: its eight stages, the ledger's format and a run's plan.

The paper's protocol (section 5.3, appendix D.3): 25 trials over eight stages, each trial a
ledger row. A :class:`Plan` is how many trials each stage holds: :data:`FULL_PLAN` is the paper's
25; a test may run fewer (``Plan.uniform(1)``) through the same code. The plan a run follows is
written beside its stage-check script (``plan.json``), which reads it from there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable

from .stage_check import AXES, DECISIONS, LEDGER_FIELDS, LEDGER_NAME, STAGE_ORDER

#: stage -> (the trials the paper's protocol gives it, the CONFIG keys it tunes, what it is)
STAGES: dict[str, tuple[int, tuple[str, ...], str]] = {
    "baseline": (1, (), "run the template unchanged: the weak SGD baseline"),
    "scheduler": (3, ("learning_rate", "power_t"), "the learning-rate schedule"),
    "optimizer": (4, ("loss", "eta0", "average"), "the optimizer (loss, averaging) and its learning rate"),
    "regularization": (4, ("penalty", "alpha", "l1_ratio"), "the penalty and its strength"),
    "features": (4, ("features", "rbf_components", "rbf_gamma"), "feature augmentation"),
    "throughput": (3, ("epochs", "batch_size", "n_jobs"), "epochs, mini-batches (partial_fit) and parallel jobs"),
    "combination": (3, (), "combine what the earlier stages kept (any CONFIG keys)"),
    "confirmation": (3, ("seed",), "re-run the best configuration with other model seeds"),
}
assert tuple(STAGES) == STAGE_ORDER


@dataclass(frozen=True)
class Plan:
    """How many trials each stage holds, in the stages' order."""

    trials: tuple[tuple[str, int], ...]

    @classmethod
    def full(cls) -> "Plan":
        return cls(tuple((stage, count) for stage, (count, _, _) in STAGES.items()))

    @classmethod
    def uniform(cls, count: int) -> "Plan":
        """Every stage ``count`` trials but the baseline (always one), none above the paper's."""
        if count < 1:
            raise ValueError("a plan needs at least one trial per stage")
        return cls(tuple((stage, 1 if stage == "baseline" else min(count, full)) for stage, (full, _, _) in STAGES.items()))

    @property
    def total(self) -> int:
        return sum(count for _, count in self.trials)

    def count(self, stage: str) -> int:
        return dict(self.trials)[stage]

    def sequence(self) -> list[str]:
        """The stage of every row a complete ledger holds, in order."""
        return [stage for stage, count in self.trials for _ in range(count)]

    def to_json(self) -> str:
        return json.dumps({"stages": [{"stage": s, "axis": AXES[s], "trials": n} for s, n in self.trials]}, indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str) -> "Plan":
        data = json.loads(text)
        return cls(tuple((item["stage"], int(item["trials"])) for item in data["stages"]))


FULL_PLAN = Plan.full()


def stage_table(plan: Plan) -> str:
    """The Markdown table of the stages PROTOCOL.md and the prompts show."""
    lines = ["| # | stage | axis (the row's `axis`) | trials | CONFIG keys | what it tunes |", "| --- | --- | --- | --- | --- | --- |"]
    for number, (stage, count) in enumerate(plan.trials, 1):
        _, keys, what = STAGES[stage]
        shown = ", ".join(f"`{k}`" for k in keys) if keys else ("none" if stage == "baseline" else "any")
        lines.append(f"| {number} | `{stage}` | `{AXES[stage]}` | {count} | {shown} | {what} |")
    return "\n".join(lines)


def ledger_header() -> str:
    return "\t".join(LEDGER_FIELDS) + "\n"


def ledger_row(values: Iterable[object]) -> str:
    """One ledger line (the fields in LEDGER_FIELDS' order)."""
    return "\t".join(str(v) for v in values) + "\n"


__all__ = ["AXES", "DECISIONS", "FULL_PLAN", "LEDGER_FIELDS", "LEDGER_NAME", "Plan", "STAGES", "STAGE_ORDER", "ledger_header", "ledger_row", "stage_table"]
