"""The paper's Tables 1, 2, 6, 7 and 8, built from a scored corpus and the preregistered plan.

- Table 1: per model and condition, mean ± s.d. over seeds of FC, FC per 50 accounts in batch
  order, compliance, decided, correct and cost (the two ablation conditions go to Table 2).
- Table 2: the ablation of the enforcement points (per-account gates × stop gate).
- Table 6: the predictions with observed values and verdicts.
- Table 7: the paired comparisons over seeds.
- Table 8: the escape routes, as sessions with the route / sessions (mean per session), and
  the median number of decided accounts at the first remark on tokens, context or budget.

Every table is titled SIMULATED when its corpus holds simulated sessions, and lists under it
the excluded sessions and the recorded amendments of the preregistration.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from study.escape_routes import ESCAPE_ROUTES, EscapeRoute, Measure
from study.paths import prereg_dir, sessions_dir
from study.runner.conditions import load_conditions

from .comparisons import Comparison, compute_comparisons
from .loading import Corpus, load_corpus
from .plan import Plan, load_plan
from .predictions import Outcome, evaluate
from .render import Cell, Column, Table, csv_number, num
from .scoring import WINDOW

SIMULATED_TITLE = "SIMULATED (made by the simulator; not results) - "


def condition_order(path: Path | None = None) -> tuple[str, ...]:
    """The conditions in the order of the frozen ``conditions.yaml`` (default: the preregistration
    of the project in use): the preregistered ones, then the exploratory ones. Rows and figures
    follow this order; conditions it does not name follow alphabetically."""
    loaded = load_conditions(path)
    return (*loaded.conditions, *loaded.exploratory)


def read_amendments(prereg: Path) -> list[str]:
    """One line per recorded amendment of ``prereg/amendments.jsonl`` (none if it is absent)."""
    path = Path(prereg) / "amendments.jsonl"
    if not path.exists():
        return []
    lines = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError:
            raise ValueError(f"{path}:{number}: not a JSON object; run `study prereg verify`.") from None
        files = sorted(f["path"] if isinstance(f, dict) else str(f) for f in entry.get("files", []))
        lines.append(f"Amendment {entry.get('n', number)} ({entry.get('time')}): "
                     f"{entry.get('reason')} [{', '.join(files)}]")
    return lines


@dataclass
class Analysis:
    """Everything the tables and figures are made from."""

    corpus: Corpus
    plan: Plan
    comparisons: list[Comparison]
    outcomes: list[Outcome]
    amendments: list[str]
    conditions: tuple[str, ...]      # the order of rows (condition_order())

    @classmethod
    def build(cls, corpus: Corpus, plan: Plan, prereg: Path,
              conditions: tuple[str, ...] | None = None) -> "Analysis":
        """``conditions``: the row order (default: :func:`condition_order` of the project)."""
        comparisons = compute_comparisons(corpus.sessions, plan)
        return cls(corpus, plan, comparisons, evaluate(plan, corpus.sessions, comparisons),
                   read_amendments(prereg), condition_order() if conditions is None else tuple(conditions))

    def condition_key(self, condition: str) -> tuple[int, str]:
        """Sort key: the position in ``conditions``, then (for the others) the name."""
        order = self.conditions
        return (order.index(condition) if condition in order else len(order), condition)

    def by_condition(self, frame: pl.DataFrame) -> list[tuple[str, dict[str, list]]]:
        """``frame``'s rows grouped by condition (each column a list, by seed), in row order."""
        groups: dict[str, dict[str, list]] = {}
        for r in frame.sort("seed").iter_rows(named=True):
            g = groups.setdefault(r["condition"], {k: [] for k in r})
            for k, v in r.items():
                g[k].append(v)
        return sorted(groups.items(), key=lambda kv: self.condition_key(kv[0]))

    def title(self, text: str) -> str:
        extra = " (including exploratory sessions)" if self.corpus.exploratory else ""
        return (SIMULATED_TITLE if self.corpus.simulated else "") + text + extra

    def notes(self) -> list[str]:
        notes = [] if self.corpus.scores else [f"No analysable sessions under {self.corpus.root}."]
        notes += [f"Excluded: {path} - {reason}" for path, reason in self.corpus.excluded]
        return notes + (self.amendments or ["Amendments: none recorded."])

    def rows_for(self, model: str, conditions: list[str] | None = None) -> pl.DataFrame:
        """The model's sessions on the seeds the plan tabulates each condition over."""
        s = self.corpus.sessions.filter(pl.col("model") == model)
        keep = [r for r in s.iter_rows(named=True)
                if (seeds := self.plan.seeds_for(model, r["condition"])) is None or r["seed"] in seeds]
        frame = pl.DataFrame(keep, schema=s.schema, orient="row") if keep else s.clear()
        if conditions is not None:
            frame = frame.filter(pl.col("condition").is_in(conditions))
        return frame

    def models(self) -> list[str]:
        return self.plan.model_order(self.corpus.sessions["model"].unique().to_list())


