"""The effect model of ``study power``: what a researcher expects each session to look like.

A YAML file (see docs/power.md and examples/effects/paper_table1.yaml)::

    version: 1
    accounts: 200            # accounts per session: counts lie in 0..accounts, windows in 0..50
    correlation: 0.3         # between the conditions of one model on the same seed (0 to 1)
    models:
      haiku:                 # a model key of predictions.yaml (or its session model name)
        correlation: 0.5     # optional, overrides the default for this model
        conditions:
          FSM:
            fc: {mean: 139.2, sd: 33.8}       # normal, clipped to the metric's range
            decided: 200                      # a constant
            compliance: {values: [0.8, 0.98, 1.0]}   # explicit per-seed values, drawn evenly
          Remind-loop:
            seeds:                            # whole sessions, one row per seed, resampled
              2: {fc: 12, decided: 200, compliance: 0.3}
              3: {fc: 160, decided: 200, compliance: 0.97}

Each session has one latent standard normal; every metric of the session is a monotone function
of it (a normal metric is mean + sd * latent, rounded for counts; a ``values`` metric is the
latent's quantile among the sorted values), so within a session metrics rise and fall together.
The latents of one model's conditions on the same seed have the model's correlation (a shared
seed factor). ``seeds`` rows are resampled as whole seeds: every ``seeds`` condition of a model
takes the same source seed, so a paired design keeps the pairing of the data it came from; this
is also what ``--from-sessions`` builds from a sessions folder. Every problem is reported with
its file and line, and what to write instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from study.errors import StudyError
from study.protocol.plan import METRICS, Plan
from study.protocol.predictions import Contrast, SeedsWhere
from study.protocol.yaml_lines import LineList, LineMap, YamlError, load_yaml_with_lines

from ..scoring import WINDOW

COUNTS = ("decided", "correct", "compliant", "fc")


class EffectsError(StudyError, ValueError):
    """The effect model cannot be used; the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Marginal:
    """One metric's distribution: normal (mean, sd) or explicit per-seed ``values``."""

    mean: float = 0.0
    sd: float = 0.0
    values: tuple[float, ...] = ()


@dataclass(frozen=True)
class ConditionEffect:
    metrics: dict[str, Marginal] = field(default_factory=dict)
    rows: dict[int, dict[str, float | None]] = field(default_factory=dict)   # per-seed sessions
    line: int = 0

    @property
    def names(self) -> set[str]:
        return set(next(iter(self.rows.values()))) if self.rows else set(self.metrics)


@dataclass(frozen=True)
class ModelEffect:
    name: str            # the session model name the plan uses
    correlation: float
    conditions: dict[str, ConditionEffect]
    line: int = 0


@dataclass(frozen=True)
class EffectModel:
    source: str          # what it was read from, for titles
    accounts: int
    models: dict[str, ModelEffect]   # by session model name
    simulated: bool = False           # made from simulated sessions (outputs say SIMULATED)

    def bounds(self, metric: str) -> tuple[float, float]:
        if metric in COUNTS:
            return 0.0, float(self.accounts)
        if metric.startswith("fc_w"):
            return 0.0, float(WINDOW)
        if metric == "compliance":
            return 0.0, 1.0
        return 0.0, float("inf")


def _err(path: Path, line: int | None, message: str) -> EffectsError:
    return EffectsError(f"{path}:{line}: {message}" if line else f"{path}: {message}")


def _number(raw: Any, path: Path, line: int, what: str, *, none_ok: bool = False) -> float | None:
    if raw is None and none_ok:
        return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise _err(path, line, f"{what} must be a number, got {raw!r}")
    if not math.isfinite(raw):
        raise _err(path, line, f"{what} must be a finite number, got {raw!r}")
    return float(raw)


def _keys(m: Any, allowed: tuple[str, ...], path: Path, line: int, what: str) -> LineMap:
    if not isinstance(m, LineMap):
        raise _err(path, line, f"{what} must be a mapping (key: value lines)")
    for key in m:
        if key not in allowed:
            raise _err(path, m.key_line(key), f"unknown key {key!r} in {what}; use one of {', '.join(allowed)}")
    return m


def _metric_name(name: Any, path: Path, line: int) -> str:
    if name not in METRICS:
        raise _err(path, line, f"unknown metric {name!r}; use one of {', '.join(METRICS)}")
    return name


