"""Tables 5 and 10 of the paper (Analysis 3, the staged protocols) from the session logs: the
workspace family's ``tables`` part (layer 6; ``study tables --study`` asks it through
``study.families.registry``). It reads the logs alone, as ``analysis`` does: the sessions
``analysis.study_sessions`` admits, rendered by ``analysis.render``; nothing of how they were run.

Each analysed session is one run of a staged protocol (a sequence of fresh contexts) under Plain
or FSM; its ``outcome`` event is the protocol's own scorer's verdict, taken over the workspace when
the run ended (``family.py``): AutoResearch's ledger rows (each valid or the rule
it breaks), whether the protocol is complete, the best kept accuracy; the month-end close's
periods (each started or not, the fraction of its eleven report fields within tolerance, correct
when all are). Its ``session_start`` gives the turn cap of one context (``limits.turns``), its
``session_end`` the cost. Runs are paired by protocol, model (on its runtime), turn cap and seed.

- Table 5: per protocol and measure, Plain against FSM: AutoResearch's valid ledger rows (of those
  required), complete protocols (of the campaigns), the best accuracy; the month-end close's
  correct periods (of those of the runs) at each turn cap.
- Table 10: the detail: (a) per AutoResearch campaign its valid rows, complete protocol and best
  accuracy; (b) per month-end turn cap and seed each period's score (1 correct, 0 not, - not
  started), the mean over the periods and the cost, Plain / FSM.
"""

from __future__ import annotations

from analysis.render import Cell, Column, Table, csv_number
from analysis.study_sessions import StudySession, StudySessions

PLAIN, FSM = "Plain", "FSM"
#: how a smaller run (``--accounts N``, exploratory) is named beside its model
SIZE_WORDS = {"autoresearch": "{} trial(s) per stage", "month-end-close": "first {} period(s)"}
SIMULATED_TITLE = "SIMULATED (made by the simulator; not results) - "

T5_COLUMNS = [Column("Protocol", align="l"), Column("Measure", align="l"), Column("Plain"),
              Column("FSM")]
T5_DEFINITIONS = {
    "Model": "the agent's model (one on another runtime than Claude Code is named with its runtime)",
    "Protocol": "the staged protocol and how many runs per condition the row is over (campaigns, or seeds of six "
                "periods)",
    "Measure": "valid ledger rows of those required (a row is valid with the required fields, a decision in keep, "
               "discard, crash, a known stage, the stage's axis, a numeric metric, only train.py changed and a recorded "
               "candidate commit); complete protocols (every row valid, the stages in order); the best accuracy a kept "
               "row recorded; correct periods (all eleven report fields within tolerance) at a turn cap per period",
    "Plain": "the procedure in the prompt",
    "FSM": "the same procedure enforced by the protocol's workflow",
}
T10A_COLUMNS = [Column("Campaign"), Column("Valid rows", csv=("Valid rows Plain", "Valid rows FSM")),
                Column("Complete", csv=("Complete Plain", "Complete FSM")),
                Column("Best accuracy (%)", csv=("Best accuracy Plain", "Best accuracy FSM"))]
T10B_COLUMNS = [Column("Turn cap"), Column("Seed"), Column("Plain, periods", align="l"),
                Column("FSM, periods", align="l"), Column("Mean", csv=("Mean Plain", "Mean FSM")),
                Column("Cost ($)", csv=("Cost Plain", "Cost FSM"))]
T10_DEFINITIONS = {
    "Model": T5_DEFINITIONS["Model"],
    "Campaign": "an AutoResearch run (its seed)",
    "Valid rows": "valid ledger rows of those required, Plain / FSM",
    "Complete": "the protocol complete (every row valid, the stages in order), Plain / FSM",
    "Best accuracy (%)": "the best test accuracy a kept row recorded, Plain / FSM",
    "Turn cap": "the turns one period's context may take",
    "Seed": "the company's seed",
    "Plain, periods": "each period's score under Plain, in order: 1 correct, 0 not (no report, or a field off), - "
                      "not started (the run's budget was spent)",
    "FSM, periods": "the same under FSM",
    "Mean": "the mean score over the six periods (not started counts 0), Plain / FSM",
    "Cost ($)": "the run's cost at the list prices of models.yaml, Plain / FSM",
}