def load_analysis(sessions: Path | None = None, *, plan: Path | None = None,
                  prereg: Path | None = None, allow_simulated: bool = False,
                  include_exploratory: bool = False) -> Analysis:
    """Score a sessions folder (default: the project's) and evaluate the plan on it."""
    corpus = load_corpus(sessions or sessions_dir(), allow_simulated=allow_simulated,
                         include_exploratory=include_exploratory)
    return Analysis.build(corpus, load_plan(plan), prereg or prereg_dir())


def _mean(values: list) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _sd(values: list) -> float | None:
    vals = [v for v in values if v is not None]
    if len(vals) < 2:
        return None
    m = sum(vals) / len(vals)
    return (sum((v - m) ** 2 for v in vals) / (len(vals) - 1)) ** 0.5


def _pct(x: float | None) -> Cell:
    if x is None:
        return Cell("-", ("",), None)
    return Cell(f"{100 * x:.1f}%", (csv_number(x),), round(100 * x, 1))


def _ranked(cell: Cell) -> Cell:
    """Rank by the shown (rounded) value, so ties in print are ties in emphasis."""
    return cell if cell.rank is None else Cell(cell.text, cell.values, float(cell.text.rstrip("%")))


def window_label(i: int) -> str:
    """Accounts of window ``i`` (0-based) in batch order, e.g. "51-100"."""
    return f"{WINDOW * i + 1}-{WINDOW * (i + 1)}"


def table1(a: Analysis) -> Table:
    windows = [c for c in a.corpus.sessions.columns if c.startswith("fc_w")]
    cols = [Column("Condition"), Column("FC", ("FC", "FC s.d."), emphasis=True)]
    cols += [Column(f"FC {window_label(i)}", emphasis=True) for i in range(len(windows))]
    cols += [Column("Compliance", emphasis=True), Column("Decided"),
             Column("Correct", emphasis=True), Column("Cost ($)"), Column("Seeds")]
    t = Table(1, a.title("Main results (mean over seeds, FC with s.d.)"), "Model", cols)
    ablation = set(a.plan.ablation_conditions)
    for model in a.models():
        frame = a.rows_for(model).filter(~pl.col("condition").is_in(list(ablation)))
        if frame.is_empty():
            continue
        label = f"{a.plan.label(model)} ({frame['seed'].n_unique()} seeds)"
        for condition, g in a.by_condition(frame):
            fc, sd = _mean(g["fc"]), _sd(g["fc"])
            fc_cell = Cell(f"{fc:.1f} ± {sd:.1f}" if sd is not None else f"{fc:.1f}",
                           (csv_number(fc), csv_number(sd)), round(fc, 1))
            costs = g["cost_usd"]
            cost = _mean(costs) if all(c is not None for c in costs) else None
            t.rows.append((label, [Cell(condition), fc_cell]
                           + [_ranked(num(_mean(g[w]))) for w in windows]
                           + [_pct(_mean(g["compliance"])), num(_mean(g["decided"])),
                              _ranked(num(_mean(g["correct"]))), num(cost, 2),
                              Cell(str(len(g["seed"])), (len(g["seed"]),))]))
    t.notes = a.notes()
    return t


