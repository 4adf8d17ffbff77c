"""The plan's paired comparisons computed on a corpus (the paper's Table 7).

A per-model comparison is computed for every model in the corpus over the seeds the plan gives
that model (every seed it has, for a model the plan does not name); a cross-model comparison
over the seeds it names. A seed enters when both sides have a session for it; a ``best_of``
side needs every listed condition on that seed and takes their highest value (the conservative
contrast against each seed's best baseline).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from study.protocol.plan import ComparisonSpec, Plan, Side

from .statistics import Paired, paired_many

Values = dict[tuple[str, str, int], dict]


@dataclass(frozen=True)
class Comparison:
    spec: ComparisonSpec
    model: str | None          # session model name for per-model comparisons, None for cross
    paired: Paired | None      # None when no seed has both sides
    mean_a: float | None
    mean_b: float | None
    planned_seeds: tuple[int, ...] | None   # what the plan expects (None: unplanned model)

    @property
    def complete(self) -> bool:
        """True if every planned seed entered (always false without a plan's seed list)."""
        return (self.paired is not None and self.planned_seeds is not None
                and set(self.paired.seeds) == set(self.planned_seeds))


def session_values(sessions: pl.DataFrame) -> Values:
    """(model, condition, seed) -> the session's row."""
    return {(r["model"], r["condition"], r["seed"]): r for r in sessions.iter_rows(named=True)}


def side_value(values: Values, model: str, side: Side, seed: int, metric: str) -> float | None:
    """The side's value on one seed, or None if a session it needs is missing."""
    got = [values.get((model, c, seed), {}).get(metric) for c in side.conditions]
    if any(v is None for v in got):
        return None
    return max(got) if side.best_of else got[0]


def _pairs(values: Values, spec: ComparisonSpec, model_a: str, model_b: str,
           seeds: list[int]) -> tuple[list[int], list[float], list[float]]:
    kept, xa, xb = [], [], []
    for seed in seeds:
        va = side_value(values, model_a, spec.a, seed, spec.metric)
        vb = side_value(values, model_b, spec.b, seed, spec.metric)
        if va is not None and vb is not None:
            kept.append(seed)
            xa.append(float(va))
            xb.append(float(vb))
    return kept, xa, xb


def compute_comparisons(sessions: pl.DataFrame, plan: Plan) -> list[Comparison]:
    """Every comparison of the plan that applies to this corpus, in table order."""
    values = session_values(sessions)
    all_seeds = sorted({k[2] for k in values})
    jobs: list[tuple[ComparisonSpec, str | None, list[int], list[float], list[float], tuple | None]] = []
    for model in plan.model_order(sessions["model"].unique().to_list()):
        planned = plan.model_by_name(model)
        seeds = list(planned.seeds) if planned else all_seeds
        for spec in plan.comparisons:
            if not spec.cross_model:
                kept, xa, xb = _pairs(values, spec, model, model, seeds)
                jobs.append((spec, model, kept, xa, xb, planned.seeds if planned else None))
    for spec in plan.comparisons:
        if spec.cross_model:
            ma, mb = plan.models[spec.a.model].name, plan.models[spec.b.model].name
            kept, xa, xb = _pairs(values, spec, ma, mb, list(spec.seeds))
            jobs.append((spec, None, kept, xa, xb, spec.seeds))
    with_data = [j for j in jobs if j[2]]
    paired = iter(paired_many([(tuple(j[2]), np.subtract(j[3], j[4])) for j in with_data]))
    out = []
    for spec, model, kept, xa, xb, planned_seeds in jobs:
        out.append(Comparison(spec=spec, model=model, paired=next(paired) if kept else None,
                              mean_a=float(np.mean(xa)) if kept else None,
                              mean_b=float(np.mean(xb)) if kept else None,
                              planned_seeds=planned_seeds))
    return out


def index(comparisons: list[Comparison]) -> dict[tuple[str, str | None], Comparison]:
    """(comparison id, model name or None) -> comparison."""
    return {(c.spec.id, c.model): c for c in comparisons}