def _runs(found: StudySessions, protocol: str) -> dict[tuple[str, int, int], dict[str, StudySession]]:
    """(model, turn cap, seed) -> condition -> the run's session, for ``protocol``."""
    runs: dict[tuple[str, int, int], dict[str, StudySession]] = {}
    for s in found.sessions:
        out = s.last("outcome")
        if out is None or out.get("protocol") != protocol:
            continue
        turns = int((s.start.get("limits") or {}).get("turns") or 0)
        size = s.start.get("size")   # a smaller run of the same code (exploratory): a row of its own
        model = s.model if size is None else f"{s.model}, {SIZE_WORDS[protocol].format(size)}"
        runs.setdefault((model, turns, int(s.record.seed or 0)), {})[s.record.condition or "?"] = s
    return runs


def _out(s: StudySession | None) -> dict:
    return (s.last("outcome") or {}) if s is not None else {}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}"


def table5(found: StudySessions) -> Table:
    title = (SIMULATED_TITLE if found.simulated else "") + "Analysis 3: staged protocols, Plain against FSM"
    table = Table(5, title, "Model", list(T5_COLUMNS))
    research = _runs(found, "autoresearch")
    for model in sorted({k[0] for k in research}):
        runs = [r for k, r in sorted(research.items()) if k[0] == model]
        n = {c: sum(c in r for r in runs) for c in (PLAIN, FSM)}
        valid = {c: sum(int(_out(r.get(c)).get("valid_rows") or 0) for r in runs) for c in (PLAIN, FSM)}
        need = {c: sum(int(_out(r.get(c)).get("required_rows") or 0) for r in runs if c in r) for c in (PLAIN, FSM)}
        done = {c: sum(bool(_out(r.get(c)).get("complete")) for r in runs) for c in (PLAIN, FSM)}
        best = {c: max((a for r in runs if (a := _out(r.get(c)).get("best_accuracy")) is not None), default=None)
                for c in (PLAIN, FSM)}
        count = max(n.values())
        label = f"AutoResearch ({count} campaign{'s' * (count != 1)})"
        table.rows.append((model, [Cell(label), Cell("valid ledger rows"),
                                   *(_ratio(valid[c], need[c], n[c]) for c in (PLAIN, FSM))]))
        table.rows.append((model, [Cell(label), Cell("complete protocols"),
                                   *(_ratio(done[c], n[c], n[c]) for c in (PLAIN, FSM))]))
        table.rows.append((model, [Cell(label), Cell("best accuracy (%)"),
                                   *(Cell(_pct(best[c]), (csv_number(best[c]),), best[c]) for c in (PLAIN, FSM))]))
    close = _runs(found, "month-end-close")
    for model in sorted({k[0] for k in close}):
        for turns in sorted({k[1] for k in close if k[0] == model}, reverse=True):
            runs = [r for k, r in sorted(close.items()) if k[0] == model and k[1] == turns]
            right = {c: sum(int(_out(r.get(c)).get("correct_periods") or 0) for r in runs) for c in (PLAIN, FSM)}
            total = {c: sum(len(_out(r.get(c)).get("periods") or []) for r in runs if c in r) for c in (PLAIN, FSM)}
            label = f"Month-end close ({len(runs)} seed{'s' * (len(runs) != 1)} of six periods)"
            ran = {c: sum(c in r for r in runs) for c in (PLAIN, FSM)}
            table.rows.append((model, [Cell(label), Cell(f"correct periods, {turns} turns"),
                                       *(_ratio(right[c], total[c], ran[c]) for c in (PLAIN, FSM))]))
    table.notes += _common_notes(found, table, T5_DEFINITIONS, [c.header for c in T5_COLUMNS])
    return table


