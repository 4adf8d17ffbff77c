"""The entries of ``predictions.yaml``'s ``predictions:`` list, typed: a :class:`Prediction` and its
clauses (:class:`SeedsWhere`, :class:`Contrast`, :class:`ContrastPair`), built once when the plan
is read (``study.protocol.plan.load_plan``), so every reader (Table 6, the verdict rules,
``study power``) reads attributes, not keys.

The file's header documents the vocabulary; :func:`read_prediction` checks an entry against it,
each problem a :class:`PlanError` naming the file and the line it is written at.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

from study.errors import StudyError

from .yaml_lines import LineList, LineMap

#: Comparison operators of the plan's clauses.
OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq}
#: Session metrics that clauses and comparisons may name.
METRICS = ("decided", "correct", "compliant", "fc", "compliance", "fc_w1", "fc_w2", "fc_w3",
           "fc_w4", "cost_usd")
KINDS = ("prediction", "falsification", "catch_up")
ALL = "all"
REGIMES = ("drift", "no_drift")


class PlanError(StudyError, ValueError):
    """predictions.yaml does not follow its documented vocabulary."""

    @classmethod
    def at(cls, path: Path | str, line: int | None, message: str) -> PlanError:
        """The error at ``path:line``; ``path``, ``line`` and ``problem`` are its data."""
        where = f"{path}:{line}" if line else f"{path}"
        return cls(f"{where}: {message}", path=str(path), line=line, problem=message)


@dataclass(frozen=True)
class MetricTest:
    """One ``[metric, op, value]`` a session is tested with."""

    metric: str
    op: str
    value: float


@dataclass(frozen=True)
class SeedsWhere:
    """Count the seeds of each condition whose session satisfies ``all`` (or ``any``) of ``tests``;
    the clause holds when every condition has at least ``at_least`` (a number or ``"all"``)."""

    conditions: tuple[str, ...]
    how: str                      # "all" or "any"
    tests: tuple[MetricTest, ...]
    at_least: int | str
    line: int


@dataclass(frozen=True)
class Bound:
    """``[op, value]``: the (absolute) mean difference compared with ``value``."""

    op: str
    value: float


@dataclass(frozen=True)
class SeedCount:
    """``{at_least: N | all}`` or ``{at_least_fraction: f}`` seeds of a sign."""

    at_least: int | str | None
    at_least_fraction: float | None


@dataclass(frozen=True)
class Contrast:
    """A comparison of the plan (``comparison``, its id) with the conditions its differences meet."""

    comparison: str
    mean: Bound | None
    abs_mean: Bound | None
    positive: SeedCount | None
    negative: SeedCount | None
    show_means: bool              # ``show: means``: the Observed column gives both sides' means
    line: int


@dataclass(frozen=True)
class ContrastPair:
    """``left`` op ``right``: the mean differences of two comparisons of the plan."""

    left: str
    op: str
    right: str
    line: int


Clause = Union[SeedsWhere, Contrast, ContrastPair]


@dataclass(frozen=True)
class Regime:
    """The regime rule of an entry whose clauses depend on it: the mean ``metric`` of ``condition``
    below ``drift_below`` is drift, at least ``no_drift_at_least`` no drift, between undetermined."""

    condition: str
    metric: str
    drift_below: float
    no_drift_at_least: float
    drift: tuple[Clause, ...]     # the clauses (all must hold) under drift
    no_drift: tuple[Clause, ...]  # and under no drift


@dataclass(frozen=True)
class CatchUp:
    """A catch-up rule: the mean of ``comparison`` exceeds, catches up or does not catch up."""

    comparison: str
    exceeds_at_least: float
    catches_up_at_least: float


@dataclass(frozen=True)
class Prediction:
    """One entry of ``predictions:``. Exactly one of ``clauses`` (combined by ``combine``),
    ``regime`` and ``catch_up`` says what it tests."""

    id: str
    section: str
    kind: str
    text: str
    models: tuple[str, ...]       # the model keys it names (``model: k`` or ``models: [k, …]``); ()
    per_model_rows: bool          # written as ``models:``: Table 6 labels each model's row
    combine: str | None           # "all" or "any" over ``clauses``
    clauses: tuple[Clause, ...]
    regime: Regime | None
    catch_up: CatchUp | None
    line: int

    def every_clause(self) -> Iterator[Clause]:
        """Its clauses, the regime's of both regimes included."""
        yield from self.clauses
        if self.regime is not None:
            yield from self.regime.drift + self.regime.no_drift


