"""The plan's predictions evaluated on a corpus: observed values and verdicts (paper Table 6).

Verdicts: a prediction holds when every clause holds and fails when one fails; a falsification
rule is triggered when any clause holds; a catch-up rule exceeds, catches up or does not catch
up by the thresholds it states. A clause whose sessions are incomplete (a planned seed missing)
makes the entry "not evaluable" unless another clause already decides the verdict. A session
that decided nothing has no compliance, and satisfies no comparison on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from .comparisons import Comparison, Values, index, session_values
from .plan import OPS, Plan

NOT_EVALUABLE = "not evaluable"


@dataclass(frozen=True)
class Outcome:
    """One row of Table 6."""

    id: str
    section: str
    text: str
    model: str | None     # the model's label for per-model rows of multi-model entries
    observed: str
    verdict: str


def fmt_signed(x: float) -> str:
    return f"{x:+.1f}"


def _metric_text(metric: str, value: float) -> str:
    return f"{100 * value:.1f}%" if metric == "compliance" else f"{value:g}"


class _Evaluator:
    def __init__(self, plan: Plan, values: Values, comparisons: list[Comparison]):
        self.plan, self.values, self.cmp = plan, values, index(comparisons)

    # each clause returns (True | False | None for not evaluable, observed text)
    def seeds_where(self, clause: dict, model: str) -> tuple[bool | None, str]:
        sw = clause["seeds_where"]
        tests, combine = (sw["all"], all) if "all" in sw else (sw["any"], any)
        texts, oks = [], []
        for condition in sw["conditions"]:
            seeds = self.plan.seeds_for(model, condition)
            rows = [self.values.get((model, condition, s)) for s in seeds]
            missing = [s for s, r in zip(seeds, rows) if r is None]
            if missing:
                texts.append(f"{condition}: seeds {', '.join(map(str, missing))} missing")
                oks.append(None)
                continue
            hits = sum(combine(r[m] is not None and OPS[op](r[m], v) for m, op, v in tests) for r in rows)
            need = len(seeds) if clause["at_least"] == "all" else int(clause["at_least"])
            texts.append(f"{hits}/{len(seeds)}")
            oks.append(hits >= need)
        return _all(oks), ", ".join(texts)

    def contrast(self, clause: dict, model: str | None) -> tuple[bool | None, str]:
        c = self.cmp.get((clause["contrast"], model)) or self.cmp.get((clause["contrast"], None))
        if c is None:
            return None, "no sessions"
        if not c.complete:
            got = len(c.paired.seeds) if c.paired else 0
            return None, f"{c.spec.label}: {got} of {len(c.planned_seeds or ())} seeds"
        p = c.paired
        shows_mean = "mean" in clause or "abs_mean" in clause or not (
            "positive" in clause or "negative" in clause)
        oks, parts = [], [fmt_signed(p.mean)] if shows_mean else []
        if "mean" in clause:
            op, v = clause["mean"]
            oks.append(OPS[op](p.mean, v))
        if "abs_mean" in clause:
            op, v = clause["abs_mean"]
            oks.append(OPS[op](abs(p.mean), v))
            parts.append(f"CI [{p.ci_low:.1f}, {p.ci_high:.1f}]")
        for key, count in (("positive", p.positive), ("negative", p.negative)):
            if key in clause:
                rule = clause[key]
                if "at_least_fraction" in rule:
                    ok = count >= rule["at_least_fraction"] * p.n
                else:
                    ok = count >= (p.n if rule["at_least"] == "all" else int(rule["at_least"]))
                oks.append(ok)
                parts.append(f"{count}/{p.n} {key}")
        if clause.get("show") == "means":
            parts = [f"{c.mean_a:.1f} vs. {c.mean_b:.1f}"]
        return _all(oks), ", ".join(parts)

    def contrast_pair(self, clause: dict, model: str | None) -> tuple[bool | None, str]:
        pair = clause["contrast_pair"]
        left, right = (self.cmp.get((pair[k], model)) for k in ("left", "right"))
        if not (left and right and left.complete and right.complete):
            return None, "seeds missing"
        return (OPS[pair["op"]](left.paired.mean, right.paired.mean),
                f"{left.paired.mean:.1f} vs. {right.paired.mean:.1f}")

    def clause(self, clause: dict, model: str | None) -> tuple[bool | None, str]:
        for kind in ("seeds_where", "contrast_pair", "contrast"):
            if kind in clause:
                return getattr(self, kind)(clause, model)
        raise AssertionError(clause)  # load_plan admits only these kinds

    def regime(self, rule: dict, model: str) -> tuple[str | None, str]:
        seeds = self.plan.seeds_for(model, rule["condition"])
        rows = [self.values.get((model, rule["condition"], s)) for s in seeds]
        if any(r is None for r in rows):
            return None, f"{rule['condition']} seeds missing"
        vals = [r[rule["metric"]] for r in rows if r[rule["metric"]] is not None]
        if not vals:
            return None, f"{rule['condition']} decided nothing"
        level = float(np.mean(vals))
        shown = _metric_text(rule["metric"], level)
        if level < rule["drift_below"]:
            return "drift", f"drift ({shown})"
        if level >= rule["no_drift_at_least"]:
            return "no_drift", f"no drift ({shown})"
        return None, f"regime undetermined ({shown})"


def _all(oks: list[bool | None]) -> bool | None:
    if any(ok is False for ok in oks):
        return False
    return None if any(ok is None for ok in oks) else True


def _any(oks: list[bool | None]) -> bool | None:
    if any(ok is True for ok in oks):
        return True
    return None if any(ok is None for ok in oks) else False


def _evaluate_one(ev: _Evaluator, p: dict[str, Any], model: str | None) -> tuple[str, str]:
    """(observed, verdict) of one prediction for one model."""
    if p["kind"] == "catch_up":
        c = ev.cmp.get((p["contrast"], None))
        if c is None or not c.complete:
            return "seeds missing", NOT_EVALUABLE
        diffs = ", ".join(f"{d:+.0f}" for d in c.paired.differences)
        observed = f"{fmt_signed(c.paired.mean)} (seeds: {diffs})"
        if c.paired.mean >= p["exceeds_at_least"]:
            return observed, "exceeds"
        if c.paired.mean >= p["catches_up_at_least"]:
            return observed, "catches up"
        return observed, "does not catch up"
    if model is not None and not any(key[0] == model for key in ev.values):
        return f"no sessions of {model}", NOT_EVALUABLE
    prefix = ""
    if "by_regime" in p:
        regime, prefix = ev.regime(p["regime"], model)
        if regime is None:
            return prefix, NOT_EVALUABLE
        clauses, combine = p["by_regime"][regime], _all
        prefix += ": "
    elif "any" in p:
        clauses, combine = p["any"], _any
    else:
        clauses, combine = p["all"], _all
    results = [ev.clause(c, model) for c in clauses]
    ok = combine([r[0] for r in results])
    observed = prefix + "; ".join(r[1] for r in results)
    if ok is None:
        return observed, NOT_EVALUABLE
    if p["kind"] == "falsification":
        return observed, "triggered" if ok else "not triggered"
    return observed, "holds" if ok else "fails"


def evaluate(plan: Plan, sessions: pl.DataFrame, comparisons: list[Comparison]) -> list[Outcome]:
    """Every prediction of the plan, in the plan's order (one row per model of a multi-model entry)."""
    ev = _Evaluator(plan, session_values(sessions), comparisons)
    out = []
    for p in plan.predictions:
        keys = [p["model"]] if "model" in p else p.get("models") or [None]
        for key in keys:
            model = plan.models[key].name if key else None
            observed, verdict = _evaluate_one(ev, p, model)
            out.append(Outcome(id=p["id"], section=p.get("section", ""), text=p["text"],
                               model=plan.models[key].label if "models" in p else None,
                               observed=observed, verdict=verdict))
    return out