def _ratio(part: int, whole: int, runs: int) -> Cell:
    """``part/whole`` (ranked by its share), or - when the condition has no run here."""
    if not runs:
        return Cell("-", ("", ""), None)
    return Cell(f"{part}/{whole}", (part, whole), part / whole if whole else None)


def _period_marks(s: StudySession | None) -> tuple[str, float | None]:
    periods = _out(s).get("periods") or []
    if not periods:
        return "-", None
    marks = ["-" if not p.get("started") else ("1" if p.get("correct") else "0") for p in periods]
    return " ".join(marks), sum(bool(p.get("correct")) for p in periods) / len(periods)


def _cost(s: StudySession | None) -> float | None:
    end = s.last("session_end") if s is not None else None
    cost = end.get("cost_usd") if end else None
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None


def _pair(a, b, show) -> str:
    return f"{show(a)} / {show(b)}"


def table10(found: StudySessions) -> list[Table]:
    simulated = SIMULATED_TITLE if found.simulated else ""
    a = Table(10, simulated + "Analysis 3 in detail: (a) AutoResearch, per campaign", "Model", list(T10A_COLUMNS))
    for (model, _turns, seed), runs in sorted(_runs(found, "autoresearch").items()):
        p, f = _out(runs.get(PLAIN)), _out(runs.get(FSM))
        rows = lambda o: f"{o.get('valid_rows', '-')}/{o.get('required_rows', '-')}" if o else "-"  # noqa: E731
        yes = lambda o: ("yes" if o.get("complete") else "no") if o else "-"  # noqa: E731
        a.rows.append((model, [Cell(str(seed), (seed,)),
                               Cell(f"{rows(p)} / {rows(f)}", (p.get("valid_rows", ""), f.get("valid_rows", ""))),
                               Cell(f"{yes(p)} / {yes(f)}", (yes(p), yes(f))),
                               Cell(_pair(p.get("best_accuracy"), f.get("best_accuracy"), _pct),
                                    (csv_number(p.get("best_accuracy")), csv_number(f.get("best_accuracy"))))]))
    a.notes += _common_notes(found, a, T10_DEFINITIONS, [c.header for c in T10A_COLUMNS])
    b = Table(10, simulated + "Analysis 3 in detail: (b) month-end close, per turn cap and seed", "Model",
              list(T10B_COLUMNS))
    for (model, turns, seed), runs in sorted(_runs(found, "month-end-close").items(), key=lambda kv: (kv[0][0], -kv[0][1], kv[0][2])):
        (pm, pmean), (fm, fmean) = _period_marks(runs.get(PLAIN)), _period_marks(runs.get(FSM))
        pc, fc = _cost(runs.get(PLAIN)), _cost(runs.get(FSM))
        money = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
        mean = lambda x: "-" if x is None else f"{x:.2f}"  # noqa: E731
        b.rows.append((model, [Cell(str(turns), (turns,)), Cell(str(seed), (seed,)), Cell(pm), Cell(fm),
                               Cell(_pair(pmean, fmean, mean), (csv_number(pmean), csv_number(fmean))),
                               Cell(_pair(pc, fc, money), (csv_number(pc), csv_number(fc)))]))
    b.notes += _common_notes(found, b, T10_DEFINITIONS, [c.header for c in T10B_COLUMNS])
    a.suffix, b.suffix = "a", "b"
    return [a, b]


def _common_notes(found: StudySessions, table: Table, definitions: dict[str, str], headers: list[str]) -> list[str]:
    notes = []
    if not table.rows:
        notes.append("No rows: " + ("no analysable run of this protocol" if found.sessions else
                                    "no analysable session of these studies") + ".")
    if found.excluded:
        notes.append(f"Excluded: {len(found.excluded)} session(s) (listed with their reasons).")
    notes.append("Columns: " + "; ".join(f"{h}: {definitions[h]}" for h in ["Model", *headers]) + ".")
    return notes


def tables(found: StudySessions) -> list[Table]:
    """The staged protocols' tables (what ``analysis.study_tables`` asks for): Tables 5 and 10 (a, b)."""
    return [table5(found), *table10(found)]
