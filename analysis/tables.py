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
``analysis.exclusions``) and the recorded amendments of the preregistration.

One model-label convention everywhere: a group is the plan's label of the model alone; how many
seeds a row covers is its Seeds column (Table 7: the "Seeds > 0" column), and which seeds the
note "Seeds: ..." says. FC windows are headed by the accounts they cover in the batch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from study.procedure.escape_routes import ESCAPE_ROUTES, TURN_ENDS_HEADER, EscapeRoute, Measure, route
from study.paths import prereg_dir, sessions_folder
from study.protocol.amendments import Amendment, read_amendments_file
from study.protocol.conditions import load_conditions
from study.protocol.plan import Plan, load_plan

from . import exclusions
from .comparisons import Comparison, compute_comparisons
from .loading import Corpus, load_corpus
from .predictions import Outcome, evaluate
from .render import Cell, Column, Table, csv_number, num
from .score_cache import ScoreCache
from .table_notes import (GRADER_NOTE, NO_COST_NOTE, empty, no_rows, not_evaluable_note, present, seeds_note,
                          windows_note)
from .scoring import WINDOW

SIMULATED_TITLE = "SIMULATED (made by the simulator; not results) - "


def condition_order(path: Path | None = None) -> tuple[str, ...]:
    """The conditions in the order of the frozen ``conditions.yaml`` (default: the preregistration
    of the project in use): the preregistered ones, then the exploratory ones. Rows and figures
    follow this order; conditions it does not name follow alphabetically."""
    loaded = load_conditions(path)
    return (*loaded.conditions, *loaded.exploratory)


@dataclass
class Analysis:
    """Everything the tables and figures are made from."""

    corpus: Corpus
    plan: Plan
    comparisons: list[Comparison]
    outcomes: list[Outcome]
    amendments: list[Amendment]     # the recorded amendments of the preregistration, in order
    conditions: tuple[str, ...]      # the order of rows (condition_order())

    @classmethod
    def build(cls, corpus: Corpus, plan: Plan, prereg: Path,
              conditions: tuple[str, ...] | None = None) -> "Analysis":
        """``conditions``: the row order (default: :func:`condition_order` of the project)."""
        comparisons = compute_comparisons(corpus.sessions, plan)
        return cls(corpus, plan, comparisons, evaluate(plan, corpus.sessions, comparisons),
                   read_amendments_file(Path(prereg) / "amendments.jsonl"),
                   condition_order() if conditions is None else tuple(conditions))

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

    def relative(self, path: str) -> str:
        """A session's path below the sessions folder."""
        try:
            return Path(path).relative_to(self.corpus.root).as_posix() or "."
        except ValueError:
            return str(path)

    def nothing_here(self) -> str:
        """Why the corpus has no analysable session, and what to do."""
        hidden = exclusions.admitted_by_exploratory(self.corpus.excluded)
        why = f"no analysable session under {self.corpus.root}"
        if self.corpus.excluded:
            why += f" ({len(self.corpus.excluded)} excluded, listed with their reasons)"
        if hidden:
            why += (f"; {hidden} are exploratory or on the development seed: pass "
                    "--include-exploratory to add them")
        return why

    def notes(self) -> list[str]:
        notes = [] if self.corpus.scores else [no_rows(self.nothing_here())]
        summary = exclusions.summary_note(self)
        notes += [summary] if summary else []
        return notes + ([entry.summary() for entry in self.amendments] or ["Amendments: none recorded."])

    def seeds_note(self, frames: dict[str, pl.DataFrame]) -> str | None:
        """``Seeds: <label> 2-9; ...`` for the models (and their rows) of a table."""
        return seeds_note([(self.plan.label(m), f["seed"].to_list()) for m, f in frames.items()
                           if not f.is_empty()])

    def batch_size(self) -> int:
        """The largest number of accounts of a session in the corpus (200 for the study)."""
        return max((len(s.order) for s in self.corpus.scores), default=200)

    def rows_for(self, model: str, conditions: list[str] | None = None) -> pl.DataFrame:
        """The model's sessions on the seeds the plan tabulates each condition over."""
        s = self.corpus.sessions.filter(pl.col("model") == model)
        keep = [r for r in s.iter_rows(named=True) if self.plan.tabulates(model, r["condition"], r["seed"])]
        frame = pl.DataFrame(keep, schema=s.schema, orient="row") if keep else s.clear()
        if conditions is not None:
            frame = frame.filter(pl.col("condition").is_in(conditions))
        return frame

    def models(self) -> list[str]:
        return self.plan.model_order(self.corpus.sessions["model"].unique().to_list())


def load_analysis(sessions: Path | None = None, *, plan: Path | None = None,
                  prereg: Path | None = None, allow_simulated: bool = False,
                  include_exploratory: bool = False, cache: bool = False) -> Analysis:
    """Score a sessions folder (default: the project's) and evaluate the plan on it (``cache``:
    through the score cache, ``analysis.score_cache``)."""
    corpus = load_corpus(sessions_folder(sessions), allow_simulated=allow_simulated,
                         include_exploratory=include_exploratory, cache=ScoreCache() if cache else None)
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


def window_label(i: int, accounts: int = 200) -> str:
    """Accounts of window ``i`` (0-based) in a batch of ``accounts``, e.g. "51-100", or "1-20"
    for a batch of 20."""
    return f"{WINDOW * i + 1}-{min(WINDOW * (i + 1), accounts)}"


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
    t.notes = empty(t, a, "no session of a main condition on its model's analysed seeds")
    t.notes += present(a.seeds_note(frames), windows_note(a, len(windows)), GRADER_NOTE,
                       NO_COST_NOTE if no_cost else None) + a.notes()
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
                    f"of {spec.label} on the ablation's seeds ({exclusions.seed_list(a.plan.ablation_seeds)}), "
                    "nor of a model the plan does not name")
    t.notes += ["Blind: decisions without any data retrieved for the account; Stops: attempts to "
                "end the turn with accounts left (blocked or not), per session."]
    t.notes += present(a.seeds_note(frames)) + a.notes()
    return t


def table6(a: Analysis) -> Table:
    t = Table(6, a.title("Pre-registered predictions and outcomes"), "Section",
              [Column("Prediction", wrap=True, weight=1.6), Column("Observed", wrap=True),
               Column("Verdict", align="l", short="Verdict")])
    for o in a.outcomes:
        text = f"{o.id} {o.text}" + (f" [{o.model}]" if o.model else "")
        t.rows.append((o.section, [Cell(text), Cell(o.observed), Cell(o.verdict)]))
    t.notes = [f"Plan: {a.plan.path.name}."] + present(not_evaluable_note(a)) + a.notes()
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
    t.notes += ["Mean of per-seed differences; percentile bootstrap 95% CI (10,000 resamples, "
                "seeded); exact two-sided sign and Wilcoxon signed-rank tests."]
    t.notes += present(seeds_note(list(seeds.items()))) + a.notes()
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
    t.notes = ["Each cell: sessions with the route / sessions (mean occurrences per session). "
                f"{route('ends_turn').header}: every stop with accounts left, including those the "
                f"stop gate blocked; {TURN_ENDS_HEADER}: the turns that did end."]
    t.notes += present(a.seeds_note(frames)) + a.notes()
    return t


BUILDERS = {1: table1, 2: table2, 6: table6, 7: table7, 8: table8}


def build_tables(a: Analysis) -> list[Table]:
    return [build(a) for _n, build in sorted(BUILDERS.items())]
