"""The paper's Tables 1, 2, 6, 7 and 8, built from a scored corpus and the preregistered plan.

- Table 1: per model and condition, mean ± s.d. over seeds of FC, FC per 50 accounts in batch
  order, compliance, decided, correct and cost (the two ablation conditions go to Table 2).
- Table 2: the ablation of the enforcement points (per-account gates × stop gate).
- Table 6: the predictions with observed values and verdicts.
- Table 7: the paired comparisons over seeds.
- Table 8: the escape routes, as sessions with the route / sessions (mean per session), and
  the median number of decided accounts at the first remark on tokens, context or budget.

Every table is titled SIMULATED when its corpus holds simulated sessions; under it, notes say
why a table or a row is empty, how many sessions were excluded (the list, with each reason, is
``analysis.exclusions``) and the recorded amendments of the preregistration
(``analysis.table_notes``).

The tables are made from an ``Analysis`` (``analysis.analysis_data``; re-exported here with
``condition_order`` and ``SIMULATED_TITLE``); :func:`load_analysis` makes one from a sessions
folder.

One model-label convention everywhere: a group is the plan's label of the model alone; how many
seeds a row covers is its Seeds column (Table 7: the "Seeds > 0" column), and which seeds the
note "Seeds: ..." says. FC windows are headed by the accounts they cover in the batch.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from study.procedure.escape_routes import ESCAPE_ROUTES, TURN_ENDS_HEADER, EscapeRoute, Measure
from study.paths import prereg_dir, sessions_folder
from study.protocol.plan import load_plan

from .analysis_data import Analysis
from .clauses import window_label
# re-exported: importers of analysis.tables (figures, power, study view, the tests) keep them here
from .analysis_data import SIMULATED_TITLE, condition_order  # noqa: F401
from .exclusions import seed_list
from .loading import load_corpus
from .render import Cell, Column, Table, csv_number, num
from .score_cache import ScoreCache
from .table_notes import (GRADER_NOTE, NO_COST_NOTE, columns_note, common_notes, empty, model_seeds_note, not_evaluable_note,
                          present, seeds_note, windows_note)


def load_analysis(sessions: Path | None = None, *, plan: Path | None = None,
                  prereg: Path | None = None, allow_simulated: bool = False,
                  include_exploratory: bool = False, cache: bool | ScoreCache = False) -> Analysis:
    """Score a sessions folder (default: the project's) and evaluate the plan on it (``cache``:
    through the score cache, ``analysis.score_cache``: True for the default one, or the one given)."""
    scores = cache if isinstance(cache, ScoreCache) else (ScoreCache() if cache else None)
    corpus = load_corpus(sessions_folder(sessions), allow_simulated=allow_simulated,
                         include_exploratory=include_exploratory, cache=scores)
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


def table1(a: Analysis) -> Table:
    windows = [c for c in a.corpus.sessions.columns if c.startswith("fc_w")]
    cols = [Column("Condition", wrap=True), Column("FC", ("FC", "FC s.d."), emphasis=True)]
    cols += [Column(f"FC {window_label(i, a.batch_size())}", emphasis=True) for i in range(len(windows))]
    cols += [Column("Compliance", emphasis=True, short="Compl."), Column("Decided"),
             Column("Correct", emphasis=True), Column("Correct (SOP-Bench grader)", short="Correct (SOP-Bench)"),
             Column("Cost ($)"), Column("Seeds")]
    t = Table(1, a.title("Main results (mean over seeds, FC with s.d.)"), "Model", cols)
    ablation = set(a.plan.ablation_conditions)
    frames = {}
    no_cost = False
    for model in a.models():
        frame = a.rows_for(model).filter(~pl.col("condition").is_in(list(ablation)))
        if frame.is_empty():
            continue
        frames[model] = frame
        label = a.plan.label(model)
        for condition, g in a.by_condition(frame):
            fc, sd = _mean(g["fc"]), _sd(g["fc"])
            fc_cell = Cell(f"{fc:.1f} ± {sd:.1f}" if sd is not None else f"{fc:.1f}",
                           (csv_number(fc), csv_number(sd)), round(fc, 1))
            costs = g["cost_usd"]
            cost = _mean(costs) if all(c is not None for c in costs) else None
            no_cost = no_cost or cost is None
            t.rows.append((label, [Cell(condition), fc_cell]
                           + [_ranked(num(_mean(g[w]))) for w in windows]
                           + [_pct(_mean(g["compliance"])), num(_mean(g["decided"])),
                              _ranked(num(_mean(g["correct"]))), num(_mean(g["correct_sopbench"])),
                              num(cost, 2), Cell(str(len(g["seed"])), (len(g["seed"]),))]))
    t.notes = empty(t, a, "no session of a main condition on its model's analysed seeds") + [columns_note(t)]
    t.notes += present(model_seeds_note(a, frames), windows_note(a, len(windows)), GRADER_NOTE,
                       NO_COST_NOTE if no_cost else None) + common_notes(a)
    return t


def table2(a: Analysis) -> Table:
    cols = [Column("Variant", wrap=True), Column("Gates", align="l"), Column("Stop gate", align="l"), Column("FC", emphasis=True),
            Column("Decided", emphasis=True), Column("Compl.", emphasis=True), Column("Blind"),
            Column("Stops"), Column("Seeds")]
    t = Table(2, a.title("Ablation of the enforcement points"), "Model", cols)
    conditions = [c for c, _g, _s in a.plan.ablation_rows]
    switches = {c: (g, s) for c, g, s in a.plan.ablation_rows}
    frames = {}
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
        label = a.plan.label(model)
        frames[model] = frame
        for condition, g in sorted(a.by_condition(frame), key=lambda kv: conditions.index(kv[0])):
            gates, stop = switches[condition]
            t.rows.append((label, [Cell(condition), Cell("on" if gates else "off"),
                                   Cell("on" if stop else "off"), _ranked(num(_mean(g["fc"]))),
                                   _ranked(num(_mean(g["decided"]))), _pct(_mean(g["compliance"])),
                                   num(_mean(g["without_looking"])), num(_mean(g["ends_turn"])),
                                   Cell(str(len(g["seed"])), (len(g["seed"]),))]))
    spec = a.plan.models[a.plan.ablation_model]
    t.notes = empty(t, a, f"no session of an ablation variant ({', '.join(a.plan.ablation_conditions)}) "
                    f"of {spec.label} on the ablation's seeds ({seed_list(a.plan.ablation_seeds)}), "
                    "nor of a model the plan does not name")
    t.notes += [columns_note(t)]
    t.notes += present(model_seeds_note(a, frames)) + common_notes(a)
    return t


def table6(a: Analysis) -> Table:
    t = Table(6, a.title("Pre-registered predictions and outcomes"), "Section",
              [Column("Prediction", wrap=True, weight=1.6), Column("Observed", wrap=True),
               Column("Verdict", align="l", short="Verdict")])
    for o in a.outcomes:
        text = f"{o.id} {o.text}" + (f" [{o.model}]" if o.model else "")
        t.rows.append((o.section, [Cell(text), Cell(o.observed), Cell(o.verdict)]))
    t.notes = [columns_note(t), f"Plan: {a.plan.path.name}."] + present(not_evaluable_note(a)) + common_notes(a)
    return t


def table7(a: Analysis) -> Table:
    cols = [Column("Comparison", wrap=True), Column("Mean"), Column("95% CI", ("CI low", "CI high")),
            Column("Seeds > 0", ("Seeds > 0", "Seeds")), Column("Sign p"), Column("Wilcoxon p")]
    t = Table(7, a.title("Paired comparisons over seeds"), "Model", cols)
    seeds: dict[str, set[int]] = {}
    for c in a.comparisons:
        if not c.spec.in_table or c.paired is None:
            continue
        p = c.paired
        group = "Catch-up" if c.model is None else a.plan.label(c.model)
        seeds.setdefault(group, set()).update(p.seeds)
        t.rows.append((group, [
            Cell(c.spec.label), num(p.mean, signed=True),
            Cell(f"[{p.ci_low:.1f}, {p.ci_high:.1f}]", (csv_number(p.ci_low), csv_number(p.ci_high))),
            Cell(f"{p.positive}/{p.n}", (p.positive, p.n)), num(p.sign_p, 3), num(p.wilcoxon_p, 3)]))
    t.notes = empty(t, a, "no comparison of the plan has a seed with sessions on both of its sides")
    t.notes += [columns_note(t)]
    t.notes += present(seeds_note(list(seeds.items()))) + common_notes(a)
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
        short = r.header.removesuffix(", accounts left") if r.header.endswith(", accounts left") else None
        return Column(r.header, (f"{r.key} sessions", f"{r.key} of", f"{r.key} mean"), short=short)
    return Column(r.header + " (median decided)", (f"{r.key} median",))


#: Table 8's column of real turn ends, beside the route ``ends_turn`` (which counts attempts).
TURN_ENDS = Column(TURN_ENDS_HEADER, ("turn_ends sessions", "turn_ends of", "turn_ends mean"), short="Turn ends")


def table8(a: Analysis) -> Table:
    """One column per escape route of study/procedure/escape_routes.py, in its order, and after the
    attempts to end the turn the real turn ends (``SessionScore.turn_ends``)."""
    cols = [Column("Condition", wrap=True)]
    for r in ESCAPE_ROUTES:
        cols += [_route_column(r)] + ([TURN_ENDS] if r.key == "ends_turn" else [])
    t = Table(8, a.title("How each condition left the procedure"), "Model", cols)
    frames = {}
    for model in a.models():
        frame = frames[model] = a.rows_for(model)
        for condition, g in a.by_condition(frame):
            cells = [Cell(condition)]
            for r in ESCAPE_ROUTES:
                cells.append(_route_cell(g[r.key]) if r.measure is Measure.COUNT else num(_median(g[r.key])))
                if r.key == "ends_turn":
                    cells.append(_route_cell([v or 0 for v in g["turn_ends"]]))
            t.rows.append((a.plan.label(model), cells))
    t.notes = ["Each cell: sessions with the route / sessions (mean occurrences per session).", columns_note(t)]
    t.notes += present(model_seeds_note(a, frames)) + common_notes(a)
    return t


BUILDERS = {1: table1, 2: table2, 6: table6, 7: table7, 8: table8}


def build_tables(a: Analysis) -> list[Table]:
    return [build(a) for _n, build in sorted(BUILDERS.items())]