def table2(a: Analysis) -> Table:
    cols = [Column("Variant"), Column("Gates"), Column("Stop gate"), Column("FC", emphasis=True),
            Column("Decided", emphasis=True), Column("Compl.", emphasis=True), Column("Blind"),
            Column("Stops"), Column("Seeds")]
    t = Table(2, a.title("Ablation of the enforcement points"), "Model", cols)
    conditions = [c for c, _g, _s in a.plan.ablation_rows]
    switches = {c: (g, s) for c, g, s in a.plan.ablation_rows}
    for model in a.models():
        spec = a.plan.model_by_name(model)
        if spec is not None and spec.key != a.plan.ablation_model:
            continue
        frame = a.rows_for(model, conditions)
        if spec is not None:
            seeds = list(a.plan.ablation_seeds)
        else:   # an unplanned model: the seeds on which it ran an ablation condition
            seeds = frame.filter(pl.col("condition").is_in(list(a.plan.ablation_conditions)))["seed"].unique().to_list()
        frame = frame.filter(pl.col("seed").is_in(seeds))
        if frame.filter(pl.col("condition").is_in(list(a.plan.ablation_conditions))).is_empty():
            continue
        label = f"{a.plan.label(model)} (seeds {', '.join(map(str, sorted(seeds)))})"
        for condition, g in sorted(a.by_condition(frame), key=lambda kv: conditions.index(kv[0])):
            gates, stop = switches[condition]
            t.rows.append((label, [Cell(condition), Cell("on" if gates else "off"),
                                   Cell("on" if stop else "off"), _ranked(num(_mean(g["fc"]))),
                                   _ranked(num(_mean(g["decided"]))), _pct(_mean(g["compliance"])),
                                   num(_mean(g["without_looking"])), num(_mean(g["ends_turn"])),
                                   Cell(str(len(g["seed"])), (len(g["seed"]),))]))
    t.notes = ["Blind: decisions without any data retrieved for the account; Stops: turn ends "
               "with accounts left, per session."] + a.notes()
    return t


def table6(a: Analysis) -> Table:
    t = Table(6, a.title("Pre-registered predictions and outcomes"), "Section",
              [Column("Prediction"), Column("Observed"), Column("Verdict")])
    for o in a.outcomes:
        text = f"{o.id} {o.text}" + (f" [{o.model}]" if o.model else "")
        t.rows.append((o.section, [Cell(text), Cell(o.observed), Cell(o.verdict)]))
    t.notes = [f"Plan: {a.plan.path.name}."] + a.notes()
    return t


def table7(a: Analysis) -> Table:
    cols = [Column("Comparison"), Column("Mean"), Column("95% CI", ("CI low", "CI high")),
            Column("Seeds > 0", ("Seeds > 0", "Seeds")), Column("Sign p"), Column("Wilcoxon p")]
    t = Table(7, a.title("Paired comparisons over seeds"), "Model", cols)
    for c in a.comparisons:
        if not c.spec.in_table or c.paired is None:
            continue
        p = c.paired
        if c.model is None:
            group = f"Catch-up (seeds {', '.join(map(str, p.seeds))})"
        else:
            group = f"{a.plan.label(c.model)} ({p.n} seeds)"
        t.rows.append((group, [
            Cell(c.spec.label), num(p.mean, signed=True),
            Cell(f"[{p.ci_low:.1f}, {p.ci_high:.1f}]", (csv_number(p.ci_low), csv_number(p.ci_high))),
            Cell(f"{p.positive}/{p.n}", (p.positive, p.n)), num(p.sign_p, 3), num(p.wilcoxon_p, 3)]))
    t.notes = ["Mean of per-seed differences; percentile bootstrap 95% CI (10,000 resamples, "
               "seeded); exact two-sided sign and Wilcoxon signed-rank tests."] + a.notes()
    return t


def _route_cell(values: list[int]) -> Cell:
    n, hit = len(values), sum(v > 0 for v in values)
    mean = sum(values) / n
    text = f"{hit}/{n} ({mean:.1f})" if hit else f"0/{n}"
    return Cell(text, (hit, n, csv_number(mean)))


def _median(values: list[int | None]) -> float | None:
    present = sorted(v for v in values if v is not None)
    return (None if not present else
            (present[len(present) // 2] + present[(len(present) - 1) // 2]) / 2)


def _route_column(r: EscapeRoute) -> Column:
    if r.measure is Measure.COUNT:
        return Column(r.header, (f"{r.key} sessions", f"{r.key} of", f"{r.key} mean"))
    return Column(r.header + " (median decided)", (f"{r.key} median",))


def table8(a: Analysis) -> Table:
    """One column per escape route of study/escape_routes.py, in its order."""
    cols = [Column("Condition")] + [_route_column(r) for r in ESCAPE_ROUTES]
    t = Table(8, a.title("How each condition left the procedure"), "Model", cols)
    for model in a.models():
        frame = a.rows_for(model)
        for condition, g in a.by_condition(frame):
            t.rows.append((a.plan.label(model), [Cell(condition)] + [
                _route_cell(g[r.key]) if r.measure is Measure.COUNT else num(_median(g[r.key]))
                for r in ESCAPE_ROUTES]))
    t.notes = ["Each cell: sessions with the route / sessions (mean occurrences per session)."] + a.notes()
    return t


BUILDERS = {1: table1, 2: table2, 6: table6, 7: table7, 8: table8}


def build_tables(a: Analysis) -> list[Table]:
    return [build(a) for _n, build in sorted(BUILDERS.items())]