class _Reader:
    """Checks one entry of the plan, raising PlanError at the line of the problem."""

    def __init__(self, path: Path, name: str):
        self.path, self.name = path, name

    def fail(self, line: int, message: str) -> PlanError:
        return PlanError.at(self.path, line, f"{self.name}: {message}")

    def mapping(self, raw: Any, line: int, what: str, allowed: tuple[str, ...]) -> LineMap:
        if not isinstance(raw, LineMap):
            raise self.fail(line, f"{what} must be a mapping, got {raw!r}")
        for key in raw:
            if key not in allowed:
                raise self.fail(raw.key_line(key), f"unknown key {key!r} in {what}; use one of {', '.join(allowed)}")
        return raw

    def need(self, m: LineMap, key: str, what: str) -> Any:
        if key not in m:
            raise self.fail(m.line, f"{what} needs '{key}'")
        return m[key]

    def items(self, m: LineMap, key: str, what: str) -> LineList:
        raw = self.need(m, key, what)
        if not isinstance(raw, LineList) or not raw:
            raise self.fail(m.key_line(key), f"{what}: '{key}' must be a non-empty list")
        return raw

    def number(self, m: LineMap, key: str, what: str) -> float:
        value = self.need(m, key, what)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(m.key_line(key), f"{what}: '{key}' must be a number, got {value!r}")
        return value

    def op(self, raw: Any, line: int) -> str:
        if raw not in OPS:
            raise self.fail(line, f"unknown operator {raw!r}; use one of {' '.join(OPS)}")
        return raw

    def metric(self, raw: Any, line: int) -> str:
        if raw not in METRICS:
            raise self.fail(line, f"unknown metric {raw!r}; use one of {', '.join(METRICS)}")
        return raw

    def comparison(self, raw: Any, line: int, ids: set[str]) -> str:
        if raw not in ids:
            raise self.fail(line, f"unknown comparison {raw!r}")
        return raw

    def count(self, raw: Any, line: int, what: str) -> int | str:
        if raw == ALL or (isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0):
            return raw
        raise self.fail(line, f"{what} must be a number of seeds or all, got {raw!r}")

    def one_of(self, m: LineMap, keys: tuple[str, ...], what: str) -> str:
        given = [k for k in keys if k in m]
        if len(given) != 1:
            raise self.fail(m.line, f"{what} needs exactly one of {', '.join(keys)}")
        return given[0]


def _seeds_where(r: _Reader, clause: LineMap) -> SeedsWhere:
    r.mapping(clause, clause.line, "a seeds_where clause", ("seeds_where", "at_least"))
    sw = r.mapping(clause["seeds_where"], clause.key_line("seeds_where"), "seeds_where",
                   ("conditions", "all", "any"))
    how = r.one_of(sw, ("all", "any"), "seeds_where")
    conditions = r.items(sw, "conditions", "seeds_where")
    tests = []
    for i, test in enumerate(r.items(sw, how, "seeds_where")):
        line = sw[how].item_line(i)
        if not isinstance(test, LineList) or len(test) != 3:
            raise r.fail(line, f"a test is [metric, op, value], got {test!r}")
        metric, op, value = test
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise r.fail(line, f"a test's value must be a number, got {value!r}")
        tests.append(MetricTest(r.metric(metric, line), r.op(op, line), value))
    at_least = r.count(r.need(clause, "at_least", "seeds_where"), clause.key_line("at_least"), "at_least")
    return SeedsWhere(tuple(conditions), how, tuple(tests), at_least, clause.line)


def _bound(r: _Reader, clause: LineMap, key: str) -> Bound | None:
    if key not in clause:
        return None
    raw, line = clause[key], clause.key_line(key)
    if not isinstance(raw, LineList) or len(raw) != 2 or isinstance(raw[1], bool) or not isinstance(raw[1], (int, float)):
        raise r.fail(line, f"{key} is [op, value], got {raw!r}")
    return Bound(r.op(raw[0], line), raw[1])


def _seed_count(r: _Reader, clause: LineMap, key: str) -> SeedCount | None:
    if key not in clause:
        return None
    rule = r.mapping(clause[key], clause.key_line(key), key, ("at_least", "at_least_fraction"))
    if r.one_of(rule, ("at_least", "at_least_fraction"), key) == "at_least":
        return SeedCount(r.count(rule["at_least"], rule.key_line("at_least"), f"{key} at_least"), None)
    return SeedCount(None, r.number(rule, "at_least_fraction", key))


def _contrast(r: _Reader, clause: LineMap, ids: set[str]) -> Contrast:
    r.mapping(clause, clause.line, "a contrast clause",
              ("contrast", "mean", "abs_mean", "positive", "negative", "show"))
    if clause.get("show", "means") != "means":
        raise r.fail(clause.key_line("show"), f"show can only be means, got {clause['show']!r}")
    return Contrast(r.comparison(clause["contrast"], clause.key_line("contrast"), ids),
                    _bound(r, clause, "mean"), _bound(r, clause, "abs_mean"),
                    _seed_count(r, clause, "positive"), _seed_count(r, clause, "negative"),
                    "show" in clause, clause.line)


