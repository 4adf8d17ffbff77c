"""The preregistered analysis plan: ``preregistration/predictions.yaml`` read and checked.

The file's header documents its vocabulary. ``load_plan`` checks every reference (model keys,
comparison ids, metrics, operators) so that a typo fails here, naming the entry, and not as a
silent "not evaluable" later.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from study.errors import StudyError
from study.paths import prereg_dir
from study.protocol.yaml_file import read_yaml_file

PLAN_FILE = "predictions.yaml"

#: Comparison operators of the plan's clauses.
OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
#: Session metrics that clauses and comparisons may name.
METRICS = ("decided", "correct", "compliant", "fc", "compliance", "fc_w1", "fc_w2", "fc_w3",
           "fc_w4", "cost_usd")
KINDS = ("prediction", "falsification", "catch_up")


class PlanError(StudyError, ValueError):
    """predictions.yaml does not follow its documented vocabulary."""


@dataclass(frozen=True)
class ModelSpec:
    key: str
    name: str     # session_start.model
    label: str
    seeds: tuple[int, ...]


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a model key (None: the per-model comparison's model) and
    either one condition or the per-seed best of several."""

    model: str | None
    conditions: tuple[str, ...]
    best_of: bool


@dataclass(frozen=True)
class ComparisonSpec:
    id: str
    label: str
    metric: str
    a: Side
    b: Side
    seeds: tuple[int, ...] | None   # cross-model comparisons name their seeds
    in_table: bool

    @property
    def cross_model(self) -> bool:
        return self.seeds is not None


@dataclass(frozen=True)
class Plan:
    path: Path
    models: dict[str, ModelSpec]
    ablation_model: str
    ablation_seeds: tuple[int, ...]
    ablation_conditions: tuple[str, ...]
    ablation_rows: tuple[tuple[str, bool, bool], ...]   # condition, gates, stop gate
    comparisons: tuple[ComparisonSpec, ...]
    predictions: tuple[dict[str, Any], ...]

    def prediction_runs(self) -> Iterator[PredictionRun]:
        """Each prediction, in the plan's order, once per model it names (once with no model when
        it names none): the one walk over a prediction's models that the tables and power use."""
        for p in self.predictions:
            for key in prediction_models(p) or (None,):
                yield PredictionRun(p, key, self.models[key].name if key else None,
                                    self.models[key].label if "models" in p else None)

    def model_by_name(self, name: str) -> ModelSpec | None:
        return next((m for m in self.models.values() if m.name == name), None)

    def seeds_for(self, model_name: str, condition: str) -> tuple[int, ...] | None:
        """The seeds a model's condition is tabulated over; None (all) for unplanned models."""
        spec = self.model_by_name(model_name)
        if spec is None:
            return None
        if spec.key == self.ablation_model and condition in self.ablation_conditions:
            return self.ablation_seeds
        return spec.seeds

    def tabulates(self, model_name: str, condition: str, seed: int) -> bool:
        """Whether a session of the model's condition on ``seed`` is in the per-model tables
        (Tables 1, 2 and 8): its seed is among :meth:`seeds_for`, or the model is unplanned."""
        seeds = self.seeds_for(model_name, condition)
        return seeds is None or seed in seeds

    def label(self, model_name: str) -> str:
        spec = self.model_by_name(model_name)
        return spec.label if spec else model_name

    def model_order(self, names) -> list[str]:
        """Model names: the plan's models in the plan's order first, then the others sorted."""
        planned = [m.name for m in self.models.values() if m.name in set(names)]
        return planned + sorted(set(names) - set(planned))


def _need(entry: dict, key: str, where: str) -> Any:
    if key not in entry:
        raise PlanError(f"{where}: missing '{key}'")
    return entry[key]


def _side(raw: Any, where: str, models: dict[str, ModelSpec], cross: bool) -> Side:
    if isinstance(raw, str):
        if cross:
            raise PlanError(f"{where}: a cross-model side needs {{model: …, condition: …}}")
        return Side(None, (raw,), False)
    if not isinstance(raw, dict):
        raise PlanError(f"{where}: a side is a condition or a mapping, got {raw!r}")
    model = raw.get("model")
    if cross and model not in models:
        raise PlanError(f"{where}: model {model!r} is not one of {sorted(models)}")
    if "best_of" in raw:
        return Side(model, tuple(raw["best_of"]), True)
    return Side(model, (_need(raw, "condition", where),), False)


