"""The preregistered analysis plan: ``preregistration/predictions.yaml`` read, checked and typed.

The file's header documents its vocabulary. ``load_plan`` checks every reference (model keys,
comparison ids, metrics, operators) so that a typo fails here, naming the file and the line of
the entry, and not as a silent "not evaluable" later. The predictions are typed in
``study.protocol.predictions``; :meth:`Plan.prediction_runs` is the one walk over their models.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from study.paths import prereg_dir

from .predictions import KINDS, METRICS, OPS, PlanError, Prediction, read_prediction
from .yaml_file import read_yaml_file
from .yaml_lines import LineList, LineMap

__all__ = ["KINDS", "METRICS", "OPS", "PLAN_FILE", "ComparisonSpec", "ModelSpec", "Plan", "PlanError",
           "PredictionRun", "Side", "load_plan"]

PLAN_FILE = "predictions.yaml"


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
    predictions: tuple[Prediction, ...]

    def prediction_runs(self) -> Iterator[PredictionRun]:
        """Each prediction, in the plan's order, once per model it names (once with no model when
        it names none): the one walk over a prediction's models that the tables and power use."""
        for p in self.predictions:
            for key in p.models or (None,):
                yield PredictionRun(p, key, self.models[key].name if key else None,
                                    self.models[key].label if p.per_model_rows else None)

    @cached_property
    def _by_name(self) -> dict[str, ModelSpec]:
        """Each model by its ``session_start.model`` name (the first, as the plan lists them)."""
        found: dict[str, ModelSpec] = {}
        for m in self.models.values():
            found.setdefault(m.name, m)
        return found

    def model_by_name(self, name: str) -> ModelSpec | None:
        return self._by_name.get(name)

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


class PredictionRun(NamedTuple):
    """One evaluation of a prediction: for one model it names, or for none."""

    prediction: Prediction
    key: str | None              # the model's key in the plan
    model: str | None            # its name (``session_start.model``)
    label: str | None            # the row label of a multi-model entry (None for a single-model one)


def _mapping(raw: Any, path: Path, line: int, what: str) -> LineMap:
    if not isinstance(raw, LineMap):
        raise PlanError.at(path, line, f"{what} must be a mapping, got {raw!r}")
    return raw


def _need(m: LineMap, key: str, path: Path, what: str) -> Any:
    if key not in m:
        raise PlanError.at(path, m.line, f"{what}: missing '{key}'")
    return m[key]


def _list(m: LineMap, key: str, path: Path, what: str) -> LineList:
    raw = _need(m, key, path, what)
    if not isinstance(raw, LineList):
        raise PlanError.at(path, m.key_line(key), f"{what}: '{key}' must be a list, got {raw!r}")
    return raw


def _side(raw: Any, path: Path, line: int, what: str, models: dict[str, ModelSpec], cross: bool) -> Side:
    if isinstance(raw, str):
        if cross:
            raise PlanError.at(path, line, f"{what}: a cross-model side needs {{model: …, condition: …}}")
        return Side(None, (raw,), False)
    if not isinstance(raw, LineMap):
        raise PlanError.at(path, line, f"{what}: a side is a condition or a mapping, got {raw!r}")
    model = raw.get("model")
    if cross and model not in models:
        raise PlanError.at(path, raw.key_line("model"), f"{what}: model {model!r} is not one of {sorted(models)}")
    if "best_of" in raw:
        return Side(model, tuple(_list(raw, "best_of", path, what)), True)
    return Side(model, (_need(raw, "condition", path, what),), False)


def _models(raw: LineMap, path: Path) -> dict[str, ModelSpec]:
    block = _mapping(_need(raw, "models", path, "the plan"), path, raw.key_line("models"), "models")
    models = {}
    for key, entry in block.items():
        what = f"models.{key}"
        entry = _mapping(entry, path, block.key_line(key), what)
        models[key] = ModelSpec(key, str(_need(entry, "name", path, what)), entry.get("label", key),
                                tuple(_list(entry, "seeds", path, what)))
    return models