def _contrast_pair(r: _Reader, clause: LineMap, ids: set[str]) -> ContrastPair:
    r.mapping(clause, clause.line, "a contrast_pair clause", ("contrast_pair",))
    pair = r.mapping(clause["contrast_pair"], clause.key_line("contrast_pair"), "contrast_pair",
                     ("left", "op", "right"))
    return ContrastPair(r.comparison(r.need(pair, "left", "contrast_pair"), pair.key_line("left"), ids),
                        r.op(r.need(pair, "op", "contrast_pair"), pair.key_line("op")),
                        r.comparison(r.need(pair, "right", "contrast_pair"), pair.key_line("right"), ids),
                        clause.line)


CLAUSE_KINDS = ("seeds_where", "contrast", "contrast_pair")


def _clauses(r: _Reader, m: LineMap, key: str, ids: set[str]) -> tuple[Clause, ...]:
    out: list[Clause] = []
    for i, clause in enumerate(r.items(m, key, key)):
        line = m[key].item_line(i)
        kinds = [k for k in CLAUSE_KINDS if isinstance(clause, LineMap) and k in clause]
        if len(kinds) != 1:
            raise r.fail(line, f"a clause is one of {', '.join(CLAUSE_KINDS)}")
        out.append(_seeds_where(r, clause) if kinds[0] == "seeds_where" else
                   _contrast(r, clause, ids) if kinds[0] == "contrast" else _contrast_pair(r, clause, ids))
    return tuple(out)


def _regime(r: _Reader, p: LineMap, ids: set[str]) -> Regime:
    rule = r.mapping(r.need(p, "regime", "an entry with by_regime"), p.key_line("regime"), "regime",
                     ("condition", "metric", "drift_below", "no_drift_at_least"))
    by = r.mapping(p["by_regime"], p.key_line("by_regime"), "by_regime", REGIMES)
    return Regime(str(r.need(rule, "condition", "regime")),
                  r.metric(r.need(rule, "metric", "regime"), rule.key_line("metric")),
                  r.number(rule, "drift_below", "regime"), r.number(rule, "no_drift_at_least", "regime"),
                  *(_clauses(r, by, name, ids) for name in REGIMES))


PREDICTION_KEYS = ("id", "section", "kind", "text", "model", "models", "all", "any", "regime",
                   "by_regime", "contrast", "exceeds_at_least", "catches_up_at_least")


def read_prediction(raw: Any, line: int, index: int, path: Path, models: dict[str, Any],
                    ids: set[str]) -> Prediction:
    """The ``index``-th entry of ``predictions:`` (written at ``line``), checked against the plan's
    model keys and comparison ids."""
    name = f"prediction {raw['id']}" if isinstance(raw, LineMap) and "id" in raw else f"predictions[{index}]"
    r = _Reader(path, name)
    p = r.mapping(raw, line, "an entry", PREDICTION_KEYS)
    pid, text = str(r.need(p, "id", "an entry")), str(r.need(p, "text", "an entry"))
    kind = r.need(p, "kind", "an entry")
    if kind not in KINDS:
        raise r.fail(p.key_line("kind"), f"kind must be one of {KINDS}")
    if "model" in p and "models" in p:
        raise r.fail(p.key_line("models"), "write model: or models:, not both")
    keys = (p["model"],) if "model" in p else tuple(r.items(p, "models", "an entry")) if "models" in p else ()
    for key in keys:
        if key not in models:
            raise r.fail(p.key_line("model" if "model" in p else "models"),
                         f"model {key!r} is not one of {sorted(models)}")
    combine, clauses, regime, catch_up = None, (), None, None
    if kind == "catch_up":
        what = "a catch_up entry"
        catch_up = CatchUp(r.comparison(r.need(p, "contrast", what), p.key_line("contrast"), ids),
                           r.number(p, "exceeds_at_least", what), r.number(p, "catches_up_at_least", what))
    else:
        how = [k for k in ("all", "any", "by_regime") if k in p]
        if len(how) != 1:
            raise r.fail(p.line, "needs clauses under one of all, any or by_regime")
        if "by_regime" in p:
            regime = _regime(r, p, ids)
        else:
            combine, clauses = how[0], _clauses(r, p, how[0], ids)
    extra = (("all", "any", "by_regime", "regime") if catch_up else
             ("contrast", "exceeds_at_least", "catches_up_at_least") + (() if regime else ("regime",)))
    for key in extra:
        if key in p:
            raise r.fail(p.key_line(key), f"'{key}' does not belong to this {kind} entry")
    return Prediction(pid, str(p.get("section", "")), kind, text, keys, "models" in p, combine, clauses,
                      regime, catch_up, line)