def _marginal(raw: Any, model: EffectModel, metric: str, path: Path, line: int) -> Marginal:
    lo, hi = model.bounds(metric)
    where = f"{metric}"
    if not isinstance(raw, LineMap):
        value = _number(raw, path, line, f"{where} (a constant, {{mean, sd}} or {{values: [...]}})")
        m = Marginal(mean=value)
    elif "values" in raw:
        _keys(raw, ("values",), path, line, f"{where} with values")
        vals = raw["values"]
        if not isinstance(vals, LineList) or not vals:
            raise _err(path, raw.key_line("values"), f"{where}: values must be a non-empty list of numbers")
        m = Marginal(values=tuple(sorted(_number(v, path, vals.item_line(i), f"{where} values[{i}]")
                                         for i, v in enumerate(vals))))
    else:
        _keys(raw, ("mean", "sd"), path, line, where)
        if "mean" not in raw:
            raise _err(path, line, f"{where}: give mean (and sd), or values: [...]")
        m = Marginal(mean=_number(raw["mean"], path, raw.key_line("mean"), f"{where} mean"),
                     sd=_number(raw.get("sd", 0), path, raw.key_line("sd"), f"{where} sd"))
        if m.sd < 0:
            raise _err(path, raw.key_line("sd"), f"{where}: sd must be 0 or more, got {m.sd:g}")
    for v in m.values or (m.mean,):
        if not lo <= v <= hi:
            raise _err(path, line, f"{where}: {v:g} is outside {lo:g}..{hi:g}; write a value in that range")
    return m


def _condition(raw: Any, model: EffectModel, path: Path, line: int, what: str) -> ConditionEffect:
    if isinstance(raw, LineMap) and "seeds" in raw:
        _keys(raw, ("seeds",), path, line, f"{what} (a condition given by seeds: has no other keys)")
        seeds = _keys(raw["seeds"], tuple(raw["seeds"]) if isinstance(raw["seeds"], dict) else (),
                      path, raw.key_line("seeds"), f"{what} seeds")
        rows: dict[int, dict[str, float | None]] = {}
        for seed, row in seeds.items():
            sl = seeds.key_line(seed)
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise _err(path, sl, f"{what}: a seed is a whole number, got {seed!r}")
            row = _keys(row, METRICS, path, sl, f"{what} seed {seed}")
            rows[seed] = {_metric_name(k, path, row.key_line(k), ):
                          _number(v, path, row.key_line(k), f"{what} seed {seed} {k}", none_ok=True)
                          for k, v in row.items()}
        if not rows:
            raise _err(path, raw.key_line("seeds"), f"{what}: seeds needs at least one seed")
        if len({frozenset(r) for r in rows.values()}) > 1:
            raise _err(path, raw.key_line("seeds"), f"{what}: every seed must give the same metrics")
        return ConditionEffect(rows=rows, line=line)
    raw = _keys(raw, METRICS + ("seeds",), path, line, what)
    return ConditionEffect(metrics={k: _marginal(v, model, k, path, raw.key_line(k)) for k, v in raw.items()},
                           line=line)


def _correlation(raw: LineMap, default: float, path: Path) -> float:
    if "correlation" not in raw:
        return default
    rho = _number(raw["correlation"], path, raw.key_line("correlation"), "correlation")
    if not 0 <= rho <= 1:
        raise _err(path, raw.key_line("correlation"), f"correlation must lie in 0..1, got {rho:g}")
    return rho