def _ablation_row(raw: Any, path: Path, line: int, i: int) -> tuple[str, bool, bool]:
    """condition, gates, stop gate"""
    what = f"ablation.rows[{i}]"
    r = _mapping(raw, path, line, what)
    return (_need(r, "condition", path, what), bool(_need(r, "gates", path, what)),
            bool(_need(r, "stop_gate", path, what)))


def _comparisons(raw: LineMap, path: Path, models: dict[str, ModelSpec]) -> tuple[ComparisonSpec, ...]:
    block = _mapping(_need(raw, "comparisons", path, "the plan"), path, raw.key_line("comparisons"), "comparisons")
    out: list[ComparisonSpec] = []
    lines: dict[str, int] = {}
    for group, cross in (("per_model", False), ("cross_model", True)):
        entries = _list(block, group, path, "comparisons") if group in block else LineList()
        for i, c in enumerate(entries):
            what, line = f"comparisons.{group}[{i}]", entries.item_line(i)
            c = _mapping(c, path, line, what)
            if c.get("metric") not in METRICS:
                raise PlanError.at(path, c.key_line("metric"), f"{what}: metric {c.get('metric')!r} is not one of {METRICS}")
            cid = _need(c, "id", path, what)
            if cid in lines:
                raise PlanError.at(path, c.key_line("id"), f"{what}: comparison id {cid!r} is used at line "
                                f"{lines[cid]} already; comparison ids must be unique")
            lines[cid] = c.key_line("id")
            out.append(ComparisonSpec(
                id=cid, label=_need(c, "label", path, what), metric=c["metric"],
                a=_side(_need(c, "a", path, what), path, c.key_line("a"), what, models, cross),
                b=_side(_need(c, "b", path, what), path, c.key_line("b"), what, models, cross),
                seeds=tuple(_list(c, "seeds", path, what)) if cross else None, in_table=c.get("table", True)))
    return tuple(out)


def _predictions(raw: LineMap, path: Path, models: dict[str, ModelSpec],
                 ids: set[str]) -> tuple[Prediction, ...]:
    entries = _list(raw, "predictions", path, "the plan")
    out: list[Prediction] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        p = read_prediction(entry, entries.item_line(i), i, path, models, ids)
        if p.id in seen:
            raise PlanError.at(path, p.line, f"prediction {p.id}: the id is used at line {seen[p.id]} already; "
                            "prediction ids must be unique")
        seen[p.id] = p.line
        out.append(p)
    return tuple(out)


def load_plan(path: Path | None = None) -> Plan:
    """Read and check the plan (default: ``preregistration/predictions.yaml``)."""
    path = Path(path) if path else prereg_dir() / PLAN_FILE
    raw = read_yaml_file(path, PlanError, missing="{path}: no prediction plan here; pass --plan FILE.",
                         invalid="{path}: not valid YAML (line {line}): {message}", lines=True)
    raw = _mapping(raw, path, 1, "the plan")
    models = _models(raw, path)
    abl = _mapping(_need(raw, "ablation", path, "the plan"), path, raw.key_line("ablation"), "ablation")
    if abl.get("model") not in models:
        raise PlanError.at(path, abl.key_line("model"),
                        f"ablation.model {abl.get('model')!r} is not one of {sorted(models)}")
    comparisons = _comparisons(raw, path, models)
    rows = _list(abl, "rows", path, "ablation")
    return Plan(path=path, models=models, ablation_model=abl["model"],
                ablation_seeds=tuple(_list(abl, "seeds", path, "ablation")),
                ablation_conditions=tuple(_list(abl, "conditions", path, "ablation")),
                ablation_rows=tuple(_ablation_row(r, path, rows.item_line(i), i) for i, r in enumerate(rows)),
                comparisons=comparisons,
                predictions=_predictions(raw, path, models, {c.id for c in comparisons}))
