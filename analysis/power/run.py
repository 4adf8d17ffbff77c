"""``study power``'s computation: verdict probabilities and test power for each number of seeds.

With ``n`` seeds, every model of the plan, the ablation and the cross-model comparisons get the
same ``n`` simulated seeds (the plan's structure, scaled to ``n``); thresholds the plan writes as
counts (``at_least: 6``) stay counts, fractions and ``all`` scale with ``n``, exactly as Table 6
would read a corpus of ``n`` seeds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from study.protocol.plan import Plan

from .. import verdicts as vr
from .effects import EffectModel
from .paired_tests import sign_power, wilcoxon_power
from .simulate import Draws

ALPHA = 0.05


@dataclass(frozen=True)
class VerdictRow:
    id: str
    model: str | None          # model label of a per-model row of a multi-model entry
    text: str
    verdict: str
    probability: tuple[float, ...]   # one per seed count
    owner: str | None = None   # model label of the entry (or of this row), None for cross-model


@dataclass(frozen=True)
class TestRow:
    group: str                 # model label, or "Cross-model"
    comparison: str            # the comparison's label
    id: str
    test: str                  # "Sign" or "Wilcoxon"
    power: tuple[float, ...]


@dataclass
class PowerResult:
    effects: EffectModel
    seeds: tuple[int, ...]
    draws: int
    rng_seed: int
    alpha: float
    verdicts: list[VerdictRow] = field(default_factory=list)
    tests: list[TestRow] = field(default_factory=list)

    def probability(self, pid: str, verdict: str, seeds: int, model: str | None = None) -> float:
        row = next(r for r in self.verdicts if r.id == pid and r.verdict == verdict and r.model == model)
        return row.probability[self.seeds.index(seeds)]

    def power(self, cid: str, test: str, seeds: int, group: str | None = None) -> float:
        row = next(r for r in self.tests if r.id == cid and r.test == test
                   and (group is None or r.group == group))
        return row.power[self.seeds.index(seeds)]


def run_power(effects: EffectModel, plan: Plan, seeds: list[int], *, draws: int = 10_000,
              rng_seed: int = 0, alpha: float = ALPHA, tests: bool = True) -> PowerResult:
    """Verdict probabilities of every entry of the plan, and (``tests``) the power of the
    sign and Wilcoxon tests of every comparison Table 7 shows, for each number of seeds."""
    seeds = sorted(set(seeds))
    sim = Draws(effects, plan, draws=draws, max_seeds=max(seeds), rng_seed=rng_seed)
    sources = [sim.source(n) for n in seeds]
    out = PowerResult(effects, tuple(seeds), draws, rng_seed, alpha)
    for p, key, model, label in plan.prediction_runs():
        owner = plan.models[key].label if key else None     # the model the row belongs to
        counts = [np.bincount(vr.verdict_index(p, model, src), minlength=len(vr.VERDICTS[p.kind]))
                  for src in sources]
        for i, verdict in enumerate(vr.VERDICTS[p.kind]):
            probs = tuple(float(c[i]) / draws for c in counts)
            if verdict == vr.NOT_EVALUABLE and not any(probs):
                continue
            out.verdicts.append(VerdictRow(p.id, label, p.text, verdict, probs, owner=owner))
    jobs = [(plan.label(m), spec, m) for m in plan.model_order(list(effects.models))
            for spec in plan.comparisons if tests and spec.in_table and not spec.cross_model]
    jobs += [("Cross-model", spec, None) for spec in plan.comparisons
             if tests and spec.in_table and spec.cross_model]
    for group, spec, model in jobs:
        diffs = [src.differences(spec.id, model) for src in sources]
        if any(d is None for d in diffs):
            continue
        for test, power in (("Sign", sign_power), ("Wilcoxon", wilcoxon_power)):
            out.tests.append(TestRow(group, spec.label, spec.id, test,
                                     tuple(power(d, alpha) for d in diffs)))
    return out