def load_effects(path: Path, plan: Plan, conditions: tuple[str, ...]) -> EffectModel:
    """Read and check an effect model; ``conditions`` are the condition names it may use."""
    path = Path(path)
    try:
        raw = load_yaml_with_lines(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EffectsError(f"{path}: no such file; pass --effects FILE (e.g. examples/effects/paper_table1.yaml)") from None
    except YamlError as exc:
        raise _err(path, exc.line, exc.message) from None
    raw = _keys(raw, ("version", "title", "accounts", "correlation", "models"), path, 1, "the effect model")
    if raw.get("version") != 1:
        raise _err(path, raw.key_line("version"), "write version: 1 (the only version)")
    accounts = raw.get("accounts", 200)
    if isinstance(accounts, bool) or not isinstance(accounts, int) or accounts < 1:
        raise _err(path, raw.key_line("accounts"), f"accounts must be a whole number >= 1, got {accounts!r}")
    default = _correlation(raw, 0.0, path)
    shell = EffectModel(str(path), accounts, {})
    models_raw = _keys(raw.get("models"), tuple(raw.get("models") or ()), path,
                       raw.key_line("models"), "models")
    names = {**{m.name: m.name for m in plan.models.values()}, **{k: m.name for k, m in plan.models.items()}}
    models: dict[str, ModelEffect] = {}
    for key, body in models_raw.items():
        ml = models_raw.key_line(key)
        if key not in names:
            raise _err(path, ml, f"model {key!r} is not in the plan; use a key or name of "
                       f"{', '.join(f'{k} ({m.name})' for k, m in plan.models.items())}")
        if names[key] in models:
            raise _err(path, ml, f"model {key!r} is {names[key]}, described above already; keep one")
        body = _keys(body, ("correlation", "conditions"), path, ml, f"model {key}")
        conds = _keys(body.get("conditions"), tuple(conditions), path, body.key_line("conditions"),
                      f"model {key} conditions")
        if not conds:
            raise _err(path, ml, f"model {key}: give its conditions")
        models[names[key]] = ModelEffect(
            name=names[key], correlation=_correlation(body, default, path), line=ml,
            conditions={c: _condition(v, shell, path, conds.key_line(c), f"{key} {c}") for c, v in conds.items()})
    if not models:
        raise _err(path, raw.key_line("models") or 1, "models: describe at least one model")
    model = EffectModel(str(path), accounts, models)
    check_requirements(model, plan, path)
    return model


def from_sessions(sessions: pl.DataFrame, root: Path, *, simulated: bool) -> EffectModel:
    """An effect model that resamples the seeds of a scored corpus (``Corpus.sessions``)."""
    metrics = [m for m in METRICS if m in sessions.columns]
    models: dict[str, dict[str, ConditionEffect]] = {}
    for r in sessions.sort(["model", "condition", "seed"]).iter_rows(named=True):
        cond = models.setdefault(r["model"], {}).setdefault(r["condition"], ConditionEffect())
        cond.rows[int(r["seed"])] = {m: None if r[m] is None else float(r[m]) for m in metrics}
    accounts = int(sessions["accounts"].max()) if "accounts" in sessions.columns and len(sessions) else 200
    return EffectModel(f"sessions in {root}", accounts,
                       {name: ModelEffect(name, 0.0, conds) for name, conds in models.items()},
                       simulated=simulated)


def requirements(plan: Plan, model_name: str) -> dict[tuple[str, str, str], str]:
    """(model, condition, metric) -> the plan entry that reads it, for one model's entries
    and the comparisons Table 7 shows."""
    specs = {c.id: c for c in plan.comparisons}
    key = next((k for k, m in plan.models.items() if m.name == model_name), None)
    need: dict[tuple[str, str, str], str] = {}

    def comparison(cid: str, who: str) -> None:
        spec = specs[cid]
        for side in (spec.a, spec.b):
            name = plan.models[side.model].name if side.model else model_name
            for c in side.conditions:
                need.setdefault((name, c, spec.metric), who)

    for spec in plan.comparisons:
        if spec.in_table:
            comparison(spec.id, f"comparison {spec.id}")
    for p in plan.predictions:
        if key not in p.models:
            if p.catch_up is not None:
                comparison(p.catch_up.comparison, p.id)
            continue
        if p.regime is not None:
            need.setdefault((model_name, p.regime.condition, p.regime.metric), p.id)
        for clause in p.every_clause():
            if isinstance(clause, SeedsWhere):
                for c in clause.conditions:
                    for test in clause.tests:
                        need.setdefault((model_name, c, test.metric), p.id)
            elif isinstance(clause, Contrast):
                comparison(clause.comparison, p.id)
            else:
                comparison(clause.left, p.id)
                comparison(clause.right, p.id)
    return need


def check_requirements(model: EffectModel, plan: Plan, path: Path) -> None:
    """A condition the model describes must give every metric the plan reads of it."""
    for name in model.models:
        for (m, c, metric), who in sorted(requirements(plan, name).items()):
            cond = model.models.get(m, ModelEffect(m, 0, {})).conditions.get(c)
            if cond is not None and metric not in cond.names:
                raise _err(path, cond.line, f"{m} {c}: {who} of the plan reads its {metric}; add {metric}")
