"""Simulated per-seed session metrics, drawn from an effect model, as a source of the verdict rules.

``Draws`` holds, for one effect model, ``draws`` simulated studies of ``max_seeds`` seeds each;
``Draws.source(n)`` is the source ``analysis.verdicts`` reads for a study of the first ``n``
seeds (the same draws serve every seed count: common random numbers, so the curves over the
number of seeds are smooth, and a study of n seeds is the same whatever other counts were asked
for). Everything is generated lazily per (model, condition, metric) from
generators seeded by (rng seed, model, condition), so a result does not depend on which
predictions asked first, and reruns give identical numbers.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np
from scipy.special import ndtr

from study.protocol.plan import Plan

from .effects import COUNTS, ConditionEffect, EffectModel, Marginal


def _key(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


class Draws:
    def __init__(self, effects: EffectModel, plan: Plan, *, draws: int, max_seeds: int, rng_seed: int):
        self.effects, self.plan = effects, plan
        self.draws, self.max_seeds, self.rng_seed = draws, max_seeds, rng_seed
        self._latent: dict[tuple[str, str], np.ndarray] = {}
        self._metric: dict[tuple[str, str, str], np.ndarray] = {}

    def _normal(self, *key: str) -> np.ndarray:
        rng = np.random.default_rng([self.rng_seed, *(_key(k) for k in key)])
        # seed by seed: the first n seeds are the same whatever the largest count asked for
        return rng.standard_normal((self.max_seeds, self.draws)).T

    def latent(self, model: str, condition: str) -> np.ndarray:
        """The sessions' latent normals: sqrt(rho) * seed factor + sqrt(1 - rho) * own."""
        if (model, condition) not in self._latent:
            rho = self.effects.models[model].correlation
            z = np.sqrt(1 - rho) * self._normal(model, condition)
            if rho > 0:
                z = z + np.sqrt(rho) * self._normal(model, "")
            self._latent[(model, condition)] = z
        return self._latent[(model, condition)]

    def _rows(self, model: str, cond: ConditionEffect, metric: str) -> np.ndarray:
        """Whole seeds resampled: one source seed per (draw, seed) for all of the model's
        ``seeds`` conditions, taken from the seed factor; a condition without that seed takes
        the same quantile of its own seeds."""
        union = sorted({s for c in self.effects.models[model].conditions.values() for s in c.rows})
        u = ndtr(self._normal(model, ""))
        pick = np.minimum((u * len(union)).astype(int), len(union) - 1)
        own = sorted(cond.rows)
        table = np.array([np.nan if cond.rows[s][metric] is None else cond.rows[s][metric] for s in own])
        at = {s: i for i, s in enumerate(own)}
        fallback = np.minimum((u * len(own)).astype(int), len(own) - 1)
        index = np.array([at.get(s, -1) for s in union])[pick]
        return table[np.where(index >= 0, index, fallback)]

    def _marginal(self, model: str, condition: str, metric: str, m: Marginal) -> np.ndarray:
        z = self.latent(model, condition)
        if m.values:
            vals = np.asarray(m.values)
            return vals[np.minimum((ndtr(z) * len(vals)).astype(int), len(vals) - 1)]
        lo, hi = self.effects.bounds(metric)
        x = np.clip(m.mean + m.sd * z, lo, hi)
        return np.rint(x) if metric in COUNTS or metric.startswith("fc_w") else x

    def metric(self, model: str, condition: str, metric: str) -> np.ndarray:
        """(draws, max_seeds) values; NaN for the compliance of a session that decided nothing."""
        key = (model, condition, metric)
        if key not in self._metric:
            cond = self.effects.models[model].conditions[condition]
            if cond.rows:
                x = self._rows(model, cond, metric)
            else:
                x = self._marginal(model, condition, metric, cond.metrics[metric])
                if metric == "compliance" and "decided" in cond.metrics:
                    x = np.where(self.metric(model, condition, "decided") == 0, np.nan, x)
            self._metric[key] = x
        return self._metric[key]

    def has(self, model: str, condition: str, metric: str | None = None) -> bool:
        m = self.effects.models.get(model)
        cond = m.conditions.get(condition) if m else None
        return cond is not None and (metric is None or metric in cond.names)

    def source(self, seeds: int) -> "SimulatedSource":
        if not 1 <= seeds <= self.max_seeds:
            raise ValueError(f"seeds must lie in 1..{self.max_seeds}, got {seeds}")
        return SimulatedSource(self, seeds)


class _Metrics(Mapping):
    def __init__(self, draws: Draws, model: str, condition: str, seeds: int):
        self.d, self.model, self.condition, self.seeds = draws, model, condition, seeds

    def __getitem__(self, metric: str) -> np.ndarray:
        if not self.d.has(self.model, self.condition, metric):
            raise KeyError(metric)
        return self.d.metric(self.model, self.condition, metric)[:, : self.seeds]

    def __iter__(self):
        return iter(self.d.effects.models[self.model].conditions[self.condition].names)

    def __len__(self) -> int:
        return len(self.d.effects.models[self.model].conditions[self.condition].names)


class SimulatedSource:
    """The first ``seeds`` seeds of every draw, for ``analysis.verdicts``' rules."""

    def __init__(self, draws: Draws, seeds: int):
        self.d, self.seeds, self.draws = draws, seeds, draws.draws
        self.specs = {c.id: c for c in draws.plan.comparisons}

    def has_model(self, model: str) -> bool:
        return model in self.d.effects.models

    def seed_metrics(self, model: str, condition: str) -> _Metrics | None:
        return _Metrics(self.d, model, condition, self.seeds) if self.d.has(model, condition) else None

    def side(self, model: str, conditions: tuple[str, ...], best_of: bool, metric: str) -> np.ndarray | None:
        if not all(self.d.has(model, c, metric) for c in conditions):
            return None
        got = [self.d.metric(model, c, metric)[:, : self.seeds] for c in conditions]
        return np.max(np.stack(got), axis=0) if best_of else got[0]

    def differences(self, comparison: str, model: str | None) -> np.ndarray | None:
        """Side a minus side b per seed (a best_of side: the highest of its conditions)."""
        spec = self.specs[comparison]
        models = self.d.plan.models
        ma = models[spec.a.model].name if spec.cross_model else model
        mb = models[spec.b.model].name if spec.cross_model else model
        if ma is None or mb is None:
            return None
        a = self.side(ma, spec.a.conditions, spec.a.best_of, spec.metric)
        b = self.side(mb, spec.b.conditions, spec.b.best_of, spec.metric)
        return None if a is None or b is None else a - b