def _check_clause(clause: dict, where: str, ids: set[str]) -> None:
    if "seeds_where" in clause:
        sw = clause["seeds_where"]
        tests = sw.get("all") or sw.get("any")
        if not tests or not sw.get("conditions"):
            raise PlanError(f"{where}: seeds_where needs conditions and all or any")
        for metric, op, _value in tests:
            if metric not in METRICS or op not in OPS:
                raise PlanError(f"{where}: unknown metric {metric!r} or operator {op!r}")
        if "at_least" not in clause:
            raise PlanError(f"{where}: seeds_where needs at_least (a number or all)")
    elif "contrast" in clause:
        if clause["contrast"] not in ids:
            raise PlanError(f"{where}: unknown comparison {clause['contrast']!r}")
        for key in ("mean", "abs_mean"):
            if key in clause and clause[key][0] not in OPS:
                raise PlanError(f"{where}: unknown operator {clause[key][0]!r}")
    elif "contrast_pair" in clause:
        pair = clause["contrast_pair"]
        if pair.get("left") not in ids or pair.get("right") not in ids or pair.get("op") not in OPS:
            raise PlanError(f"{where}: contrast_pair needs known left, right and op")
    else:
        raise PlanError(f"{where}: a clause is seeds_where, contrast or contrast_pair")


def prediction_models(p: Mapping[str, Any]) -> tuple[str, ...]:
    """The model keys a prediction names (``model: k`` or ``models: [k, …]``); () for none."""
    if "model" in p:
        return (p["model"],)
    return tuple(p.get("models") or ())


class PredictionRun(NamedTuple):
    """One evaluation of a prediction: for one model it names, or for none."""

    prediction: dict[str, Any]
    key: str | None              # the model's key in the plan
    model: str | None            # its name (``session_start.model``)
    label: str | None            # the row label of a multi-model entry (None for a single-model one)


def load_plan(path: Path | None = None) -> Plan:
    """Read and check the plan (default: ``preregistration/predictions.yaml``)."""
    path = Path(path) if path else prereg_dir() / PLAN_FILE
    raw = read_yaml_file(path, PlanError, missing="{path}: no prediction plan here; pass --plan FILE.",
                         invalid="{path}: not valid YAML (line {line}): {message}")
    where = str(path)
    models = {k: ModelSpec(k, str(_need(v, "name", f"{where}: models.{k}")), v.get("label", k),
                           tuple(_need(v, "seeds", f"{where}: models.{k}")))
              for k, v in _need(raw, "models", where).items()}
    abl = _need(raw, "ablation", where)
    if abl["model"] not in models:
        raise PlanError(f"{where}: ablation.model {abl['model']!r} is not one of {sorted(models)}")
    comparisons: list[ComparisonSpec] = []
    for group, cross in (("per_model", False), ("cross_model", True)):
        for i, c in enumerate(_need(raw, "comparisons", where).get(group, [])):
            w = f"{where}: comparisons.{group}[{i}]"
            if c.get("metric") not in METRICS:
                raise PlanError(f"{w}: metric {c.get('metric')!r} is not one of {METRICS}")
            comparisons.append(ComparisonSpec(
                id=_need(c, "id", w), label=_need(c, "label", w), metric=c["metric"],
                a=_side(_need(c, "a", w), w, models, cross), b=_side(_need(c, "b", w), w, models, cross),
                seeds=tuple(_need(c, "seeds", w)) if cross else None, in_table=c.get("table", True)))
    ids = {c.id for c in comparisons}
    if len(ids) != len(comparisons):
        raise PlanError(f"{where}: comparison ids must be unique")
    predictions = tuple(_need(raw, "predictions", where))
    for p in predictions:
        w = f"{where}: prediction {p.get('id', '?')}"
        if p.get("kind") not in KINDS:
            raise PlanError(f"{w}: kind must be one of {KINDS}")
        for key in prediction_models(p):
            if key not in models:
                raise PlanError(f"{w}: model {key!r} is not one of {sorted(models)}")
        if p["kind"] == "catch_up":
            if p.get("contrast") not in ids:
                raise PlanError(f"{w}: unknown comparison {p.get('contrast')!r}")
            continue
        clauses = list(p.get("all", [])) + list(p.get("any", []))
        for regime_clauses in (p.get("by_regime") or {}).values():
            clauses += regime_clauses
        if not clauses:
            raise PlanError(f"{w}: needs clauses under all, any or by_regime")
        for clause in clauses:
            _check_clause(clause, w, ids)
    return Plan(path=path, models=models, ablation_model=abl["model"],
                ablation_seeds=tuple(abl["seeds"]), ablation_conditions=tuple(abl["conditions"]),
                ablation_rows=tuple((r["condition"], bool(r["gates"]), bool(r["stop_gate"]))
                                    for r in abl["rows"]),
                comparisons=tuple(comparisons), predictions=predictions)
